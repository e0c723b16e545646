// SQL functions about the registry in this database: which table it is
// (crid.registry_table), and the checks the registry functions of the
// install script (crid_allocate, crid_reserve, crid_evict) run around their
// reservation or deletion.
#include "common/postgres_headers.hpp"

#include "common/minting.hpp"
#include "crid_ids/crid_ids_settings.hpp"
#include "common/args.hpp"
#include "common/boundary.hpp"
#include "registry/registry_location.hpp"
#include "registry/registry_settings.hpp"

#include "core/clock.hpp"
#include "core/crid_past.hpp"
#include "core/time_units.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
}

#include <cstring>

using namespace crid;
using namespace crid::pg;
namespace ids = crid::core::crid_ids;
using pg::crid_ids::layout;

namespace {

// crid_reserve reserves in this database's registry table; with crid
// preloaded, crid_next takes its blocks from crid.registry_database, and a
// block reserved elsewhere could repeat its ids.
void require_registry_here() {
    if (!preloaded())
        return;
    // A fleet member's own table is no registry: the fleet's blocks are
    // reserved on the registry server, so a block reserved here could repeat
    // ids that another server, or this one, got there.
    if (registry::remote())
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("crid_reserve: this server reserves its crid blocks in %s (crid.registry)",
                        registry::registry_name()),
                 errdetail("A block reserved in this server's own table could repeat ids the fleet minted."),
                 errhint("Call crid_reserve on the registry server, in the database crid.registry names; crid_pack "
                         "works on any server.")));
    const char *registry = registry::registry_database();
    char *here = get_database_name(MyDatabaseId);
    if (registry && here && std::strcmp(registry, here) == 0)
        return;
    // Two ways out, and the one that matters on a fleet's registry server
    // (which preloads crid for itself) is the second: reserving for the
    // fleet works only in the fleet's table, never in this server's own.
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("crid_reserve: database \"%s\" is not this server's crid registry", here ? here : "?"),
                    errdetail("crid_next() on this server takes its blocks from the registry in database \"%s\" "
                              "(crid.registry_database); a block reserved here could repeat ids of either.",
                              registry ? registry : ""),
                    errhint("For this server's own ids, call crid_reserve in database \"%s\". If this database "
                            "is the registry of a fleet (the database their crid.registry names), set "
                            "crid.registry_database = '%s' here and restart: then this server and the fleet share "
                            "one registry, and crid_reserve works here. crid_pack works in any database.",
                            registry ? registry : "", here ? here : "")));
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_registry_table);
PG_FUNCTION_INFO_V1(crid_check_allocation);
PG_FUNCTION_INFO_V1(crid_check_block_end);
PG_FUNCTION_INFO_V1(crid_evict_horizon);
PG_FUNCTION_INFO_V1(crid_reserve_ts);
PG_FUNCTION_INFO_V1(crid_check_reserved_end);
PG_FUNCTION_INFO_V1(crid_check_not_evicted);

// crid_registry_table() -> regclass: the table crid_allocate and crid_evict
// work on in this database, and the worker reserves in when this is the
// registry database: crid.registry_table, checked for the registry's shape,
// or the extension's own crid_allocations.
Datum crid_registry_table(PG_FUNCTION_ARGS) {
    const registry::RegistryTable &configured = registry::registry_table();
    if (!configured.set) {
        // This function lives in the extension's schema, beside the table.
        Oid relation = get_relname_relid("crid_allocations", get_func_namespace(fcinfo->flinfo->fn_oid));
        if (!OidIsValid(relation))
            ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                            errmsg("the registry table crid_allocations of the crid extension is missing"),
                            errhint("Reinstall the extension (DROP EXTENSION crid; CREATE EXTENSION crid).")));
        PG_RETURN_OID(relation);
    }
    registry::ShapeRow shape;
    registry::Statement statement;
    statement.set(registry::shape_query, {configured.schema, configured.name}, registry::shape_sink, &shape);
    SPI_connect();
    registry::execute_here(statement);
    SPI_finish();
    char problem[256];
    registry::shape_verdict(shape, problem, sizeof problem);
    if (problem[0])
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("crid.registry_table names %s.%s, which %s in database \"%s\"", configured.schema,
                        configured.name, problem, get_database_name(MyDatabaseId)),
                 errhint("The registry table needs the columns ts bigint and next_seq bigint NOT NULL and a primary "
                         "key on ts, as the Go crid library's EnsureSchema creates it.")));
    PG_RETURN_OID(get_relname_relid(configured.name, get_namespace_oid(configured.schema, false)));
}

// crid_check_allocation(ts, block_size): crid_allocate's argument checks.
Datum crid_check_allocation(PG_FUNCTION_ARGS) {
    int64_t ts = PG_GETARG_INT64(0), size = PG_GETARG_INT64(1);
    const ids::Layout &l = layout();
    pg::guarded([&] { ids::check_allocation(l, ts, size); });
    PG_RETURN_VOID();
}

// crid_check_block_end(ts, next_seq): the block must end inside the second.
Datum crid_check_block_end(PG_FUNCTION_ARGS) {
    int64_t ts = PG_GETARG_INT64(0), end = PG_GETARG_INT64(1);
    const ids::Layout &l = layout();
    pg::guarded([&] { ids::check_block_end(l, ts, end); });
    PG_RETURN_VOID();
}

// crid_evict_horizon(before): the registry ts below which crid_evict may
// delete; ERROR when `before` is newer than now - crid.evict_min_age.
Datum crid_evict_horizon(PG_FUNCTION_ARGS) {
    int64_t before = pg::finite_timestamp_arg(fcinfo, 0, "crid_evict");
    const ids::Layout &l = layout();
    int64_t now_ms = core::wall_clock_ns() / core::ns_per_ms;
    int64_t safety = crid_ids::evict_min_age_s();
    PG_RETURN_INT64(
        pg::guarded([&] { return ids::evict_bound_ts(l, core::unix_ms_from_pg_us_floor(before), now_ms, safety); }));
}

// crid_reserve_ts(at timestamptz, n bigint): crid_reserve's arguments checked,
// and the registry second to reserve in.
Datum crid_reserve_ts(PG_FUNCTION_ARGS) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, "crid_reserve");
    int64_t n = required_int64(fcinfo, 1, "crid_reserve", "n");
    const ids::Layout &l = layout();
    int64_t ts = pg::guarded([&] { return ids::reserve_ts(l, core::unix_ms_from_pg_us_floor(at), n); });
    require_registry_here();
    PG_RETURN_INT64(ts);
}

// crid_check_reserved_end(ts, n, next_seq): the reserved block fits its second.
Datum crid_check_reserved_end(PG_FUNCTION_ARGS) {
    int64_t ts = PG_GETARG_INT64(0), n = PG_GETARG_INT64(1), end = PG_GETARG_INT64(2);
    const ids::Layout &l = layout();
    pg::guarded([&] { ids::check_reserved_end(l, ts, n, end); });
    PG_RETURN_VOID();
}

// crid_check_not_evicted(function, ts, evicted_before): second ts was not evicted.
Datum crid_check_not_evicted(PG_FUNCTION_ARGS) {
    char *function = text_to_cstring(PG_GETARG_TEXT_PP(0));
    int64_t ts = PG_GETARG_INT64(1), evicted_before = PG_GETARG_INT64(2);
    const ids::Layout &l = layout();
    pg::guarded([&] { ids::check_not_evicted(l, function, ts, evicted_before); });
    PG_RETURN_VOID();
}

} // extern "C"
