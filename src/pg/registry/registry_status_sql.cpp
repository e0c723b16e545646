// crid_registry_status(): what the block reserver last saw of its registry
// (issue 8), for an administrator watching a fleet: where the registry is
// (never its password), the worker's state and last error, whether it is
// connected to a remote registry, and the latency of its last round trip.
#include "common/postgres_headers.hpp"

#include "blocks/block_shared.hpp"
#include "registry/registry_settings.hpp"
#include "snowflake/node_fence.hpp"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/timestamp.h"
}

#include <cstdio>

namespace {

const char *state_name(crid::pg::crid_ids::WorkerState state) {
    using crid::pg::crid_ids::WorkerState;
    switch (state) {
    case WorkerState::not_started:
        return "not_started";
    case WorkerState::connecting:
        return "connecting";
    case WorkerState::no_database:
        return "no_database";
    case WorkerState::no_extension:
        return "no_extension";
    case WorkerState::bad_table:
        return "bad_table";
    case WorkerState::unreachable:
        return "unreachable";
    case WorkerState::outdated:
        return "outdated";
    case WorkerState::held_back:
        return "held_back";
    case WorkerState::failing:
        return "failing";
    case WorkerState::serving:
        return "serving";
    }
    return "unknown";
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_registry_status);

// crid_registry_status() -> one row (registry, remote, state, detail,
// connected, connects, round_trips, last_round_trip_us, lease_until,
// lease_problem); no row when crid is not preloaded.
Datum crid_registry_status(PG_FUNCTION_ARGS) {
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    crid::pg::crid_ids::CridShared *s = crid::pg::crid_ids::shared();
    if (!s)
        return (Datum)0;
    char detail[sizeof s->detail];
    crid::pg::crid_ids::WorkerState state;
    SpinLockAcquire(&s->status_lock);
    state = s->state;
    std::memcpy(detail, s->detail, sizeof detail);
    SpinLockRelease(&s->status_lock);
    detail[sizeof detail - 1] = '\0';
    bool remote = crid::pg::fleet::remote();
    // Node leases: the registry's lease_until of the last renewal, and a
    // node another server holds or the last failed lease round.
    crid::pg::lease::LeaseShared *leases = crid::pg::lease::shared();
    int64 lease_until_ms = 0;
    char problem[sizeof leases->refused + sizeof leases->failure] = "";
    if (leases) {
        SpinLockAcquire(&leases->lock);
        lease_until_ms = leases->lease_until_ms;
        std::snprintf(problem, sizeof problem, "%s%s%s", leases->refused,
                      leases->refused[0] && leases->failure[0] ? " " : "", leases->failure);
        SpinLockRelease(&leases->lock);
    }
    constexpr int64 unix_to_pg_epoch_ms = int64(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;
    Datum values[10] = {
        CStringGetTextDatum(crid::pg::fleet::registry_name()),
        BoolGetDatum(remote),
        CStringGetTextDatum(state_name(state)),
        CStringGetTextDatum(detail),
        BoolGetDatum(pg_atomic_read_u32(&s->registry_connected) != 0),
        Int64GetDatum(int64(pg_atomic_read_u64(&s->registry_connects))),
        Int64GetDatum(int64(pg_atomic_read_u64(&s->registry_round_trips))),
        Int64GetDatum(int64(pg_atomic_read_u64(&s->registry_last_us))),
        TimestampTzGetDatum(TimestampTz((lease_until_ms - unix_to_pg_epoch_ms) * 1000)),
        CStringGetTextDatum(problem),
    };
    bool nulls[10] = {false,   false, false, detail[0] == '\0',   !remote,
                      !remote, false, false, lease_until_ms == 0, problem[0] == '\0'};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    return (Datum)0;
}

} // extern "C"
