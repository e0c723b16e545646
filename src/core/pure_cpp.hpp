// Included first by every header in src/core. The core is plain C++20 that
// builds and unit-tests without PostgreSQL: core translation units are
// compiled with CRID_CORE_UNIT (see the Makefile), and a PostgreSQL header
// seen in one of them stops the build. Glue files may include both.
#pragma once

#if defined(CRID_CORE_UNIT) && (defined(PG_VERSION_NUM) || defined(POSTGRES_H) || defined(FMGR_H))
#error "src/core must not see PostgreSQL headers; put PostgreSQL code in src/pg"
#endif
