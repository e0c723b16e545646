#include "settings_support.hpp"

extern "C" {
#include "pgtime.h"
}

#include <cctype>

#include "../core/clock.hpp"
#include "../core/time_units.hpp"

namespace crid::pg {

GucContext fixed_at_start_context() {
    return process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP;
}

int64_t epoch_setting_unix_ms(const char *setting, const char *text) {
    // Special words ('now', 'today', ...) would give every process its own
    // epoch; an epoch is a date.
    if (!isdigit(static_cast<unsigned char>(text[0])))
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("%s must be a date and time such as '2026-01-01 00:00:00+00', not \"%s\"", setting, text)));
    // Read in UTC, so an epoch written without an offset means the same in
    // every session whatever its TimeZone.
    pg_tz *session_zone = session_timezone;
    TimestampTz at;
    session_timezone = pg_tzset("UTC");
    PG_TRY();
    {
        at = DatumGetTimestampTz(DirectFunctionCall3(timestamptz_in, CStringGetDatum(text),
                                                     ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
    }
    PG_FINALLY();
    { session_timezone = session_zone; }
    PG_END_TRY();
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
