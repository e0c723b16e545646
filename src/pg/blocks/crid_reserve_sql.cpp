// crid ids for past times (issue 13): crid_pack() and the checks crid_reserve()
// (plpgsql, in the upgrade script) runs around its registry upsert. They
// read the layout only, so decoding and packing need no preloading.
#include "common/postgres_headers.hpp"

#include "common/boundary.hpp"
#include "registry/registry_settings.hpp"
#include "blocks/crid_settings.hpp"
#include "blocks/block_shared.hpp"
#include "common/args.hpp"

#include "core/crid_past.hpp"
#include "core/time_units.hpp"

extern "C" {
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "utils/builtins.h"
}

#include <cstring>

using namespace crid;
namespace ids = crid::core::crid_ids;

namespace {

// Argument `n`, a bigint: a NULL would give a NULL id (crid_pack) or reserve
// nothing while seeming to (crid_reserve).
int64 bigint_arg(FunctionCallInfo fcinfo, int n, const char *function, const char *name) {
    if (PG_ARGISNULL(n))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s: %s must not be NULL", function, name)));
    return PG_GETARG_INT64(n);
}

// crid_reserve reserves in this database's registry table; with crid
// preloaded, crid_next takes its blocks from crid.registry_database, and a
// block reserved elsewhere could repeat its ids.
void require_registry_here() {
    if (!pg::crid_ids::shared())
        return;
    // A fleet member's own table is no registry: the fleet's blocks are
    // reserved on the registry server, so a block reserved here could repeat
    // ids that another server, or this one, got there.
    if (pg::fleet::remote())
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("crid_reserve: this server reserves its crid blocks in %s (crid.registry)",
                        pg::fleet::registry_name()),
                 errdetail("A block reserved in this server's own table could repeat ids the fleet minted."),
                 errhint("Call crid_reserve on the registry server, in the database crid.registry names; crid_pack "
                         "works on any server.")));
    const char *registry = pg::crid_ids::registry_database();
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

PG_FUNCTION_INFO_V1(crid_pack);
PG_FUNCTION_INFO_V1(crid_reserve_ts);
PG_FUNCTION_INFO_V1(crid_check_reserved_end);
PG_FUNCTION_INFO_V1(crid_check_not_evicted);

// crid_pack(at timestamptz, sequence bigint): the id of that sequence in at's second.
Datum crid_pack(PG_FUNCTION_ARGS) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, "crid_pack");
    int64_t sequence = bigint_arg(fcinfo, 1, "crid_pack", "the sequence");
    const ids::Layout &l = pg::crid_ids::layout();
    PG_RETURN_INT64(pg::guarded([&] { return ids::pack_at(l, core::unix_ms_from_pg_us_floor(at), sequence); }));
}

// crid_reserve_ts(at timestamptz, n bigint): crid_reserve's arguments checked,
// and the registry second to reserve in.
Datum crid_reserve_ts(PG_FUNCTION_ARGS) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, "crid_reserve");
    int64_t n = bigint_arg(fcinfo, 1, "crid_reserve", "n");
    const ids::Layout &l = pg::crid_ids::layout();
    int64_t ts = pg::guarded([&] { return ids::reserve_ts(l, core::unix_ms_from_pg_us_floor(at), n); });
    require_registry_here();
    PG_RETURN_INT64(ts);
}

// crid_check_reserved_end(ts, n, next_seq): the reserved block fits its second.
Datum crid_check_reserved_end(PG_FUNCTION_ARGS) {
    int64_t ts = PG_GETARG_INT64(0), n = PG_GETARG_INT64(1), end = PG_GETARG_INT64(2);
    const ids::Layout &l = pg::crid_ids::layout();
    pg::guarded([&] { ids::check_reserved_end(l, ts, n, end); });
    PG_RETURN_VOID();
}

// crid_check_not_evicted(function, ts, evicted_before): second ts was not evicted.
Datum crid_check_not_evicted(PG_FUNCTION_ARGS) {
    char *function = text_to_cstring(PG_GETARG_TEXT_PP(0));
    int64_t ts = PG_GETARG_INT64(1), evicted_before = PG_GETARG_INT64(2);
    const ids::Layout &l = pg::crid_ids::layout();
    pg::guarded([&] { ids::check_not_evicted(l, function, ts, evicted_before); });
    PG_RETURN_VOID();
}

} // extern "C"
