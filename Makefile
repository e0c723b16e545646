# crid — PGXS build. `make demo` and `make test` are the two commands a
# newcomer needs; both install missing Debian packages first.

EXTENSION  = crid
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" crid.control)
MODULE_big = crid

CORE_SRCS = $(sort $(wildcard src/core/*.cpp))
GLUE_SRCS = $(sort $(wildcard src/pg/*/*.cpp))
OBJS      = $(CORE_SRCS:.cpp=.o) $(GLUE_SRCS:.cpp=.o)

# Versions. crid--0.1.0.sql is released and never edited; each release adds
# an upgrade script, listed here in order. The install script of the current
# version is generated from the first script and the upgrades, so a fresh
# install runs exactly the SQL an upgraded one ran (a TAP test compares them).
#
# Released scripts are committed as they shipped. The upgrade script of the
# release being made is built from sql/crid--A--B.sql.in, whose lines
# "-- @include functions/NAME.sql" take in one file per long function body
# (sql/functions/), so changing a function changes its file and a line of the
# next upgrade script. At release the built script is committed in place of
# the .in (CONTRIBUTING.md, "Cut a release").
BASE_SCRIPT       = sql/crid--0.1.0.sql
RELEASED_UPGRADES = sql/crid--0.1.0--0.2.0.sql sql/crid--0.2.0--0.3.0.sql
NEXT_UPGRADE      = sql/crid--0.3.0--0.4.0.sql
UPGRADE_SCRIPTS   = $(RELEASED_UPGRADES) $(NEXT_UPGRADE)
# A registry server without crid installed gets its tables from a script of
# its own (docs/fleet.md, "A fleet of servers on one registry"), built the
# same way.
REGISTRY_SCRIPT = sql/registry/crid_registry_server.sql
DATA            = $(BASE_SCRIPT) $(RELEASED_UPGRADES)
# Installed beside PostgreSQL's programs: carries crid's mark files into the
# data directory pg_upgrade made (docs/postgresql-versions.md, "Upgrading
# across majors with pg_upgrade").
SCRIPTS         = bin/crid_copy_marks
DATA_built      = sql/crid--$(EXTVERSION).sql $(NEXT_UPGRADE) $(REGISTRY_SCRIPT)

