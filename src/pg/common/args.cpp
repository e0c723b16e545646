#include "common/args.hpp"

#include "core/time_units.hpp"

namespace crid::pg {

void require_not_null(FunctionCallInfo fcinfo, int n, const char *function, const char *name, const char *hint) {
    if (PG_ARGISNULL(n))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s: %s must not be NULL", function, name),
                        hint ? errhint("%s", hint) : 0));
}

int32 required_int32(FunctionCallInfo fcinfo, int n, const char *function, const char *name, const char *hint) {
    require_not_null(fcinfo, n, function, name, hint);
    return PG_GETARG_INT32(n);
}

int64 required_int64(FunctionCallInfo fcinfo, int n, const char *function, const char *name, const char *hint) {
    require_not_null(fcinfo, n, function, name, hint);
    return PG_GETARG_INT64(n);
}

bool required_bool(FunctionCallInfo fcinfo, int n, const char *function, const char *name, const char *hint) {
    require_not_null(fcinfo, n, function, name, hint);
    return PG_GETARG_BOOL(n);
}

int64_t finite_timestamp_arg(FunctionCallInfo fcinfo, int n, const char *function) {
    require_not_null(fcinfo, n, function, "the timestamp",
                     "A NULL time would yield a NULL key; filter or COALESCE the rows first.");
    TimestampTz at = PG_GETARG_TIMESTAMPTZ(n);
    if (TIMESTAMP_NOT_FINITE(at))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("%s: timestamp %s cannot be encoded in an id", function,
                               TIMESTAMP_IS_NOBEGIN(at) ? "-infinity" : "infinity")));
    return at;
}

TimestampTz timestamptz_from_unix_ms(int64_t unix_ms) {
    int64_t pg_ms, pg_us;
    if (__builtin_sub_overflow(unix_ms, core::pg_epoch_unix_us / core::us_per_ms, &pg_ms) ||
        __builtin_mul_overflow(pg_ms, core::us_per_ms, &pg_us) || !IS_VALID_TIMESTAMP(pg_us))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("the time of this id, %lld ms after 1970-01-01, is out of range for timestamptz",
                               static_cast<long long>(unix_ms))));
    return pg_us;
}

core::Uuid uuid_arg(FunctionCallInfo fcinfo, int n) {
    core::Uuid u;
    std::memcpy(u.bytes.data(), PG_GETARG_UUID_P(n)->data, UUID_LEN);
    return u;
}

Datum uuid_datum(const core::Uuid &u) {
    pg_uuid_t *out = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
    std::memcpy(out->data, u.bytes.data(), UUID_LEN);
    return UUIDPGetDatum(out);
}

} // namespace crid::pg
