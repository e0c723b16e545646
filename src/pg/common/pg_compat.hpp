// What differs between the PostgreSQL majors crid builds for (15, 17 and 18),
// in one place: the glue uses the names below and never tests
// PG_VERSION_NUM itself.
#pragma once

#include "common/postgres_headers.hpp"

#include <cstdlib>

extern "C" {
#include "storage/proc.h"
#include "utils/fmgroids.h"
#include "utils/guc_tables.h"
#include "utils/wait_event.h"
#if PG_VERSION_NUM >= 170000
#include "storage/procnumber.h"
#endif
}

// The module's magic block: from 18 on it also names the module and its
// version, which pg_get_loaded_modules() shows. Written once, in extern "C".
#if PG_VERSION_NUM >= 180000
#define CRID_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "crid", .version = CRID_EXTVERSION)
#else
#define CRID_MODULE_MAGIC PG_MODULE_MAGIC
#endif

namespace crid::pg::compat {

// This backend's slot in the PGPROC array: MyProc->pgprocno until 16, the
// global MyProcNumber from 17 on.
inline int my_proc_number() {
#if PG_VERSION_NUM >= 170000
    return int(MyProcNumber);
#else
    return MyProc->pgprocno;
#endif
}

// The setting that forces parallel plans, which a session that must behave
// the same everywhere pins off: force_parallel_mode until 15, renamed
// debug_parallel_query in 16 (the old name is an ERROR there).
#if PG_VERSION_NUM >= 160000
inline constexpr const char *debug_parallel_setting = "debug_parallel_query";
#else
inline constexpr const char *debug_parallel_setting = "force_parallel_mode";
#endif

// Memory for what a GUC check hook hands back in *extra (or puts in place of
// *newval): PostgreSQL frees it with free() until 15 and with guc_free(),
// from its own memory context, from 16 on, so it must come from the
// matching allocator. nullptr when out of memory (the hook then fails).
inline void *guc_extra_alloc(size_t size) {
#if PG_VERSION_NUM >= 160000
    return guc_malloc(LOG, size);
#else
    return std::malloc(size);
#endif
}

// Every setting PostgreSQL knows (placeholders included) and how many:
// get_guc_variables() returned the array and GetNumConfigOptions() counted
// it until 15; from 16 on get_guc_variables() counts it itself.
inline struct config_generic **guc_variables(int &count) {
#if PG_VERSION_NUM >= 160000
    return get_guc_variables(&count);
#else
    count = GetNumConfigOptions();
    return get_guc_variables();
#endif
}

// Core's functions of the names crid provides for PostgreSQL 15, where core
// has them, for the planner hook (InvalidOid where core has none, or one
// the hook must not take for crid's). uuid_extract_version is core's from
// 17 on, and means what crid's means. uuid_extract_timestamp is core's from
// 17 on too, but reads version 7 only from 18 on: 17's gives NULL for it,
// so a version 7 id range in its place would let rows through that it
// rejects.
#if PG_VERSION_NUM >= 170000
inline constexpr Oid core_uuid_extract_version = F_UUID_EXTRACT_VERSION;
#else
inline constexpr Oid core_uuid_extract_version = InvalidOid;
#endif
#if PG_VERSION_NUM >= 180000
inline constexpr Oid core_uuid_extract_timestamp_v7 = F_UUID_EXTRACT_TIMESTAMP;
#else
inline constexpr Oid core_uuid_extract_timestamp_v7 = InvalidOid;
#endif

// What crid waits for. From 17 on each has its own name in
// pg_stat_activity.wait_event and pg_wait_events (WaitEventExtensionNew);
// until then all of them show as "Extension".
enum class Wait : int {
    block,             // crid_next() waiting for the block reserver
    reserver_pause,    // the block reserver between retries
    reserver_idle,     // the block reserver with nothing to do
    high_water_keeper, // the high-water keeper between marks
    registry,          // the block reserver waiting on a remote registry
    snowflake_clock,   // snowflake_next() waiting for its next time unit
    count
};

namespace detail {
inline uint32 wait_ids[int(Wait::count)] = {};
}

// Asks for every wait's id once, where shared memory is set up (the
// postmaster, at start and after a crash; backends inherit the ids). Only
// there: asking may ERROR, which the places that wait must not see.
inline void register_wait_events() {
#if PG_VERSION_NUM >= 170000
    static const char *const names[int(Wait::count)] = {"CridBlock",        "CridReserverPause",
                                                        "CridReserverIdle", "CridHighWaterKeeper",
                                                        "CridRegistry",     "CridSnowflakeClock"};
    for (int w = 0; w < int(Wait::count); ++w)
        detail::wait_ids[w] = WaitEventExtensionNew(names[w]);
#endif
}

// The wait_event_info of a crid wait: its own where registered, else
// PG_WAIT_EXTENSION.
inline uint32 wait_event_info(Wait w) {
    uint32 id = detail::wait_ids[int(w)];
    return id != 0 ? id : PG_WAIT_EXTENSION;
}

} // namespace crid::pg::compat
