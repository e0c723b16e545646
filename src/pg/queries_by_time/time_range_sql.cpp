// SQL functions that turn decoded-time conditions into id ranges:
//   *_in(id, tstzrange)            is the id's time in the range (row by row)
//   *_range_first/_last(tstzrange) the first and last id whose time can lie in it
//   *_time_bound(at, op)           the id bound of `decoder(id) op at`, for at
//                                  a timestamptz, date or timestamp
//   crid_*_check(id)               the decoder's ERROR for an id it rejects
// for UUIDv7, snowflake (server or named layout) and crid ids. The planner
// support function and the planner hook build index conditions from the
// last two; see time_range_support.cpp and time_predicates.cpp.
#include "common/postgres_headers.hpp"

#include "common/boundary.hpp"
#include "crid_ids/crid_ids_settings.hpp"
#include "snowflake/layout_cache.hpp"
#include "snowflake/snowflake_settings.hpp"
#include "queries_by_time/time_keys.hpp"
#include "common/args.hpp"

#include <cstddef>
#include <cstring>

extern "C" {
#include "utils/date.h"
}

using namespace crid;
namespace by_time = crid::pg::queries_by_time;
namespace tr = crid::core::time_range;

namespace {

by_time::Keyspace uuid_v7() { return by_time::Keyspace{by_time::Family::uuid_v7, nullptr}; }
by_time::Keyspace crid_ids() { return by_time::Keyspace{by_time::Family::crid, nullptr}; }
// The layout of argument `n`, or the server's when the call has no such argument.
by_time::Keyspace snowflake(FunctionCallInfo fcinfo, int n) {
    return by_time::Keyspace{by_time::Family::snowflake, &pg::snowflake::layout_arg(fcinfo, n)};
}

by_time::RangeEnds range_arg(FunctionCallInfo fcinfo, int n) { return by_time::range_ends(PG_GETARG_RANGE_P(n)); }

// The units of a call site's last range, kept in fn_extra: a range that is
// the same for every row (a constant, a parameter) is decoded once per scan,
// not once per row. Plain data, so it lives in palloc'd memory as it is.
struct SpanCache {
    tr::Grid grid;
    bool has_span;
    tr::Units span;
    Size size;     // of the range value below
    char range[1]; // its bytes (a varlena with a 4-byte header)
};

bool same_grid(const tr::Grid &a, const tr::Grid &b) {
    return a.epoch_unix_ms == b.epoch_unix_ms && a.unit_ms == b.unit_ms && a.max_unit == b.max_unit;
}

// The units of `grid` whose start lies in range argument `n`.
by_time::Span span_of_range_arg(FunctionCallInfo fcinfo, int n, const tr::Grid &grid) {
    RangeType *range = PG_GETARG_RANGE_P(n);
    Size size = VARSIZE(range);
    auto *cache = static_cast<SpanCache *>(fcinfo->flinfo->fn_extra);
    if (cache && cache->size == size && same_grid(cache->grid, grid) && std::memcmp(cache->range, range, size) == 0)
        return cache->has_span ? by_time::Span(cache->span) : std::nullopt;
    by_time::RangeEnds ends = by_time::range_ends(range);
    by_time::Span span;
    if (!ends.empty)
        span = pg::guarded([&] { return tr::units_between(grid, ends.lower, ends.upper); });
    if (!cache || cache->size < size) {
        cache =
            static_cast<SpanCache *>(MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, offsetof(SpanCache, range) + size));
        fcinfo->flinfo->fn_extra = cache;
    }
    cache->grid = grid;
    cache->has_span = span.has_value();
    cache->span = span.value_or(tr::Units{});
    cache->size = size;
    std::memcpy(cache->range, range, size);
    return span;
}

// *_range_first / *_range_last (tstzrange [, layout]).
Datum range_key(FunctionCallInfo fcinfo, const by_time::Keyspace &ks, bool last) {
    by_time::Keys keys = by_time::keys_of(ks, by_time::span_of_range(ks, range_arg(fcinfo, 0)));
    return last ? keys.last : keys.first;
}

