// crid_key_largest(rel, attnum): the largest value of a key column, for
// crid_check()'s parts that compare a table's ids with what its DEFAULT
// mints, read so that no code of the table's owner runs as the caller.
//
// A query would: planning a statement on a table builds its indexes'
// predicates and expressions and folds their IMMUTABLE functions, code of
// whoever made the index, and crid_check() is what a superuser runs across
// every table. So the value is read here from the last entry of a B-tree
// index on the column, scanned backwards through the index access method:
// no planner, no predicate, and only built-in code (the index must be
// plain, valid, not partial, with the column first and pg_catalog's default
// operator class of a built-in type, int8 or uuid; bigid is int8 on disk).
// A partitioned table is read through each leaf partition's index.
//
// Refusals, each with its SQLSTATE so that the SQL caller can say why a
// table was skipped: 42501 the caller may not read the column, or row
// security applies to it (its policies are the owner's code, and the raw
// maximum would tell what they hide); 55000 a leaf without such an index
// (the table would be read whole) or a foreign partition. NULL: no row.
//
// Plain PostgreSQL C: no C++ object lives in these frames, so ereport may
// leave them.
#include "common/postgres_headers.hpp"

extern "C" {
#include "access/genam.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "executor/tuptable.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/uuid.h"
}

namespace {

constexpr const char *kFunction = "crid_key_largest";

// Whether index `index` of a leaf is one this function may scan for column
// `attnum` (the leaf's own number): btree, valid, plain, the column first,
// the column type's default operator class `opclass`.
bool usable_index(Relation index, AttrNumber attnum, Oid opclass) {
    Form_pg_index form = index->rd_index;
    if (index->rd_rel->relam != BTREE_AM_OID || !form->indisvalid || !form->indisready || !form->indislive)
        return false;
    if (form->indnkeyatts < 1 || form->indkey.values[0] != attnum)
        return false;
    // Partial or expression indexes: their predicates and expressions are
    // code, and reading them would build them.
    if (!heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, nullptr) ||
        !heap_attisnull(index->rd_indextuple, Anum_pg_index_indexprs, nullptr))
        return false;
    return index->rd_opfamily[0] == get_opclass_family(opclass) &&
           index->rd_opcintype[0] == get_opclass_input_type(opclass) && index->rd_indoption[0] == 0;
}

// The largest non-NULL value of column `column` of leaf `relid` through a
// usable index of operator class `opclass`, as a Datum of `type` (by value
// for int8; a palloc'd copy for uuid); *found false when the leaf holds none.
Datum leaf_largest(Oid relid, const char *column, Oid opclass, Oid type, bool *found) {
    Relation heap = table_open(relid, AccessShareLock);
    if (heap->rd_rel->relkind == RELKIND_FOREIGN_TABLE)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: %s is a foreign table", kFunction, RelationGetRelationName(heap))));
    AttrNumber attnum = get_attnum(relid, column);
    List *indexes = RelationGetIndexList(heap);
    Relation chosen = nullptr;
    ListCell *cell;
    foreach (cell, indexes) {
        Relation index = index_open(lfirst_oid(cell), AccessShareLock);
        if (chosen == nullptr && usable_index(index, attnum, opclass)) {
            chosen = index;
            continue;
        }
        index_close(index, AccessShareLock);
    }
    if (chosen == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: %s has no plain B-tree index on %s", kFunction, RelationGetRelationName(heap),
                               quote_identifier(column)),
                        errdetail("Without one the table would be read whole.")));

    Snapshot snapshot = RegisterSnapshot(GetTransactionSnapshot());
#if PG_VERSION_NUM >= 180000
    IndexScanDesc scan = index_beginscan(heap, chosen, snapshot, nullptr, 0, 0);
#else
    IndexScanDesc scan = index_beginscan(heap, chosen, snapshot, 0, 0);
