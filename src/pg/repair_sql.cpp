// The superuser functions that resolve what stops minting without stopping
// the server (DESIGN.md, Availability): accepting a changed snowflake layout,
// and repairing the mark files.
#include "postgres_headers.hpp"

#include "high_water.hpp"
#include "registry_mark.hpp"
#include "shared_memory.hpp"
#include "timestamp_args.hpp"

#include "../core/time_units.hpp"

namespace {

// Both functions move marks that guard uniqueness: superusers only, even if
// EXECUTE was granted to someone.
void require_superuser(const char *function) {
    if (!superuser())
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("%s is for superusers", function),
                        errdetail("It moves the high-water marks that keep ids unique.")));
    crid::pg::require_minting("snowflake", function, "the marks live in shared memory.");
}

bool force_arg(FunctionCallInfo fcinfo, int n, const char *function) {
    if (PG_ARGISNULL(n))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s: force must not be NULL", function)));
    return PG_GETARG_BOOL(n);
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_accept_layout);
PG_FUNCTION_INFO_V1(crid_reset_high_water);

// crid_accept_layout(force boolean DEFAULT false) -> timestamptz: accepts the
// snowflake layout of the settings after a change; returns the time from
// which new snowflake ids are minted (NULL when the layout had not changed).
Datum crid_accept_layout(PG_FUNCTION_ARGS) {
    bool force = force_arg(fcinfo, 0, "crid_accept_layout");
    require_superuser("crid_accept_layout");
    int64_t resume_ms = crid::pg::high_water::accept_layout(force);
    if (resume_ms < 0)
        PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(crid::pg::timestamptz_from_unix_ms(resume_ms));
}

// crid_reset_high_water(at timestamptz, force boolean DEFAULT false): sets the
// high-water mark (snowflake and UUIDv7) to `at` and the registry mark (crid)
// to at's second, replacing a damaged file.
Datum crid_reset_high_water(PG_FUNCTION_ARGS) {
    int64_t at = crid::pg::finite_timestamp_arg(fcinfo, 0, "crid_reset_high_water");
    bool force = force_arg(fcinfo, 1, "crid_reset_high_water");
    require_superuser("crid_reset_high_water");
    int64_t at_ms = crid::core::unix_ms_from_pg_us_floor(at);
    crid::pg::high_water::reset(at_ms, force);
    crid::pg::crid_ids::registry_mark::reset(at_ms, force);
    PG_RETURN_VOID();
}

} // extern "C"
