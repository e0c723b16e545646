// crid_backfill_state is crid's: no role may write or lock it but crid.
// crid_backfill runs with its caller's rights (it commits, so it cannot be
// SECURITY DEFINER), and writes its run's row through this function, which
// checks that its caller may update the column the row is about, then
// writes the row as the state table's owner, with
// SECURITY_RESTRICTED_OPERATION and search_path pinned to pg_catalog and
// pg_temp, as PostgreSQL's maintenance commands run. The statement is fixed
// here and names crid's table by the schema of the called function: no
// name of the caller's is looked up.
//
// Plain PostgreSQL C: no C++ object lives in these frames, so ereport may
// leave them. An ERROR between the switch to the owner and the switch back
// is safe: aborting the (sub)transaction restores the user, the security
// context and the settings.
#include "common/as_owner.hpp"
#include "common/postgres_headers.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

namespace {

constexpr int kArgs = 12;

// ERROR 42501 unless the current user may update column `attnum` of
// `relid` (on the table or on the column, as has_column_privilege counts).
void require_update(Oid relid, AttrNumber attnum) {
    if (pg_class_aclcheck(relid, GetUserId(), ACL_UPDATE) == ACLCHECK_OK ||
        pg_attribute_aclcheck(relid, attnum, GetUserId(), ACL_UPDATE) == ACLCHECK_OK)
        return;
    char *name = get_rel_name(relid);
    char *column = get_attname(relid, attnum, true);
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("crid_backfill: permission denied to update column %s of %s",
                           column ? quote_identifier(column) : psprintf("%d", attnum),
                           name ? quote_identifier(name) : "the relation"),
                    errdetail("The progress of a backfill is written for a role that may update its column.")));
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_backfill_state_write);

// crid_backfill_state_write(rel regclass, attnum smallint, column_name name,
// expression text, batch_size integer, started_at timestamptz, rows_done
// bigint, rows_total bigint, batches bigint, rows_per_second numeric,
// last_key text[], finished boolean): the row of this run in
// crid_backfill_state, inserted or replaced, stamped with now's clock and
// this backend's pid.
Datum crid_backfill_state_write(PG_FUNCTION_ARGS) {
    for (int i : {0, 1, 2, 3, 4, 5, 6, 7, 8, 11})
        if (PG_ARGISNULL(i))
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                            errmsg("crid_backfill_state_write: argument %d must not be NULL", i + 1)));
    Oid relid = PG_GETARG_OID(0);
    AttrNumber attnum = PG_GETARG_INT16(1);
    if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("crid_backfill: relation with OID %u does not exist", relid)));
    require_update(relid, attnum);

    Oid crid_namespace = get_func_namespace(fcinfo->flinfo->fn_oid);
    Oid state = get_relname_relid("crid_backfill_state", crid_namespace);
    if (!OidIsValid(state))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("crid_backfill: crid's table crid_backfill_state is missing")));
    char *table = quote_qualified_identifier(get_namespace_name(crid_namespace), "crid_backfill_state");
    const char *sql = psprintf(
        "INSERT INTO %s AS s (relid, attnum, column_name, expression, batch_size, started_at, updated_at, "
        "finished_at, rows_done, rows_total, batches, rows_per_second, last_key, pid) "
        "VALUES ($1, $2, $3, $4, $5, $6, pg_catalog.clock_timestamp(), "
        "CASE WHEN $12 THEN pg_catalog.clock_timestamp() END, $7, $8, $9, $10, $11, pg_catalog.pg_backend_pid()) "
        "ON CONFLICT (relid, attnum) DO UPDATE SET column_name = EXCLUDED.column_name, "
        "expression = EXCLUDED.expression, batch_size = EXCLUDED.batch_size, started_at = EXCLUDED.started_at, "
        "updated_at = EXCLUDED.updated_at, finished_at = EXCLUDED.finished_at, rows_done = EXCLUDED.rows_done, "
        "rows_total = EXCLUDED.rows_total, batches = EXCLUDED.batches, "
        "rows_per_second = EXCLUDED.rows_per_second, last_key = EXCLUDED.last_key, pid = EXCLUDED.pid",
        table);
    Oid types[kArgs] = {OIDOID,  INT2OID, NAMEOID, TEXTOID,    INT4OID,      TIMESTAMPTZOID,
                        INT8OID, INT8OID, INT8OID, NUMERICOID, TEXTARRAYOID, BOOLOID};
    Datum values[kArgs];
    char nulls[kArgs];
    for (int i = 0; i < kArgs; ++i) {
        values[i] = PG_GETARG_DATUM(i);
        nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
    }

    const crid::pg::AsOwner saved = crid::pg::begin_as_owner(crid::pg::relation_owner(state, "crid_backfill"));
    SPI_connect();
    int rc = SPI_execute_with_args(sql, kArgs, types, values, nulls, false, 0);
    if (rc < 0)
        elog(ERROR, "crid_backfill: writing crid_backfill_state failed (SPI code %d)", rc);
    SPI_finish();
    crid::pg::end_as_owner(saved);
    PG_RETURN_VOID();
}

} // extern "C"
