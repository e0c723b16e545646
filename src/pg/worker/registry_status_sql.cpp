// crid_registry_status(): what the block reserver last saw of its registry
// for an administrator watching a fleet: where the registry is
// (never its password), the worker's state and last error, whether it is
// connected to a remote registry, and the latency of its last round trip.
#include "common/postgres_headers.hpp"

#include "common/args.hpp"
#include "common/minting.hpp"
#include "registry/registry_settings.hpp"
#include "worker/state_texts.hpp"
#include "worker/worker_shared.hpp"
#include "snowflake/node_fence.hpp"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
}

#include <cstdio>

extern "C" {

PG_FUNCTION_INFO_V1(crid_registry_status);

// crid_registry_status() -> one row (registry, remote, state, detail,
// connected, connects, round_trips, last_round_trip_us, lease_until,
// lease_problem); no row when crid is not preloaded.
Datum crid_registry_status(PG_FUNCTION_ARGS) {
    namespace pg = crid::pg;
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    if (!pg::preloaded())
        return (Datum)0;
    pg::worker::StateNow now = pg::worker::state_now();
    pg::worker::WorkerStatus *s = pg::worker::status();
    bool remote = pg::registry::remote();
    // Node leases: the registry's lease_until of the last renewal, and a
    // node another server holds, the last failed lease round, or a node
    // held but not minted on yet (its earlier holder may still mint).
    pg::snowflake::NodeFence *leases = pg::snowflake::fence();
    int64 lease_until_ms = 0;
    char problem[sizeof leases->refused + sizeof leases->failure + sizeof leases->waiting] = "";
    SpinLockAcquire(&leases->lock);
    lease_until_ms = leases->lease_until_ms;
    size_t used = 0;
    for (const char *part : {leases->refused, leases->failure, leases->waiting})
        if (part[0] && used < sizeof problem)
            used += std::snprintf(problem + used, sizeof problem - used, "%s%s", used ? " " : "", part);
    SpinLockRelease(&leases->lock);
    Datum values[10] = {
        CStringGetTextDatum(pg::registry::registry_name()),
        BoolGetDatum(remote),
        CStringGetTextDatum(pg::worker::state_name(now.state)),
        CStringGetTextDatum(now.detail),
        BoolGetDatum(pg_atomic_read_u32(&s->connected) != 0),
        Int64GetDatum(int64(pg_atomic_read_u64(&s->connects))),
        Int64GetDatum(int64(pg_atomic_read_u64(&s->round_trips))),
        Int64GetDatum(int64(pg_atomic_read_u64(&s->last_us))),
        lease_until_ms == 0 ? Datum(0) : TimestampTzGetDatum(pg::timestamptz_from_unix_ms(lease_until_ms)),
        CStringGetTextDatum(problem),
    };
    bool nulls[10] = {false,   false, false, now.detail[0] == '\0', !remote,
                      !remote, false, false, lease_until_ms == 0,   problem[0] == '\0'};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    return (Datum)0;
}

} // extern "C"
