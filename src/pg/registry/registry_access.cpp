// Every statement crid runs on a registry table, in one place, under one
// rule: the relation must be a registry table, the role crid acts for must
// hold the privileges the statement needs, and the statement runs as the
// table's owner.
//
// Why as the owner. crid runs these statements with rights that its caller
// may not have: the block reserver is a superuser, and crid_allocate,
// crid_reserve, crid_evict and crid_registry_check are SECURITY DEFINER
// functions of the extension's owner. A registry table may belong to a less
// privileged role (the Go services' table that crid.registry_table names, a
// table its owner gave crid's trigger), and whoever owns a table controls
// code that runs when it is read or written: triggers, rules, row security
// policies, column defaults, index expressions and predicates (the planner
// evaluates those), constraints, the functions of its column types. Run as
// a superuser, any of it would make its owner one. Run as the owner, with
// SECURITY_RESTRICTED_OPERATION and search_path pinned to pg_catalog and
// pg_temp (as PostgreSQL's own maintenance commands do), it runs with the
// rights it already had. Inheritance children are left out (ONLY): a child
// may have another owner.
//
// What a registry table is: a plain, permanent table with the columns ts
// bigint and next_seq bigint that is crid's own crid_allocations, the table
// crid.registry_table names in this database, or a table given crid's
// trigger crid_registry_guard (which only its owner, a superuser, or a role
// granted EXECUTE on the trigger function can do). Never a view, a
// temporary or unlogged table, a foreign or partitioned table, nor a system
// catalog. So a role cannot make crid read, write or remember a relation of
// its own making.
//
// Plain PostgreSQL C: no C++ object lives in these frames, so ereport may
// leave them. An ERROR between the switch to the owner and the switch back
// is safe too: aborting the (sub)transaction restores the user, the
// security context and the settings, as it does after a SECURITY DEFINER
// function.
#include "common/as_owner.hpp"
#include "common/postgres_headers.hpp"

#include "registry/registry_settings.hpp"

