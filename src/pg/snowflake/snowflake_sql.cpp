// SQL functions of the snowflake family: minting on a node, and decoding ids
// of this server's layout or of any named or spelled-out layout.
#include "common/postgres_headers.hpp"

#include "common/boundary.hpp"
#include "snowflake/snowflake_settings.hpp"
#include "snowflake/snowflake_source.hpp"
#include "common/args.hpp"

#include "core/time_units.hpp"

extern "C" {
#include "access/htup_details.h"
}

#include <string>

using namespace crid;
namespace sf = crid::core::snowflake;

namespace {

// The last layout text decoded in this backend and its parse: one query
// usually decodes many ids of one layout. Globals, so no C++ object with a
// destructor sits in a frame that ereport may leave.
std::string cached_text;
sf::Layout cached_layout;
bool cached_valid = false;

} // namespace

// The layout of argument `n` when the function has one, else the server's.
const sf::Layout &pg::snowflake::layout_arg(FunctionCallInfo fcinfo, int n) {
    if (PG_NARGS() <= n)
        return pg::snowflake::server_layout_or_error();
    if (PG_ARGISNULL(n))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("the snowflake layout must not be NULL"),
                        errhint("Name a preset (%s) or spell a layout.", sf::preset_list.data())));
    text *t = PG_GETARG_TEXT_PP(n);
    const char *data = VARDATA_ANY(t);
    size_t len = VARSIZE_ANY_EXHDR(t);
    pg::guarded([&] {
        if (!cached_valid || cached_text.size() != len || cached_text.compare(0, len, data, len) != 0) {
            cached_valid = false; // a failed parse must not leave a stale pair
            cached_layout = sf::layout_named(std::string_view(data, len));
            cached_text.assign(data, len);
            cached_valid = true;
        }
    });
    return cached_layout;
}

namespace {

// Argument `n` of a generator: a NULL node or gene would otherwise yield a
// NULL id, which a DEFAULT would store silently.
int32 int_arg_not_null(FunctionCallInfo fcinfo, int n, const char *what) {
    if (PG_ARGISNULL(n))
        ereport(ERROR,
                (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("snowflake_next: the %s must not be NULL", what),
                 errhint("A NULL %s would yield a NULL id.", what)));
    return PG_GETARG_INT32(n);
}

} // namespace

using pg::snowflake::layout_arg;

extern "C" {

PG_FUNCTION_INFO_V1(crid_snowflake_next_node);
PG_FUNCTION_INFO_V1(crid_snowflake_next);
PG_FUNCTION_INFO_V1(crid_snowflake_next_gene);
PG_FUNCTION_INFO_V1(crid_snowflake_to_timestamptz);
PG_FUNCTION_INFO_V1(crid_snowflake_parse);
PG_FUNCTION_INFO_V1(crid_snowflake_floor);
PG_FUNCTION_INFO_V1(crid_snowflake_layout);

// snowflake_next(node integer)
Datum crid_snowflake_next_node(PG_FUNCTION_ARGS) {
    PG_RETURN_INT64(pg::snowflake::mint(int_arg_not_null(fcinfo, 0, "node"), 0));
}

// snowflake_next(): the node of crid.node_id.
Datum crid_snowflake_next(PG_FUNCTION_ARGS) {
    int node = pg::snowflake::configured_node();
    if (node < 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("crid.node_id is not set"),
                        errhint("Set crid.node_id in postgresql.conf (or, as a superuser, with SET), "
                                "or call snowflake_next(node).")));
    pg::snowflake::check_node_id_not_backfill_node("snowflake_next");
    PG_RETURN_INT64(pg::snowflake::mint(node, 0));
}

// snowflake_next(node integer, gene integer)
Datum crid_snowflake_next_gene(PG_FUNCTION_ARGS) {
    int32 node = int_arg_not_null(fcinfo, 0, "node");
    PG_RETURN_INT64(pg::snowflake::mint(node, int_arg_not_null(fcinfo, 1, "gene")));
}

// snowflake_to_timestamptz(id bigint [, layout text]): when the time unit begins.
Datum crid_snowflake_to_timestamptz(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    const sf::Layout &layout = layout_arg(fcinfo, 1);
    int64_t ms = pg::guarded([&] { return sf::unix_ms_of(layout, id); });
    PG_RETURN_TIMESTAMPTZ(pg::timestamptz_from_unix_ms(ms));
}

// snowflake_parse(id bigint [, layout text]) -> (ts, node, sequence, gene)
Datum crid_snowflake_parse(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    const sf::Layout &layout = layout_arg(fcinfo, 1);
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("snowflake_parse must return a record")));
    sf::Fields f;
    int64_t ms = pg::guarded([&] {
        f = sf::unpack(layout, id);
        return sf::unit_start_unix_ms(layout, f.time_units);
    });
    Datum values[4] = {TimestampTzGetDatum(pg::timestamptz_from_unix_ms(ms)), Int32GetDatum(int32(f.node)),
                       Int32GetDatum(int32(f.sequence)), Int32GetDatum(int32(f.gene))};
    bool nulls[4] = {false, false, false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

// snowflake_floor(at timestamptz [, layout text]): the smallest id of at's unit.
Datum crid_snowflake_floor(PG_FUNCTION_ARGS) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, "snowflake_floor");
    const sf::Layout &layout = layout_arg(fcinfo, 1);
    PG_RETURN_INT64(pg::guarded([&] { return sf::floor_id(layout, core::unix_ms_from_pg_us_floor(at)); }));
}

// snowflake_layout([layout text]): the canonical spelling of a layout (the
// server's without an argument).
Datum crid_snowflake_layout(PG_FUNCTION_ARGS) {
    const sf::Layout &layout = layout_arg(fcinfo, 0);
    char out[512];
    pg::guarded([&] { std::snprintf(out, sizeof out, "%s", sf::describe(layout).c_str()); });
    PG_RETURN_TEXT_P(cstring_to_text(out));
}

} // extern "C"
