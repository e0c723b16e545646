# crid — PGXS build. `make demo` and `make test` are the two commands a
# newcomer needs; both install missing Debian packages first.

EXTENSION  = crid
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" crid.control)
MODULE_big = crid

CORE_SRCS = $(sort $(wildcard src/core/*.cpp))
GLUE_SRCS = $(sort $(wildcard src/pg/*.cpp))
OBJS      = $(CORE_SRCS:.cpp=.o) $(GLUE_SRCS:.cpp=.o)
DATA      = sql/crid--$(EXTVERSION).sql

PG_CONFIG ?= pg_config

# Our code builds with every warning as an error; PostgreSQL's headers are
# -isystem (below) so their warnings are not ours.
PG_CXXFLAGS += -std=c++20 -Wall -Wextra -Werror -Wno-register
SHLIB_LINK += -lstdc++

# JIT bitcode of C++ glue buys nothing and would need clang at install time.
override with_llvm := no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

override CPPFLAGS := $(patsubst -I$(includedir_server),-isystem $(includedir_server),$(CPPFLAGS))

# Rebuild an object when a header it includes changes (PGXS tracks only the
# source file): structs in shared memory must agree across every object.
override CPPFLAGS += -MMD -MP
-include $(OBJS:.o=.d)

# src/core must stay free of PostgreSQL: every core object depends on this check.
$(CORE_SRCS:.cpp=.o): .core-is-pure
$(CORE_SRCS:.cpp=.o): override CPPFLAGS += -DCRID_CORE_UNIT
.core-is-pure: $(wildcard src/core/*.hpp src/core/*.cpp)
	@! grep -nE '#include +[<"](postgres|fmgr|funcapi|miscadmin|pg_config|utils/|storage/|access/|catalog/|executor/|nodes/|port/)' src/core/* \
	  || { echo "src/core must not include PostgreSQL headers (see above)"; exit 1; }
	@touch $@

.PHONY: demo demo-stop test core-test bench format
demo:
	@test/harness/demo.sh start
demo-stop:
	@test/harness/demo.sh stop
test:
	@test/harness/run-all.sh
core-test:
	@test/harness/run-core-tests.sh
bench:
	@test/bench/run.sh
format:
	clang-format -i src/core/*.?pp src/pg/*.?pp test/core/*.?pp

EXTRA_CLEAN = .core-is-pure test/core/build $(OBJS:.o=.d)
