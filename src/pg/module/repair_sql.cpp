// The superuser functions that resolve what stops minting without stopping
// the server: accepting a changed snowflake layout, and repairing the mark
// files. They live here, above the marks and the families, because each
// moves a mark and then the words of the families that follow it.
#include "common/postgres_headers.hpp"

#include "crid_ids/block_shared.hpp"
#include "crid_ids/crid_ids_settings.hpp"
#include "common/args.hpp"
#include "common/boundary.hpp"
#include "common/minting.hpp"
#include "marks/high_water.hpp"
#include "marks/registry_mark.hpp"
#include "snowflake/snowflake_settings.hpp"

#include "core/time_units.hpp"

namespace {

// Both functions move marks that guard uniqueness: superusers only, even if
// EXECUTE was granted to someone.
void require_superuser(const char *function) {
    if (!superuser())
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("%s is for superusers", function),
                        errdetail("It moves the high-water marks that keep ids unique.")));
    crid::pg::require_minting("snowflake", function, "the marks live in shared memory.");
}

// The last millisecond of the crid layout's last second.
int64_t crid_last_unix_ms() {
    const crid::core::crid_ids::Layout &layout = crid::pg::crid_ids::layout();
    return crid::pg::guarded([&] {
        return crid::core::crid_ids::unix_ms_of_ts(layout, crid::core::crid_ids::max_ts(layout)) +
               crid::core::ms_per_s - 1;
    });
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_accept_layout);
PG_FUNCTION_INFO_V1(crid_reset_high_water);

// crid_accept_layout(force boolean DEFAULT false) -> timestamptz: accepts the
// snowflake layout of the settings after a change; returns the time from
// which new snowflake ids are minted (NULL when the layout had not changed).
Datum crid_accept_layout(PG_FUNCTION_ARGS) {
    bool force = crid::pg::required_bool(fcinfo, 0, "crid_accept_layout", "force");
    require_superuser("crid_accept_layout");
    char layout_text[256];
    crid::pg::snowflake::server_layout_text(layout_text);
    int64_t resume_ms = crid::pg::marks::accept_layout(force, crid::pg::snowflake::server_layout(), layout_text);
    if (resume_ms < 0)
        PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(crid::pg::timestamptz_from_unix_ms(resume_ms));
}

// crid_reset_high_water(at timestamptz, force boolean DEFAULT false): sets the
// high-water mark (snowflake and UUIDv7) to `at` and the registry mark (crid)
// to at's second, replacing a damaged file. Unless forced, a time that would
// stop minting is refused before either mark moves, and an intact mark later
// than `at` is kept, with a NOTICE naming it.
Datum crid_reset_high_water(PG_FUNCTION_ARGS) {
    namespace marks = crid::pg::marks;
    int64_t at = crid::pg::finite_timestamp_arg(fcinfo, 0, "crid_reset_high_water");
    bool force = crid::pg::required_bool(fcinfo, 1, "crid_reset_high_water", "force");
    require_superuser("crid_reset_high_water");
    int64_t at_ms = crid::core::unix_ms_from_pg_us_floor(at);
    int64_t snowflake_last_ms = crid::core::snowflake::last_unix_ms(crid::pg::snowflake::server_layout_or_error());
    marks::check_reset_time(at_ms, force, snowflake_last_ms, crid_last_unix_ms());
    char layout_text[256];
    crid::pg::snowflake::server_layout_text(layout_text);
    int64_t mark_ms = marks::reset_high_water(at_ms, force, layout_text);
    int64_t at_s = crid::core::floor_div(at_ms, crid::core::ms_per_s);
    int64_t mark_s = marks::reset_registry_mark(at_ms, force);
    // The worker restarts its registry guard from the moved mark at once.
    crid::pg::crid_ids::wake_filler();
    if (mark_ms > at_ms)
        ereport(NOTICE, (errmsg("crid_reset_high_water: the high-water mark stays at %s, later than %s",
                                marks::timestamp_text(mark_ms), marks::timestamp_text(at_ms)),
                         errdetail("An intact mark only moves forward: ids up to it may have been minted."),
                         errhint("force => true moves it back, if no id of this server is later than %s.",
                                 marks::timestamp_text(at_ms))));
    if (mark_s > at_s)
        ereport(NOTICE,
                (errmsg("crid_reset_high_water: the registry mark stays at %s, later than the second of %s",
                        marks::timestamp_text(mark_s * crid::core::ms_per_s), marks::timestamp_text(at_ms)),
                 errdetail("An intact mark only moves forward: crid blocks up to its second may have been reserved."),
                 errhint("force => true moves it back, if no crid id of this server is of a later second.")));
    PG_RETURN_VOID();
}

} // extern "C"
