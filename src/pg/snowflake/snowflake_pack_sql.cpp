// snowflake_pack(): the snowflake id of given fields at a given time, for
// backfills. It mints nothing, so it needs no preloading and touches no
// generator; ids that cannot collide with live ones come from packing on the
// node that live minting refuses (crid.backfill_node).
#include "common/postgres_headers.hpp"

#include "common/boundary.hpp"
#include "snowflake/layout_cache.hpp"
#include "snowflake/snowflake_settings.hpp"
#include "common/args.hpp"

#include "core/time_units.hpp"

using namespace crid;
namespace sf = crid::core::snowflake;

namespace {

constexpr const char *function = "snowflake_pack";

// The SQL type of the node and sequence arguments: integer, or bigint in the
// overloads that take row_number() and count(*) as they come.
enum class Width { integer, bigint };

// Argument `n`, a field: a NULL would give a NULL id, which a backfill would
// store silently. A bigint beyond the field is refused by the layout, with
// its value and the field's range, as an integer is.
int64_t field_arg(FunctionCallInfo fcinfo, int n, const char *name, const char *hint, Width width = Width::integer) {
    return width == Width::bigint ? pg::required_int64(fcinfo, n, function, name, hint)
                                  : pg::required_int32(fcinfo, n, function, name, hint);
}

// snowflake_pack(at, node, sequence [, gene] [, layout]): `gene_arg` and
// `layout_arg` are the positions of those arguments, -1 when absent.
Datum pack(FunctionCallInfo fcinfo, int gene_arg, int layout_arg, Width width = Width::integer) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, function);
    sf::Fields rest;
    rest.node = field_arg(fcinfo, 1, "the node", "A NULL node would yield a NULL id.", width);
    rest.sequence = field_arg(fcinfo, 2, "the sequence", "A NULL sequence would yield a NULL id.", width);
    rest.gene = gene_arg < 0 ? 0 : field_arg(fcinfo, gene_arg, "the gene", "A NULL gene would yield a NULL id.");
    const sf::Layout &layout =
        layout_arg < 0 ? pg::snowflake::server_layout_or_error() : pg::snowflake::layout_arg(fcinfo, layout_arg);
    PG_RETURN_INT64(pg::guarded([&] { return sf::pack_at(layout, core::unix_ms_from_pg_us_floor(at), rest); }));
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_snowflake_pack);
PG_FUNCTION_INFO_V1(crid_snowflake_pack_gene);
PG_FUNCTION_INFO_V1(crid_snowflake_pack_layout);
PG_FUNCTION_INFO_V1(crid_snowflake_pack_gene_layout);
PG_FUNCTION_INFO_V1(crid_snowflake_pack_bigint);
PG_FUNCTION_INFO_V1(crid_snowflake_pack_gene_bigint);
PG_FUNCTION_INFO_V1(crid_snowflake_pack_layout_bigint);
PG_FUNCTION_INFO_V1(crid_snowflake_pack_gene_layout_bigint);

// snowflake_pack(at timestamptz, node integer, sequence integer): this server's layout.
Datum crid_snowflake_pack(PG_FUNCTION_ARGS) { return pack(fcinfo, -1, -1); }

// snowflake_pack(at timestamptz, node integer, sequence integer, gene integer)
Datum crid_snowflake_pack_gene(PG_FUNCTION_ARGS) { return pack(fcinfo, 3, -1); }

// snowflake_pack(at timestamptz, node integer, sequence integer, layout text)
Datum crid_snowflake_pack_layout(PG_FUNCTION_ARGS) { return pack(fcinfo, -1, 3); }

// snowflake_pack(at timestamptz, node integer, sequence integer, gene integer, layout text)
Datum crid_snowflake_pack_gene_layout(PG_FUNCTION_ARGS) { return pack(fcinfo, 3, 4); }

// The same four with node and sequence bigint.
Datum crid_snowflake_pack_bigint(PG_FUNCTION_ARGS) { return pack(fcinfo, -1, -1, Width::bigint); }
Datum crid_snowflake_pack_gene_bigint(PG_FUNCTION_ARGS) { return pack(fcinfo, 3, -1, Width::bigint); }
Datum crid_snowflake_pack_layout_bigint(PG_FUNCTION_ARGS) { return pack(fcinfo, -1, 3, Width::bigint); }
Datum crid_snowflake_pack_gene_layout_bigint(PG_FUNCTION_ARGS) { return pack(fcinfo, 3, 4, Width::bigint); }

} // extern "C"
