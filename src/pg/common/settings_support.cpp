#include "common/settings_support.hpp"

extern "C" {
#include "pgtime.h"
#include "utils/datetime.h"
}

#include "core/clock.hpp"
#include "core/time_units.hpp"

#include <algorithm>
#include <cstdio>

namespace crid::pg {

namespace {

// True when the text names a time relative to the clock: one of PostgreSQL's
// reserved words now, today, tomorrow or yesterday (alone or beside a time of
// day). Uses PostgreSQL's own tokenizer, so every spelling it accepts is seen.
bool is_relative_time(const char *text) {
    char work[MAXDATELEN + MAXDATEFIELDS];
    char *fields[MAXDATEFIELDS];
    int types[MAXDATEFIELDS];
    int count = 0;
    if (ParseDateTime(text, work, sizeof work, fields, types, MAXDATEFIELDS, &count) != 0)
        return false; // not a timestamp at all: timestamptz_in says so below
    for (int i = 0; i < count; ++i) {
        if (types[i] != DTK_STRING && types[i] != DTK_SPECIAL)
            continue;
        int value = 0;
        if (DecodeSpecial(i, fields[i], &value) != RESERV)
            continue;
        if (value == DTK_NOW || value == DTK_TODAY || value == DTK_TOMORROW || value == DTK_YESTERDAY)
            return true;
    }
    return false;
}

} // namespace

GucContext fixed_at_start_context() {
    return process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP;
}

int64_t epoch_setting_unix_ms(const char *setting, const char *text) {
    // 'now', 'today', '00:00 yesterday' would give every process its own
    // epoch, and a decoder a different one each day; an epoch is a date.
    if (is_relative_time(text))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s must be an absolute date and time such as '2026-01-01 00:00:00+00', not \"%s\"",
                               setting, text),
                        errdetail("Words such as now, today, tomorrow and yesterday name a different time in every "
                                  "process and on every day.")));
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

bool LayoutSource::matches(const char *epoch_text, std::initializer_list<int> widths) const noexcept {
    return built_ && std::strcmp(epoch_, epoch_text) == 0 && int(widths.size()) == count_ &&
           std::equal(widths.begin(), widths.end(), widths_);
}

void LayoutSource::remember(const char *epoch_text, std::initializer_list<int> widths) noexcept {
    std::snprintf(epoch_, sizeof epoch_, "%s", epoch_text);
    count_ = int(std::min<size_t>(widths.size(), max_widths));
    std::copy_n(widths.begin(), count_, widths_);
    built_ = true;
}

} // namespace crid::pg