extern "C" {
#include "access/relation.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type_d.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "nodes/parsenodes.h"
#include "parser/parsetree.h"
#include "utils/plancache.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

namespace {

// What the statements need of a registry table, read under its lock.
struct Registry {
    Oid relid;
    Oid owner;
    AttrNumber ts;
    AttrNumber next_seq;
    char *name; // schema-qualified and quoted
};

// The OID of crid's trigger function crid_registry_guard() beside the
// called function (the extension's schema); InvalidOid when it is missing.
Oid guard_function(Oid crid_namespace) {
    List *name = list_make2(makeString(get_namespace_name(crid_namespace)), makeString(pstrdup("crid_registry_guard")));
    return LookupFuncName(name, 0, nullptr, true);
}

// True when `rel` has crid's guard as an enabled BEFORE row trigger on INSERT.
bool has_guard(Relation rel, Oid guard) {
    if (!OidIsValid(guard) || !rel->trigdesc)
        return false;
    for (int i = 0; i < rel->trigdesc->numtriggers; ++i) {
        const Trigger &t = rel->trigdesc->triggers[i];
        if (t.tgfoid == guard && t.tgenabled != TRIGGER_DISABLED && TRIGGER_FOR_ROW(t.tgtype) &&
            TRIGGER_FOR_BEFORE(t.tgtype) && TRIGGER_FOR_INSERT(t.tgtype))
            return true;
    }
    return false;
}

// True when `relid` is the table crid.registry_table names in this database.
bool is_configured_table(Oid relid) {
    const crid::pg::registry::RegistryTable &configured = crid::pg::registry::registry_table();
    if (!configured.set)
        return false;
    Oid schema = get_namespace_oid(configured.schema, true);
    return OidIsValid(schema) && get_relname_relid(configured.name, schema) == relid;
}

// A bigint column of `rel`, or 0 when it has none of that name and type.
AttrNumber bigint_column(Relation rel, const char *name) {
    TupleDesc desc = RelationGetDescr(rel);
    for (int i = 0; i < desc->natts; ++i) {
        Form_pg_attribute a = TupleDescAttr(desc, i);
        if (!a->attisdropped && strcmp(NameStr(a->attname), name) == 0)
            return a->atttypid == INT8OID ? a->attnum : 0;
    }
    return 0;
}

[[noreturn]] void not_a_registry(const char *fn, Oid relid, const char *why) {
    char *name = get_rel_name(relid);
    ereport(ERROR,
            (errcode(ERRCODE_WRONG_OBJECT_TYPE),
             errmsg("%s: %s is not a registry table", fn, name ? quote_identifier(name) : "the relation"),
             errdetail("It %s. A registry table is a plain, permanent table with the columns ts bigint and next_seq "
                       "bigint: crid's own crid_allocations, the table crid.registry_table names, or a table given "
                       "the trigger crid_registry_guard.",
                       why),
             errhint("To make a table of the registry's shape a registry table, its owner (or a superuser) adds "
                     "the trigger: CREATE TRIGGER crid_registry_guard BEFORE INSERT OR UPDATE ON ... FOR EACH ROW "
                     "EXECUTE FUNCTION crid_registry_guard().")));
}

// Locks `relid` in `mode` (before anything is read of it, so it cannot turn
// into something else meanwhile) and checks that it is a registry table;
// ERROR 42809 otherwise, naming the function `fn`.
Registry open_registry(const char *fn, Oid relid, Oid crid_namespace, LOCKMODE mode) {
    Relation rel = try_relation_open(relid, mode);
    if (!rel)
        ereport(ERROR,
                (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("%s: relation with OID %u does not exist", fn, relid)));
    const char *why = nullptr;
    if (rel->rd_rel->relkind != RELKIND_RELATION)
        why = "is not a plain table (views, foreign, partitioned tables and other relations are not)";
    else if (rel->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT)
        why = "is a temporary or unlogged table, which loses its rows on its own";
    else if (IsCatalogRelation(rel))
        why = "is a system catalog";
    Registry r{relid, rel->rd_rel->relowner, bigint_column(rel, "ts"), bigint_column(rel, "next_seq"), nullptr};
    if (!why && (r.ts == 0 || r.next_seq == 0))
        why = "lacks the column ts bigint or next_seq bigint";
    if (!why) {
        bool own = RelationGetNamespace(rel) == crid_namespace &&
                   strcmp(RelationGetRelationName(rel), "crid_allocations") == 0;
        if (!own && !is_configured_table(relid) && !has_guard(rel, guard_function(crid_namespace)))
            why = "is neither crid's crid_allocations, nor the table crid.registry_table names, nor has it an "
                  "enabled crid_registry_guard trigger";
    }
    if (why) {
        relation_close(rel, mode);
        not_a_registry(fn, relid, why);
    }
    r.name = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)), RelationGetRelationName(rel));
    relation_close(rel, NoLock); // the lock stays until the transaction ends
    return r;
}

// ERROR 42501 unless the current user holds each privilege of `modes` on
// column `att` of `r`, on the table or on the column, as has_column_privilege
// counts them (pg_attribute_aclcheck alone sees only column grants, and any
// one of several bits).
void require_column(const Registry &r, AttrNumber att, AclMode modes) {
    for (AclMode mode : {ACL_SELECT, ACL_INSERT, ACL_UPDATE}) {
        if (!(modes & mode))
            continue;
        if (pg_class_aclcheck(r.relid, GetUserId(), mode) != ACLCHECK_OK &&
            pg_attribute_aclcheck(r.relid, att, GetUserId(), mode) != ACLCHECK_OK)
            aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(r.relid));
    }
}

