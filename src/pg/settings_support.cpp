#include "settings_support.hpp"

#include "../core/clock.hpp"
#include "../core/time_units.hpp"

namespace crid::pg {

GucContext fixed_at_start_context() {
    return process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP;
}

int64_t epoch_setting_unix_ms(const char *setting, const char *text) {
    Datum ts = DirectFunctionCall3(timestamptz_in, CStringGetDatum(text), ObjectIdGetDatum(InvalidOid),
                                   Int32GetDatum(-1));
    TimestampTz at = DatumGetTimestampTz(ts);
    if (TIMESTAMP_NOT_FINITE(at))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s must be a finite time, not \"%s\"", setting, text)));
    int64_t epoch = core::unix_ms_from_pg_us_floor(at);
    if (epoch > core::wall_clock_ns() / core::ns_per_ms)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s \"%s\" is in the future", setting, text),
                        errhint("Ids count time from the epoch; choose a past time.")));
    return epoch;
}

} // namespace crid::pg
