// SQL functions of the UUIDv7 family: generation, deterministic backfill ids,
// decoding, range boundaries and PostgreSQL 18's names.
#include "common/postgres_headers.hpp"

#include "common/boundary.hpp"
#include "common/args.hpp"
#include "uuidv7/uuidv7_source.hpp"

#include "core/time_units.hpp"
#include "core/uuidv7.hpp"

using namespace crid;
namespace v7 = crid::core::uuidv7;

namespace {

// Type tags that keep the key types of uuid_generate_v7_deterministic apart.
enum KeyTag : uint8_t { key_text = 1, key_bigint = 2, key_uuid = 3, key_bytea = 4 };

Datum random_v7_at(int64_t pg_us) {
    core::Uuid u = pg::guarded([&] {
        uint64_t ms = v7::unix_ms_from_pg_us(pg_us);
        return v7::from_parts(ms, pg::uuidv7::random64(), pg::uuidv7::random64());
    });
    return pg::uuid_datum(u);
}

// The smallest version 7 UUID of the millisecond containing pg_us.
Datum floor_v7_at(int64_t pg_us) {
    core::Uuid u = pg::guarded([&] { return v7::floor_id(v7::unix_ms_from_pg_us(pg_us)); });
    return pg::uuid_datum(u);
}

Datum deterministic_v7(FunctionCallInfo fcinfo, KeyTag tag, const void *key, size_t len) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, "uuid_generate_v7_deterministic");
    core::Uuid u = pg::guarded([&] { return v7::deterministic(v7::unix_ms_from_pg_us(at), tag, key, len); });
    return pg::uuid_datum(u);
}

void require_key(FunctionCallInfo fcinfo) {
    pg::require_not_null(fcinfo, 1, "uuid_generate_v7_deterministic", "the key",
                         "Rows with a NULL key cannot get a reproducible id.");
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_uuid_generate_v7);
PG_FUNCTION_INFO_V1(crid_uuid_generate_v7_at);
PG_FUNCTION_INFO_V1(crid_uuid_generate_v7_det_text);
PG_FUNCTION_INFO_V1(crid_uuid_generate_v7_det_bigint);
PG_FUNCTION_INFO_V1(crid_uuid_generate_v7_det_uuid);
PG_FUNCTION_INFO_V1(crid_uuid_generate_v7_det_bytea);
PG_FUNCTION_INFO_V1(crid_uuid_v7_to_timestamptz);
PG_FUNCTION_INFO_V1(crid_uuid_v7_check);
PG_FUNCTION_INFO_V1(crid_uuid_v7_floor);
PG_FUNCTION_INFO_V1(crid_uuid_timestamptz_to_v7);
PG_FUNCTION_INFO_V1(crid_uuid_timestamp_to_v7);
PG_FUNCTION_INFO_V1(crid_uuid_v7_zero);
PG_FUNCTION_INFO_V1(crid_uuid_v7_zero_utc);
PG_FUNCTION_INFO_V1(crid_uuid_v7_to_timestamp);
PG_FUNCTION_INFO_V1(crid_uuidv7_shift);
PG_FUNCTION_INFO_V1(crid_uuid_extract_timestamp);
PG_FUNCTION_INFO_V1(crid_uuid_extract_version);

// uuid_generate_v7() and uuidv7(): the monotonic generator.
Datum crid_uuid_generate_v7(PG_FUNCTION_ARGS) {
    core::Uuid u = pg::guarded([] { return pg::uuidv7::next(); });
    pg::uuidv7::keep_high_water(u.high48());
    return pg::uuid_datum(u);
}

// uuid_generate_v7(at): a backfill id for a past or future time, random tail.
Datum crid_uuid_generate_v7_at(PG_FUNCTION_ARGS) {
    return random_v7_at(pg::finite_timestamp_arg(fcinfo, 0, "uuid_generate_v7"));
}

Datum crid_uuid_generate_v7_det_text(PG_FUNCTION_ARGS) {
    require_key(fcinfo);
    text *key = PG_GETARG_TEXT_PP(1);
    return deterministic_v7(fcinfo, key_text, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key));
}

Datum crid_uuid_generate_v7_det_bigint(PG_FUNCTION_ARGS) {
    require_key(fcinfo);
    uint64_t key = uint64_t(PG_GETARG_INT64(1));
    unsigned char be[8];
    for (int i = 7; i >= 0; --i, key >>= 8)
        be[i] = static_cast<unsigned char>(key);
    return deterministic_v7(fcinfo, key_bigint, be, sizeof be);
}

Datum crid_uuid_generate_v7_det_uuid(PG_FUNCTION_ARGS) {
    require_key(fcinfo);
    return deterministic_v7(fcinfo, key_uuid, PG_GETARG_UUID_P(1)->data, UUID_LEN);
}

Datum crid_uuid_generate_v7_det_bytea(PG_FUNCTION_ARGS) {
    require_key(fcinfo);
    bytea *key = PG_GETARG_BYTEA_PP(1);
    return deterministic_v7(fcinfo, key_bytea, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key));
}