// Runs `sql` ($1 .. $n int8 parameters, NULL where `nulls` says 'n') as the
// owner of `r` and returns the first column of its first row as int8
// (*isnull when there is no row or the value is NULL), and in *rows the
// number of rows it processed.
int64 run_as_owner(const Registry &r, const char *sql, int nargs, Datum *values, const char *nulls, bool read_only,
                   bool *isnull, uint64 *rows) {
    Oid types[4] = {INT8OID, INT8OID, INT8OID, INT8OID};
    const crid::pg::AsOwner saved = crid::pg::begin_as_owner(r.owner);
    SPI_connect();
    // The statement names the table by its schema's and its own name, which
    // parsing looks up again: had the schema been renamed meanwhile and
    // another taken its name, the statement would act on another table as
    // this one's owner. So it runs only if the table it acts on (its first,
    // or its target) is the one `r` was opened as, by OID, locked since.
    SPIPlanPtr plan = SPI_prepare(sql, nargs, types);
    if (plan == nullptr)
        elog(ERROR, "crid: a statement on registry table %s failed to parse (SPI code %d)", r.name, SPI_result);
    ListCell *lc;
    foreach (lc, SPI_plan_get_plan_sources(plan)) {
        ListCell *qc;
        foreach (qc, static_cast<CachedPlanSource *>(lfirst(lc))->query_list) {
            auto *query = static_cast<Query *>(lfirst(qc));
            if (!query->canSetTag)
                continue;
            RangeTblEntry *rte = rt_fetch(query->resultRelation ? query->resultRelation : 1, query->rtable);
            if (rte->rtekind != RTE_RELATION || rte->relid != r.relid)
                ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                                errmsg("crid: the name %s is no longer registry table %u", r.name, r.relid),
                                errdetail("Its schema was renamed, or another object took its name: crid acts on "
                                          "no relation through it.")));
        }
    }
    int rc = SPI_execute_plan(plan, values, nulls, read_only, 0);
    if (rc < 0)
        elog(ERROR, "crid: a statement on registry table %s failed to run (SPI code %d)", r.name, rc);
    *rows = SPI_processed;
    int64 value = 0;
    *isnull = true;
    if (SPI_tuptable && SPI_processed > 0) {
        Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
        if (!*isnull)
            value = DatumGetInt64(d);
    }
    SPI_finish();
    crid::pg::end_as_owner(saved);
    return value;
}

Oid crid_namespace_of(FunctionCallInfo fcinfo) { return get_func_namespace(fcinfo->flinfo->fn_oid); }

Oid registry_arg(FunctionCallInfo fcinfo, const char *fn) {
    if (PG_ARGISNULL(0))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s: registry must not be NULL", fn)));
    return PG_GETARG_OID(0);
}

int64 int8_arg(FunctionCallInfo fcinfo, int n, const char *fn, const char *name) {
    if (PG_ARGISNULL(n))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s: %s must not be NULL", fn, name)));
    return PG_GETARG_INT64(n);
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_registry_identity);
PG_FUNCTION_INFO_V1(crid_registry_newest);
PG_FUNCTION_INFO_V1(crid_registry_upsert);
PG_FUNCTION_INFO_V1(crid_registry_next_seq);
PG_FUNCTION_INFO_V1(crid_registry_evict);

// crid_registry_identity(registry regclass) -> text: the physical table a
// registry table is now (system identifier, timeline, relation and its
// file), which changes with a TRUNCATE, a re-created table, a restore into
// another cluster or a promoted standby; ERROR unless it is a registry
// table. The same text as the registry server script's SQL version.
Datum crid_registry_identity(PG_FUNCTION_ARGS) {
    const char *fn = "crid_registry_identity";
    Registry r = open_registry(fn, registry_arg(fcinfo, fn), crid_namespace_of(fcinfo), AccessShareLock);
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("recovery is in progress"),
                        errhint("A registry takes reservations on its primary only.")));
    Oid file = DatumGetObjectId(DirectFunctionCall1(pg_relation_filenode, ObjectIdGetDatum(r.relid)));
    // pg_control_system() shows the identifier as a signed bigint: so does this.
    PG_RETURN_TEXT_P(cstring_to_text(psprintf("system %lld, timeline %u, relation %u file %u",
                                              static_cast<long long>(static_cast<int64>(GetSystemIdentifier())),
                                              GetWALInsertionTimeLine(), r.relid, file)));
}

// crid_registry_newest(registry regclass) -> bigint: the newest second the
// registry table holds (NULL: none), read as its owner.
Datum crid_registry_newest(PG_FUNCTION_ARGS) {
    const char *fn = "crid_registry_newest";
    Registry r = open_registry(fn, registry_arg(fcinfo, fn), crid_namespace_of(fcinfo), AccessShareLock);
    require_column(r, r.ts, ACL_SELECT);
    bool isnull;
    uint64 rows;
    int64 newest =
        run_as_owner(r, psprintf("SELECT max(ts) FROM ONLY %s", r.name), 0, nullptr, nullptr, true, &isnull, &rows);
    if (isnull)
        PG_RETURN_NULL();
    PG_RETURN_INT64(newest);
}