// The type of *_time_bound's first argument.
enum class At { timestamptz, date, timestamp };

// The first argument as the timestamptz it compares as: a date or timestamp
// beyond timestamptz's range compares later (or earlier) than every time, as
// the cross-type comparison operators have it, so it becomes infinity (or
// -infinity) instead of a conversion ERROR.
TimestampTz comparable_at(FunctionCallInfo fcinfo, At type) {
    int overflow = 0;
    TimestampTz at;
    if (type == At::date)
        at = date2timestamptz_opt_overflow(PG_GETARG_DATEADT(0), &overflow);
    else if (type == At::timestamp)
        at = timestamp2timestamptz_opt_overflow(PG_GETARG_TIMESTAMP(0), &overflow);
    else
        at = PG_GETARG_TIMESTAMPTZ(0);
    return overflow > 0 ? DT_NOEND : overflow < 0 ? DT_NOBEGIN : at;
}

// *_time_bound(at, op [, layout]): for >= and >, the first id of the first
// unit that satisfies `time op at`; for <= and <, the last id of the last
// one; NULL when no id does (a comparison with NULL selects nothing).
Datum time_bound(FunctionCallInfo fcinfo, const by_time::Keyspace &ks, At type = At::timestamptz) {
    TimestampTz at = comparable_at(fcinfo, type);
    text *op_text = PG_GETARG_TEXT_PP(1);
    std::string_view op_name(VARDATA_ANY(op_text), VARSIZE_ANY_EXHDR(op_text));
    tr::Op op = pg::guarded([&] { return tr::op_named(op_name); });
    by_time::Span span = by_time::span_of_comparison(ks, op, at);
    if (!span)
        PG_RETURN_NULL();
    by_time::Keys keys = by_time::keys_of(ks, span);
    return op == tr::Op::ge || op == tr::Op::gt ? keys.first : keys.last;
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_uuid_v7_in);
PG_FUNCTION_INFO_V1(crid_snowflake_in);
PG_FUNCTION_INFO_V1(crid_crid_in);
PG_FUNCTION_INFO_V1(crid_uuid_v7_range_first);
PG_FUNCTION_INFO_V1(crid_uuid_v7_range_last);
PG_FUNCTION_INFO_V1(crid_snowflake_range_first);
PG_FUNCTION_INFO_V1(crid_snowflake_range_last);
PG_FUNCTION_INFO_V1(crid_crid_range_first);
PG_FUNCTION_INFO_V1(crid_crid_range_last);
PG_FUNCTION_INFO_V1(crid_uuid_v7_time_bound);
PG_FUNCTION_INFO_V1(crid_snowflake_time_bound);
PG_FUNCTION_INFO_V1(crid_crid_time_bound);
PG_FUNCTION_INFO_V1(crid_uuid_v7_time_bound_date);
PG_FUNCTION_INFO_V1(crid_uuid_v7_time_bound_timestamp);
PG_FUNCTION_INFO_V1(crid_snowflake_time_bound_date);
PG_FUNCTION_INFO_V1(crid_snowflake_time_bound_timestamp);
PG_FUNCTION_INFO_V1(crid_crid_time_bound_date);
PG_FUNCTION_INFO_V1(crid_crid_time_bound_timestamp);
PG_FUNCTION_INFO_V1(crid_snowflake_check);
PG_FUNCTION_INFO_V1(crid_crid_check);

// The decoders (snowflake_sql.cpp, crid_ids_sql.cpp), whose ERROR the checks raise.
Datum crid_snowflake_to_timestamptz(PG_FUNCTION_ARGS);
Datum crid_to_timestamptz(PG_FUNCTION_ARGS);

// uuid_v7_in(id uuid, r tstzrange): a version 7 UUID whose millisecond lies in r.
Datum crid_uuid_v7_in(PG_FUNCTION_ARGS) {
    core::Uuid id = pg::uuid_arg(fcinfo, 0);
    PG_RETURN_BOOL(tr::uuid_v7::id_in(id, span_of_range_arg(fcinfo, 1, tr::uuid_v7::grid())));
}

