#include "timestamp_args.hpp"

namespace crid::pg {

int64_t finite_timestamp_arg(FunctionCallInfo fcinfo, int n, const char *function) {
    if (PG_ARGISNULL(n))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("%s: the timestamp must not be NULL", function),
                        errhint("A NULL time would yield a NULL key; filter or COALESCE the rows first.")));
    TimestampTz at = PG_GETARG_TIMESTAMPTZ(n);
    if (TIMESTAMP_NOT_FINITE(at))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("%s: timestamp %s cannot be encoded in an id", function,
                               TIMESTAMP_IS_NOBEGIN(at) ? "-infinity" : "infinity")));
    return at;
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