# Tests. `make installcheck` runs these against a temporary instance with
# crid preloaded (the settings in test/harness/*.conf); `make test` runs them
# and every other suite. Tests that need a server without crid preloaded are
# not PGXS suites: make test runs them with their own configuration.
REGRESS      = setup security crid snowflake uuidv7 genes gene_orders bad_input roles
REGRESS_OPTS = --temp-instance=tmp_check_regress --temp-config=test/harness/preloaded.conf
REGRESS_NOT_PRELOADED = no_preload_crid no_preload_snowflake no_preload_uuidv7 no_preload_genes
ISOLATION      = crid_allocate snowflake_order uuidv7_order
ISOLATION_OPTS = --inputdir=test/isolation --temp-instance=tmp_check_iso --temp-config=test/harness/isolation.conf
# Queries by time, backfills and text forms of ids.
REGRESS               += time_predicates text_forms backfill migration
REGRESS_NOT_PRELOADED += no_preload_time_in
ISOLATION             += backfill_concurrent
# Ids for past times: snowflake.
REGRESS               += snowflake_backfill
# crid ids for past times: crid_reserve, crid_pack, the eviction horizon.
REGRESS               += crid_backfill
# What differs between PostgreSQL 15, 17 and 18 (after time_predicates,
# whose tables it uses).
REGRESS               += versions
ISOLATION             += crid_reserve_evict
# Multi-writer replication: crid's own tables never travel; crid_check().
REGRESS               += crid_check
# Partitions by time of tables partitioned by RANGE on their id.
REGRESS               += partitions
REGRESS_NOT_PRELOADED += no_preload_partitions
REGRESS_NOT_PRELOADED += no_preload_public_ids
ISOLATION             += partitions_concurrent
# Public ids: faces of keys that hide time and volume, keys kept server-side.
REGRESS               += public_ids
# crid's PARALLEL SAFE functions in parallel workers.
REGRESS               += parallel_workers
# Callers never run others' code; crid's state is crid's (docs/security.md).
REGRESS               += security_callers
ISOLATION             += backfill_lock
# Ids in JSON: layouts below 2^53.
REGRESS               += javascript json_keys
# Sequences converted to hand out snowflake or crid ids.
REGRESS               += sequences
TAP_TESTS   = 1
PROVE_TESTS = test/tap/t/*.pl

PG_CONFIG ?= pg_config

# Our code builds with every warning as an error; PostgreSQL's headers are
# -isystem (below) so their warnings are not ours.
PG_CXXFLAGS += -std=c++20 -Wall -Wextra -Werror -Wno-register
# The version the module names in its magic block (PostgreSQL 18 on).
PG_CPPFLAGS += -DCRID_EXTVERSION='"$(EXTVERSION)"'
SHLIB_LINK += -lstdc++

# JIT bitcode of C++ glue buys nothing and would need clang at install time.
override with_llvm := no

# A fleet on one registry: the worker speaks libpq to a remote
# registry, linked as postgres_fdw links it.
SHLIB_LINK_INTERNAL = $(libpq)
PG_CPPFLAGS += -I$(libpq_srcdir)
# The glue names its headers from src/pg (common/boundary.hpp) and the core's
# from src (core/clock.hpp): a name says which room a file is in.
PG_CPPFLAGS += -I$(srcdir)/src/pg -I$(srcdir)/src

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

override CPPFLAGS := $(patsubst -I$(includedir_server),-isystem $(includedir_server),$(CPPFLAGS))
override CPPFLAGS := $(patsubst -I$(libpq_srcdir),-isystem $(libpq_srcdir),$(CPPFLAGS))
PG_PROVE_FLAGS += -I $(srcdir)/test/tap/lib

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

# A script with its "-- @include functions/NAME.sql" lines replaced by those
# files (paths relative to sql/), under a header saying it is generated. The
# registry-server script (wrap=1) is run by psql without the extension: psql
# cannot put a variable into a dollar-quoted body, so each included file
# becomes a query that replaces @extschema@ with the quoted psql variable
# :'schema' and runs the result (\gexec); and it may run again, so its
# functions are created or replaced. A line "-- @schema_guard" in an
# included file becomes sql/functions/schema_guard.inc, the check that
# crid's schema is still the one a body names (docs/security.md); in it
# @crid_schema_oid@ is that schema's OID: for the extension, looked up in
# pg_extension as the body runs; for the registry-server script, the OID
# of :'schema' as it runs, written into the body.
CRID_SCHEMA_OID = (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'crid'::pg_catalog.name)
INCLUDE_SQL = awk -v wrap="$(2)" -v schema_oid="$(CRID_SCHEMA_OID)" 'BEGIN { print "-- generated by make from " ARGV[1] ": edit that file and sql/functions/, not this one." } \
	function emit(line) { if (!wrap) gsub(/@crid_schema_oid@/, schema_oid, line); print line } \
	/^-- @include / { f = "sql/" $$3; if (wrap) print "SELECT pg_catalog.replace(pg_catalog.replace($$crid_include$$"; \
	  while ((getline line < f) > 0) { if (wrap) sub(/^CREATE FUNCTION /, "CREATE OR REPLACE FUNCTION ", line); \
	    if (line ~ /^ *-- @schema_guard$$/) { g = "sql/functions/schema_guard.inc"; while ((getline l2 < g) > 0) emit(l2); close(g) } else emit(line) }; close(f); \
	  if (wrap) { print "$$crid_include$$, '"'"'@extschema@'"'"', pg_catalog.quote_ident(:'"'"'schema'"'"')), '"'"'@crid_schema_oid@'"'"',"; \
	    print "  pg_catalog.quote_literal(pg_catalog.to_regnamespace(pg_catalog.quote_ident(:'"'"'schema'"'"'))::pg_catalog.oid::pg_catalog.text) OPERATOR(pg_catalog.||) '"'"'::pg_catalog.oid'"'"')"; \
	    print "\\gexec" }; next } { print }' $(1)
INCLUDED_SQL = $(filter-out $(REGISTRY_SCRIPT),$(wildcard sql/functions/*.sql sql/functions/*.inc sql/registry/*.sql))
$(NEXT_UPGRADE): %.sql: %.sql.in $(INCLUDED_SQL)
	@$(call INCLUDE_SQL,$<,) > $@
$(REGISTRY_SCRIPT): %.sql: %.sql.in $(INCLUDED_SQL)
	@$(call INCLUDE_SQL,$<,1) > $@

# The install script of the current version: the base script and every
# upgrade, each without its own "\echo ... \quit" guard, under one guard.
sql/crid--$(EXTVERSION).sql: $(BASE_SCRIPT) $(UPGRADE_SCRIPTS)
	@{ printf '%s\n' '-- crid $(EXTVERSION), generated by make from $^: edit those, not this file.' \
	     '\echo Use "CREATE EXTENSION crid" to load this file. \quit'; \
	   for f in $^; do printf '\n-- ==== %s\n' "$$f"; sed '/^\\echo Use "/d' "$$f"; done; } > $@

.PHONY: demo demo-stop test test-all test-faults core-test bench format print-% dist

# `make dist`: the PGXN bundle crid-<version>.zip, a git archive of the
# release tag v<version> (DIST_REF=HEAD for a snapshot), after META.json
# passed the PGXN meta spec check.
DIST_REF ?= v$(EXTVERSION)
dist:
	@git rev-parse -q --verify '$(DIST_REF)^{commit}' >/dev/null || \
	  { echo "make dist: no git ref $(DIST_REF); tag the release (git tag v$(EXTVERSION)) or set DIST_REF=HEAD"; exit 1; }
	@perl test/harness/check-meta.pl META.json
	git archive --format=zip --prefix=crid-$(EXTVERSION)/ -o crid-$(EXTVERSION).zip $(DIST_REF)
	@echo "wrote crid-$(EXTVERSION).zip from $(DIST_REF)"
demo:
	@test/harness/demo.sh start
demo-stop:
	@test/harness/demo.sh stop
# make test: every suite against this machine's PostgreSQL. make test PG=17
# (or 15, 18): the suites that depend on PostgreSQL, in a Debian root of that
# major (test/harness/pg-root.sh). make test-all: this machine, then 17 and
# 18, and every major's package; one "N passed, M failed" line at the end.
test:
ifeq ($(PG),)
	@test/harness/run-all.sh
else
	@test/harness/run-root.sh $(PG)
endif
test-all:
	@test/harness/run-every-version.sh
# make test-faults: the fleet's fault schedules (test/tap/t/039_fleet_faults.pl:
# registry messages held, delayed, dropped, reset) for FAULT_ROUNDS rounds
# each, timing drawn from a seed it prints (FAULT_SEED=N reruns one); make
# test runs one round. crid must be built and installed.
FAULT_ROUNDS ?= 2
test-faults:
	@CRID_FAULT_ROUNDS=$(FAULT_ROUNDS) CRID_FAULT_SEED=$(FAULT_SEED) test/harness/run-tap.sh test/tap/t/039_fleet_faults.pl
core-test:
	@test/harness/run-core-tests.sh
bench:
	@test/bench/report.sh
format:
	clang-format -i src/core/*.?pp src/pg/*/*.?pp test/core/*.?pp test/fuzz/*.?pp test/module/*.?pp
# Hardening: the libFuzzer targets of src/core for FUZZ_SECONDS each (make
# test runs them for a fixed number of inputs), and the core unit tests under
# AddressSanitizer, UndefinedBehaviorSanitizer and ThreadSanitizer.
FUZZ_SECONDS ?= 60
.PHONY: fuzz sanitizers
fuzz:
	@test/harness/run-fuzz.sh seconds $(FUZZ_SECONDS)
sanitizers:
	@test/harness/run-sanitizers.sh

# `make -s print-REGRESS` and the like: lets scripts read the lists above.
print-%:
	@echo $($*)

EXTRA_CLEAN = crid-$(EXTVERSION).zip .core-is-pure test/core/build $(OBJS:.o=.d) tmp_check_regress tmp_check_iso
