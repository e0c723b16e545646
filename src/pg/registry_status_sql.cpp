// crid_registry_status(): what the block reserver last saw of its registry
// (issue 8), for an administrator watching a fleet: where the registry is
// (never its password), the worker's state and last error, whether it is
// connected to a remote registry, and the latency of its last round trip.
#include "postgres_headers.hpp"

#include "crid_shared.hpp"
#include "fleet_settings.hpp"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
}

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
// connected, connects, round_trips, last_round_trip_us); no row when crid
// is not preloaded.
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
    Datum values[8] = {
        CStringGetTextDatum(crid::pg::fleet::registry_name()),
        BoolGetDatum(remote),
        CStringGetTextDatum(state_name(state)),
        CStringGetTextDatum(detail),
        BoolGetDatum(pg_atomic_read_u32(&s->registry_connected) != 0),
        Int64GetDatum(int64(pg_atomic_read_u64(&s->registry_connects))),
        Int64GetDatum(int64(pg_atomic_read_u64(&s->registry_round_trips))),
        Int64GetDatum(int64(pg_atomic_read_u64(&s->registry_last_us))),
    };
    bool nulls[8] = {false, false, false, detail[0] == '\0', !remote, !remote, false, false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    return (Datum)0;
}

} // extern "C"
