// SQL functions about the registry itself: which table it is in this
// database (crid.registry_table, issue 14).
#include "common/postgres_headers.hpp"

#include "blocks/crid_settings.hpp"
#include "registry/registry_location.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "utils/lsyscache.h"
}

using namespace crid::pg;

extern "C" {

PG_FUNCTION_INFO_V1(crid_registry_table);

// crid_registry_table() -> regclass: the table crid_allocate and crid_evict
// work on in this database, and the worker reserves in when this is the
// registry database: crid.registry_table, checked for the registry's shape,
// or the extension's own crid_allocations.
Datum crid_registry_table(PG_FUNCTION_ARGS) {
    const crid_ids::RegistryTable &configured = crid_ids::registry_table();
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
    statement.sql = registry::shape_query;
    statement.nparams = 2;
    statement.params[0] = configured.schema;
    statement.params[1] = configured.name;
    statement.sink = registry::shape_sink;
    statement.context = &shape;
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

} // extern "C"
