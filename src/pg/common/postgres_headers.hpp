// The PostgreSQL headers the glue uses, included once, in one place, with C
// linkage and after the C++ standard headers (PostgreSQL's port.h redefines
// printf-family names that libstdc++ headers would otherwise trip over).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>

extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

// port.h maps these to pg_* versions; C++ code here means the standard ones.
#undef snprintf
#undef vsnprintf
#undef sprintf
#undef printf
