// SQL functions of the snowflake family: minting on a node, and decoding ids
// of this server's layout or of any named or spelled-out layout.
#include "common/postgres_headers.hpp"

#include "common/boundary.hpp"
#include "snowflake/layout_cache.hpp"
#include "snowflake/snowflake_settings.hpp"
#include "snowflake/snowflake_source.hpp"
#include "common/args.hpp"

#include "core/time_units.hpp"

extern "C" {
#include "access/htup_details.h"
}

using namespace crid;
namespace sf = crid::core::snowflake;

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
    PG_RETURN_INT64(pg::snowflake::mint(
        pg::required_int32(fcinfo, 0, "snowflake_next", "the node", "A NULL node would yield a NULL id."), 0));
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
    int32 node = pg::required_int32(fcinfo, 0, "snowflake_next", "the node", "A NULL node would yield a NULL id.");
    PG_RETURN_INT64(pg::snowflake::mint(
        node, pg::required_int32(fcinfo, 1, "snowflake_next", "the gene", "A NULL gene would yield a NULL id.")));
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