// crid_registry_upsert(registry regclass, ts bigint, amount bigint,
// room_limit bigint) -> bigint: the reservation itself, `amount` sequences
// of second ts in one upsert of its row, unless the row's next_seq is past
// room_limit (NULL: no limit); the row's new next_seq, or NULL with nothing
// reserved. The caller needs what the plain upsert needs (INSERT on ts and
// next_seq, UPDATE and SELECT on next_seq); the statement runs as the owner.
Datum crid_registry_upsert(PG_FUNCTION_ARGS) {
    const char *fn = "crid_registry_upsert";
    Oid relid = registry_arg(fcinfo, fn);
    Datum values[3] = {Int64GetDatum(int8_arg(fcinfo, 1, fn, "ts")), Int64GetDatum(int8_arg(fcinfo, 2, fn, "amount")),
                       PG_ARGISNULL(3) ? Datum(0) : PG_GETARG_DATUM(3)};
    const char nulls[3] = {' ', ' ', PG_ARGISNULL(3) ? 'n' : ' '};
    Registry r = open_registry(fn, relid, crid_namespace_of(fcinfo), RowExclusiveLock);
    require_column(r, r.ts, ACL_INSERT | ACL_SELECT);
    require_column(r, r.next_seq, ACL_INSERT | ACL_UPDATE | ACL_SELECT);
    bool isnull;
    uint64 rows;
    int64 end = run_as_owner(r,
                             psprintf("INSERT INTO %s AS a (ts, next_seq) VALUES ($1, $2) ON CONFLICT (ts) DO UPDATE "
                                      "SET next_seq = a.next_seq + EXCLUDED.next_seq "
                                      "WHERE $3 IS NULL OR a.next_seq <= $3 RETURNING a.next_seq",
                                      r.name),
                             3, values, nulls, false, &isnull, &rows);
    if (isnull)
        PG_RETURN_NULL();
    PG_RETURN_INT64(end);
}

// crid_registry_next_seq(registry regclass, ts bigint) -> bigint: the
// next_seq of second ts (NULL: no row), read as the owner; the block
// reserver's check that its own recent rows are still there.
Datum crid_registry_next_seq(PG_FUNCTION_ARGS) {
    const char *fn = "crid_registry_next_seq";
    Oid relid = registry_arg(fcinfo, fn);
    Datum values[1] = {Int64GetDatum(int8_arg(fcinfo, 1, fn, "ts"))};
    Registry r = open_registry(fn, relid, crid_namespace_of(fcinfo), AccessShareLock);
    require_column(r, r.ts, ACL_SELECT);
    require_column(r, r.next_seq, ACL_SELECT);
    bool isnull;
    uint64 rows;
    int64 next = run_as_owner(r, psprintf("SELECT a.next_seq FROM ONLY %s a WHERE a.ts = $1", r.name), 1, values,
                              nullptr, true, &isnull, &rows);
    if (isnull)
        PG_RETURN_NULL();
    PG_RETURN_INT64(next);
}

// crid_registry_evict(registry regclass, horizon bigint) -> bigint: deletes
// the rows of seconds before horizon, as the owner, and returns how many;
// crid_evict's deletion (DELETE and SELECT on the table for the caller).
Datum crid_registry_evict(PG_FUNCTION_ARGS) {
    const char *fn = "crid_registry_evict";
    Oid relid = registry_arg(fcinfo, fn);
    Datum values[1] = {Int64GetDatum(int8_arg(fcinfo, 1, fn, "horizon"))};
    Registry r = open_registry(fn, relid, crid_namespace_of(fcinfo), RowExclusiveLock);
    if (pg_class_aclcheck(r.relid, GetUserId(), ACL_DELETE) != ACLCHECK_OK)
        aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(r.relid));
    require_column(r, r.ts, ACL_SELECT);
    bool isnull;
    uint64 rows;
    run_as_owner(r, psprintf("DELETE FROM ONLY %s WHERE ts < $1", r.name), 1, values, nullptr, false, &isnull, &rows);
    PG_RETURN_INT64(int64(rows));
}

} // extern "C"