// uuid_v7_to_timestamptz(uuid): STRICT; not a v7 → ERROR 22023.
Datum crid_uuid_v7_to_timestamptz(PG_FUNCTION_ARGS) {
    core::Uuid u = pg::uuid_arg(fcinfo, 0);
    int64_t ms = pg::guarded([&] { return int64_t(v7::unix_ms_of(u)); });
    PG_RETURN_TIMESTAMPTZ(core::pg_us_from_unix_ms(ms));
}

// crid_uuid_v7_check(uuid): true, or uuid_v7_to_timestamptz's own ERROR for a
// UUID that is not a version 7. The planner hook's filter beside the id range
// of a uuid_v7_to_timestamptz predicate: inside the range only the version
// is left to check, and this checks it without building a time to compare.
Datum crid_uuid_v7_check(PG_FUNCTION_ARGS) {
    core::Uuid u = pg::uuid_arg(fcinfo, 0);
    pg::guarded([&] { (void)v7::unix_ms_of(u); });
    PG_RETURN_BOOL(true);
}

// uuid_v7_floor(at): the smallest v7 of at's millisecond, a range-scan bound.
Datum crid_uuid_v7_floor(PG_FUNCTION_ARGS) { return floor_v7_at(pg::finite_timestamp_arg(fcinfo, 0, "uuid_v7_floor")); }

// uuid_timestamptz_to_v7(at, zero): pg_uuidv7's name; STRICT like the original.
Datum crid_uuid_timestamptz_to_v7(PG_FUNCTION_ARGS) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, "uuid_timestamptz_to_v7");
    return PG_GETARG_BOOL(1) ? floor_v7_at(at) : random_v7_at(at);
}

// uuid_timestamp_to_v7(at, zero): pg_uuidv7's name; a timestamp is read as
// UTC, as pg_uuidv7 does (timestamp and timestamptz hold the same count of
// microseconds since 2000-01-01, so the same code serves).
Datum crid_uuid_timestamp_to_v7(PG_FUNCTION_ARGS) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, "uuid_timestamp_to_v7");
    return PG_GETARG_BOOL(1) ? floor_v7_at(at) : random_v7_at(at);
}

// crid_uuid_v7_zero(at timestamptz | timestamp): the zero-tail UUID of
// uuid_timestamptz_to_v7(at, true) and uuid_timestamp_to_v7(at, true),
// IMMUTABLE STRICT: what their support function puts in their place.
Datum crid_uuid_v7_zero(PG_FUNCTION_ARGS) {
    return floor_v7_at(pg::finite_timestamp_arg(fcinfo, 0, "uuid_timestamptz_to_v7"));
}
Datum crid_uuid_v7_zero_utc(PG_FUNCTION_ARGS) {
    return floor_v7_at(pg::finite_timestamp_arg(fcinfo, 0, "uuid_timestamp_to_v7"));
}

// uuid_v7_to_timestamp(uuid): pg_uuidv7's name; the time in UTC, without a
// zone. STRICT; not a v7 → ERROR 22023.
Datum crid_uuid_v7_to_timestamp(PG_FUNCTION_ARGS) {
    core::Uuid u = pg::uuid_arg(fcinfo, 0);
    int64_t ms = pg::guarded([&] { return int64_t(v7::unix_ms_of(u)); });
    PG_RETURN_TIMESTAMP(core::pg_us_from_unix_ms(ms));
}

// uuidv7(shift interval), PostgreSQL 18: the generator's time moved by an
// interval (months and days in calendar terms, as timestamptz + interval).
Datum crid_uuidv7_shift(PG_FUNCTION_ARGS) {
    Interval *shift = PG_GETARG_INTERVAL_P(0);
    uint64_t tick = pg::guarded([] { return pg::uuidv7::next_tick(); });
    int64_t now_ms = int64_t(tick >> v7::fraction_bits);
    pg::uuidv7::keep_high_water(uint64_t(now_ms));
    TimestampTz now = core::pg_us_from_unix_ms(now_ms);
    TimestampTz moved = DatumGetTimestampTz(
        DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(now), IntervalPGetDatum(shift)));
    if (TIMESTAMP_NOT_FINITE(moved))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("uuidv7: shifted time is infinite")));
    core::Uuid u = pg::guarded([&] {
        uint64_t ms = v7::unix_ms_from_pg_us(moved);
        uint64_t fraction = tick & ((UINT64_C(1) << v7::fraction_bits) - 1);
        return pg::uuidv7::compose(ms << v7::fraction_bits | fraction, pg::uuidv7::random64());
    });
    return pg::uuid_datum(u);
}

// uuid_extract_timestamp(uuid), PostgreSQL 18: v1 and v7, NULL otherwise.
Datum crid_uuid_extract_timestamp(PG_FUNCTION_ARGS) {
    core::Uuid u = pg::uuid_arg(fcinfo, 0);
    int64_t unix_us;
    if (!core::uuid_inspect::unix_us_of(u, unix_us))
        PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(unix_us - core::pg_epoch_unix_us);
}

// uuid_extract_version(uuid), PostgreSQL 18: NULL unless the RFC variant.
Datum crid_uuid_extract_version(PG_FUNCTION_ARGS) {
    int version = core::uuid_inspect::version_or_none(pg::uuid_arg(fcinfo, 0));
    if (version < 0)
        PG_RETURN_NULL();
    PG_RETURN_INT16(int16(version));
}

} // extern "C"