#endif
    index_rescan(scan, nullptr, 0, nullptr, 0);
    TupleTableSlot *slot = table_slot_create(heap, nullptr);
    Datum result = 0;
    *found = false;
    // NULLs sort last in a default btree: walking backwards meets them first.
    while (index_getnext_slot(scan, BackwardScanDirection, slot)) {
        bool isnull;
        Datum value = slot_getattr(slot, attnum, &isnull);
        if (isnull)
            continue;
        result = value;
        if (type == UUIDOID) {
            pg_uuid_t *copy = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
            memcpy(copy, DatumGetUUIDP(value), sizeof(pg_uuid_t));
            result = UUIDPGetDatum(copy);
        }
        *found = true;
        break;
    }
    ExecDropSingleTupleTableSlot(slot);
    index_endscan(scan);
    UnregisterSnapshot(snapshot);
    index_close(chosen, AccessShareLock);
    table_close(heap, AccessShareLock);
    return result;
}

// Whether operator class `opclass` is pg_catalog's.
bool get_opclass_namespace_is_catalog(Oid opclass) {
    HeapTuple tuple = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclass));
    if (!HeapTupleIsValid(tuple))
        return false;
    bool catalog = reinterpret_cast<Form_pg_opclass>(GETSTRUCT(tuple))->opcnamespace == PG_CATALOG_NAMESPACE;
    ReleaseSysCache(tuple);
    return catalog;
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_key_largest);

// crid_key_largest(rel regclass, attnum smallint) RETURNS text
Datum crid_key_largest(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("%s: the relation and the column must not be NULL", kFunction)));
    Oid relid = PG_GETARG_OID(0);
    AttrNumber attnum = PG_GETARG_INT16(1);
    char relkind = get_rel_relkind(relid);
    if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE)
        ereport(ERROR,
                (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("%s: relation %u is not a table", kFunction, relid)));
    char *column = get_attname(relid, attnum, true);
    if (column == nullptr || attnum <= 0)
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                        errmsg("%s: relation %u has no column %d", kFunction, relid, attnum)));
    if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
        pg_attribute_aclcheck(relid, attnum, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("%s: permission denied to read column %s of %s", kFunction, quote_identifier(column),
                               get_rel_name(relid))));
    if (check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("%s: row security applies to %s", kFunction, get_rel_name(relid)),
                        errdetail("Its policies are its owner's code; the largest id would tell what they hide.")));
    // int8 and what reads as int8 (bigid, domains), uuid: through the
    // default B-tree operator class of pg_catalog, built-in code only.
    Oid opclass = GetDefaultOpClass(get_atttype(relid, attnum), BTREE_AM_OID);
    Oid scan_type = OidIsValid(opclass) ? get_opclass_input_type(opclass) : InvalidOid;
    if ((scan_type != INT8OID && scan_type != UUIDOID) || get_opclass_namespace_is_catalog(opclass) == false)
        ereport(ERROR,
                (errcode(ERRCODE_DATATYPE_MISMATCH), errmsg("%s: column %s of %s is neither bigint nor uuid", kFunction,
                                                            quote_identifier(column), get_rel_name(relid))));

    List *leaves = NIL;
    if (relkind == RELKIND_PARTITIONED_TABLE) {
        ListCell *cell;
        foreach (cell, find_all_inheritors(relid, AccessShareLock, nullptr))
            if (get_rel_relkind(lfirst_oid(cell)) != RELKIND_PARTITIONED_TABLE)
                leaves = lappend_oid(leaves, lfirst_oid(cell));
    } else {
        leaves = list_make1_oid(relid);
    }
    bool any = false;
    Datum best = 0;
    ListCell *cell;
    foreach (cell, leaves) {
        Oid leaf = lfirst_oid(cell);
        char *leaf_column = get_attname(relid, attnum, false);
        bool found;
        Datum value = leaf_largest(leaf, leaf_column, opclass, scan_type, &found);
        if (!found)
            continue;
        bool greater;
        if (scan_type == UUIDOID)
            greater = !any || DatumGetInt32(DirectFunctionCall2(uuid_cmp, value, best)) > 0;
        else
            greater = !any || DatumGetInt64(value) > DatumGetInt64(best);
        if (greater)
            best = value;
        any = true;
    }
    if (!any)
        PG_RETURN_NULL();
    char *text = scan_type == UUIDOID ? DatumGetCString(DirectFunctionCall1(uuid_out, best))
                                      : psprintf(INT64_FORMAT, DatumGetInt64(best));
    PG_RETURN_TEXT_P(cstring_to_text(text));
}
}
