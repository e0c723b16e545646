// crid_registry_clock(): how far the registry's clock was from this
// server's at the block reserver's last reservation round, and the skew the
// fleet allows, for crid_check() to report a member whose clock is off and
// to write the UPDATE that allows more skew.
#include "common/postgres_headers.hpp"

#include "common/args.hpp"
#include "common/minting.hpp"
#include "worker/worker_shared.hpp"

extern "C" {
#include "funcapi.h"
}

extern "C" {

PG_FUNCTION_INFO_V1(crid_registry_clock);

// crid_registry_clock() -> one row (offset_ms, uncertainty_ms, max_skew_ms,
// measured_at, registry_table, state_table); no row when crid is not
// preloaded or no round has measured the registry's clock since the start.
Datum crid_registry_clock(PG_FUNCTION_ARGS) {
    namespace pg = crid::pg;
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    if (!pg::preloaded())
        return (Datum)0;
    pg::worker::RegistryClock c = pg::worker::registry_clock();
    if (!c.measured)
        return (Datum)0;
    Datum values[6] = {
        Int64GetDatum(c.offset_ms),
        Int64GetDatum(c.uncertainty_ms),
        Int32GetDatum(int32(c.max_skew_ms)),
        TimestampTzGetDatum(pg::timestamptz_from_unix_ms(c.measured_unix_ms)),
        CStringGetTextDatum(c.registry_table),
        CStringGetTextDatum(c.state_table),
    };
    bool nulls[6] = {false, false, false, false, c.registry_table[0] == '\0', c.state_table[0] == '\0'};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    return (Datum)0;
}

} // extern "C"