// snowflake_in(id bigint, r tstzrange [, layout text]): an id of the layout
// whose unit begins in r. Sign-bit layouts work here, row by row.
Datum crid_snowflake_in(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    const core::snowflake::Layout &layout = pg::snowflake::layout_arg(fcinfo, 2);
    by_time::Span span = span_of_range_arg(fcinfo, 1, tr::snowflake::grid(layout));
    PG_RETURN_BOOL(pg::guarded([&] { return tr::snowflake::id_in(layout, id, span); }));
}

// crid_in(id bigint, r tstzrange): a crid whose second begins in r.
Datum crid_crid_in(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    const core::crid_ids::Layout &layout = pg::crid_ids::layout();
    tr::Grid grid = pg::guarded([&] { return tr::crid_ids::grid(layout); });
    by_time::Span span = span_of_range_arg(fcinfo, 1, grid);
    PG_RETURN_BOOL(pg::guarded([&] { return tr::crid_ids::id_in(layout, id, span); }));
}

Datum crid_uuid_v7_range_first(PG_FUNCTION_ARGS) { return range_key(fcinfo, uuid_v7(), false); }
Datum crid_uuid_v7_range_last(PG_FUNCTION_ARGS) { return range_key(fcinfo, uuid_v7(), true); }
Datum crid_snowflake_range_first(PG_FUNCTION_ARGS) { return range_key(fcinfo, snowflake(fcinfo, 1), false); }
Datum crid_snowflake_range_last(PG_FUNCTION_ARGS) { return range_key(fcinfo, snowflake(fcinfo, 1), true); }
Datum crid_crid_range_first(PG_FUNCTION_ARGS) { return range_key(fcinfo, crid_ids(), false); }
Datum crid_crid_range_last(PG_FUNCTION_ARGS) { return range_key(fcinfo, crid_ids(), true); }

Datum crid_uuid_v7_time_bound(PG_FUNCTION_ARGS) { return time_bound(fcinfo, uuid_v7()); }
Datum crid_snowflake_time_bound(PG_FUNCTION_ARGS) { return time_bound(fcinfo, snowflake(fcinfo, 2)); }
Datum crid_crid_time_bound(PG_FUNCTION_ARGS) { return time_bound(fcinfo, crid_ids()); }
Datum crid_uuid_v7_time_bound_date(PG_FUNCTION_ARGS) { return time_bound(fcinfo, uuid_v7(), At::date); }
Datum crid_uuid_v7_time_bound_timestamp(PG_FUNCTION_ARGS) { return time_bound(fcinfo, uuid_v7(), At::timestamp); }
Datum crid_snowflake_time_bound_date(PG_FUNCTION_ARGS) { return time_bound(fcinfo, snowflake(fcinfo, 2), At::date); }
Datum crid_snowflake_time_bound_timestamp(PG_FUNCTION_ARGS) {
    return time_bound(fcinfo, snowflake(fcinfo, 2), At::timestamp);
}
Datum crid_crid_time_bound_date(PG_FUNCTION_ARGS) { return time_bound(fcinfo, crid_ids(), At::date); }
Datum crid_crid_time_bound_timestamp(PG_FUNCTION_ARGS) { return time_bound(fcinfo, crid_ids(), At::timestamp); }

// crid_snowflake_check(id [, layout]) and crid_crid_check(id): true, or the
// decoder's own ERROR for an id it cannot decode (a negative one). What the
// planner hook leaves beside an id range that lets such ids through, so the
// rewritten predicate raises where the decoder would have.
Datum crid_snowflake_check(PG_FUNCTION_ARGS) {
    (void)crid_snowflake_to_timestamptz(fcinfo);
    PG_RETURN_BOOL(true);
}
Datum crid_crid_check(PG_FUNCTION_ARGS) {
    (void)crid_to_timestamptz(fcinfo);
    PG_RETURN_BOOL(true);
}

} // extern "C"
