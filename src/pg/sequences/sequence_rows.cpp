// crid_sequences_forget(seq regclass): removes the row of a converted
// sequence from crid_sequences, for its owner or once the sequence is gone.
//
// Every backend's planner reads crid_sequences for each nextval() it plans,
// and every DROP's event trigger writes it: a role that could lock it would
// stop every serial INSERT of new sessions and every DROP in the database
// (PostgreSQL lets LOCK TABLE ... IN ACCESS EXCLUSIVE MODE whoever may
// DELETE). So nobody but its owner may delete from it, and the rows leave
// through this function, which is not SECURITY DEFINER: it checks that its
// caller has the privileges of the sequence's owner (or that the sequence
// no longer exists, whose row anyone may remove: the event trigger
// crid_sequences_dropped does, as the role that dropped it), then deletes
// the row as the table's owner, with SECURITY_RESTRICTED_OPERATION and
// search_path pinned to pg_catalog and pg_temp. The statement is fixed here
// and names crid's table by the schema of the called function.
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

extern "C" {

PG_FUNCTION_INFO_V1(crid_sequences_forget);

// Returns whether a row was removed.
Datum crid_sequences_forget(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("crid_sequences_forget: the sequence must not be NULL")));
    Oid seq = PG_GETARG_OID(0);
    HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(seq));
    if (HeapTupleIsValid(tuple)) {
        Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relowner;
        ReleaseSysCache(tuple);
        if (!has_privs_of_role(GetUserId(), owner)) {
            char *name = get_rel_name(seq);
            ereport(ERROR,
                    (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                     errmsg("crid_sequences_forget: must be owner of sequence %s", name ? quote_identifier(name) : "?"),
                     errdetail("Only the owner of a converted sequence turns it back.")));
        }
    }

    Oid crid_namespace = get_func_namespace(fcinfo->flinfo->fn_oid);
    Oid table = get_relname_relid("crid_sequences", crid_namespace);
    if (!OidIsValid(table))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("crid_sequences_forget: crid's table crid_sequences is missing")));
    const char *sql = psprintf("DELETE FROM %s s WHERE s.seq OPERATOR(pg_catalog.=) $1",
                               quote_qualified_identifier(get_namespace_name(crid_namespace), "crid_sequences"));
    Oid types[1] = {REGCLASSOID};
    Datum values[1] = {ObjectIdGetDatum(seq)};

    const crid::pg::AsOwner saved = crid::pg::begin_as_owner(crid::pg::relation_owner(table, "crid_sequences_forget"));
    SPI_connect();
    int rc = SPI_execute_with_args(sql, 1, types, values, nullptr, false, 0);
    if (rc < 0)
        elog(ERROR, "crid_sequences_forget: deleting from crid_sequences failed (SPI code %d)", rc);
    bool removed = SPI_processed > 0;
    SPI_finish();
    crid::pg::end_as_owner(saved);
    PG_RETURN_BOOL(removed);
}

} // extern "C"
