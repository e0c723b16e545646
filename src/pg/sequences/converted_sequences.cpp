#include "sequences/converted_sequences.hpp"

#include "common/extension_schema.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_sequence.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace crid::pg::sequences {

LastHandedOut last_handed_out = {false, InvalidOid, 0};

namespace {

HTAB *entries = nullptr;
Objects resolved_objects = {};
bool objects_resolved = false;

// Columns of crid_sequences, in order.
constexpr AttrNumber seq_column = 1, family_column = 2, plain_last_column = 3;

void mark_all_stale() {
    if (!entries)
        return;
    HASH_SEQ_STATUS status;
    hash_seq_init(&status, entries);
    while (Entry *e = static_cast<Entry *>(hash_seq_search(&status)))
        e->valid = false;
}

// A relation's cache entry dropped: the entries of the sequence, and of the
// sequences its table owns, are read again; all of them when the relation
// is crid_sequences or unknown.
void relation_changed(Datum, Oid relid) {
    if (!OidIsValid(relid) || relid == resolved_objects.table) {
        objects_resolved = false;
        mark_all_stale();
        return;
    }
    if (!entries)
        return;
    HASH_SEQ_STATUS status;
    hash_seq_init(&status, entries);
    while (Entry *e = static_cast<Entry *>(hash_seq_search(&status)))
        if (e->seq == relid || e->owner_table == relid)
            e->valid = false;
}

void catalog_changed(Datum, int, uint32) {
    objects_resolved = false;
    mark_all_stale();
}

void ensure_table() {
    if (entries)
        return;
    HASHCTL ctl;
    ctl.keysize = sizeof(Oid);
    ctl.entrysize = sizeof(Entry);
    ctl.hcxt = TopMemoryContext;
    entries = hash_create("crid converted sequences", 32, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
    CacheRegisterRelcacheCallback(relation_changed, 0);
    CacheRegisterSyscacheCallback(PROCOID, catalog_changed, 0);
    CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, catalog_changed, 0);
}

Oid function_in(Oid nsp, const char *name, int nargs, const Oid *argtypes) {
    // Straight from the catalog cache, as the planner hook of queries by
    // time does: a lookup by name would check USAGE on crid's schema.
    // Only crid's own: in a database whose crid predates converted
    // sequences, a function of this name in crid's schema is whoever's made
    // it, and would run as every role whose statement calls nextval().
    Oid fn = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
                             PointerGetDatum(buildoidvector(argtypes, nargs)), ObjectIdGetDatum(nsp));
    return pg::crid_member(ProcedureRelationId, fn) ? fn : InvalidOid;
}

// The row of crid_sequences for seq, if any.
bool read_row(Oid table, Oid seq, Entry &e) {
    Relation rel = table_open(table, AccessShareLock);
    ScanKeyData key;
    ScanKeyInit(&key, seq_column, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(seq));
    SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, nullptr, 1, &key);
    HeapTuple tuple = systable_getnext(scan);
    bool found = HeapTupleIsValid(tuple);
    if (found) {
        bool family_null = true, last_null = true;
        Datum family = heap_getattr(tuple, family_column, RelationGetDescr(rel), &family_null);
        Datum last = heap_getattr(tuple, plain_last_column, RelationGetDescr(rel), &last_null);
        char *name = family_null ? nullptr : TextDatumGetCString(family);
        e.family = name && strcmp(name, "crid") == 0 ? Family::crid : Family::snowflake;
        e.floor = last_null ? PG_INT64_MAX : DatumGetInt64(last);
    }
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    return found;
}

void load(Entry &e) {
    const Objects &o = objects();
    e.converted = o.installed && OidIsValid(o.table) && read_row(o.table, e.seq, e);
    HeapTuple tuple = SearchSysCache1(SEQRELID, ObjectIdGetDatum(e.seq));
    e.increment = 1;
    if (HeapTupleIsValid(tuple)) {
        e.increment = reinterpret_cast<Form_pg_sequence>(GETSTRUCT(tuple))->seqincrement;
        ReleaseSysCache(tuple);
    }
    Oid table = InvalidOid;
    int32 column = 0;
    if (!sequenceIsOwned(e.seq, DEPENDENCY_AUTO, &table, &column) &&
        !sequenceIsOwned(e.seq, DEPENDENCY_INTERNAL, &table, &column))
        table = InvalidOid;
    e.owner_table = table;
    e.acl_user = InvalidOid;
    e.valid = true;
}

} // namespace

void not_converted(Oid seq) {
    char *name = get_rel_name(seq);
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("sequence \"%s\" is not converted by crid", name ? name : "?"),
                    errhint("SELECT crid_sequence_convert('%s') converts it; nextval() serves it as it is.",
                            name ? name : "?")));
}

const Objects &objects() {
    if (objects_resolved)
        return resolved_objects;
    ensure_table();
    Objects o = {};
    Oid nsp = pg::crid_schema();
    if (OidIsValid(nsp)) {
        o.installed = true;
        o.table = get_relname_relid("crid_sequences", nsp);
        if (!pg::crid_member(RelationRelationId, o.table))
            o.table = InvalidOid;
        const Oid regclass_arg[] = {REGCLASSOID};
        o.nextval = function_in(nsp, "crid_sequence_nextval", 1, regclass_arg);
        o.identity = function_in(nsp, "crid_sequence_identity", 1, regclass_arg);
        o.currval = function_in(nsp, "crid_sequence_currval", 1, regclass_arg);
        o.lastval = function_in(nsp, "crid_sequence_lastval", 0, nullptr);
        // An older version of crid: nothing to rewrite.
        o.installed = OidIsValid(o.table) && OidIsValid(o.nextval) && OidIsValid(o.identity) && OidIsValid(o.currval) &&
                      OidIsValid(o.lastval);
    }
    resolved_objects = o;
    objects_resolved = true;
    return resolved_objects;
}

Entry *entry_of(Oid seq) {
    ensure_table();
    bool found = false;
    Entry *e = static_cast<Entry *>(hash_search(entries, &seq, HASH_FIND, &found));
    if (!e) {
        // Read first, then enter: an ERROR while reading leaves no half entry.
        Entry fresh = {};
        fresh.seq = seq;
        load(fresh);
        e = static_cast<Entry *>(hash_search(entries, &seq, HASH_ENTER, &found));
        *e = fresh;
        return e;
    }
    if (!e->valid)
        load(*e);
    return e;
}

Entry *for_nextval(Oid seq, bool identity, void **cached) {
    Entry *e = static_cast<Entry *>(*cached);
    if (!e || e->seq != seq || !e->valid)
        *cached = e = entry_of(seq);
    if (!e->converted)
        return nullptr;
    Oid user = GetUserId();
    if (e->acl_user != user) {
        e->may_nextval = pg_class_aclcheck(seq, user, ACL_USAGE | ACL_UPDATE) == ACLCHECK_OK;
        e->may_identity = OidIsValid(e->owner_table) &&
                          pg_class_aclcheck(e->owner_table, user, ACL_INSERT | ACL_UPDATE) == ACLCHECK_OK;
        e->acl_user = user;
    }
    if (!(identity ? e->may_identity : e->may_nextval)) {
        char *name = get_rel_name(seq);
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied for sequence %s", name ? name : "?")));
    }
    return e;
}

} // namespace crid::pg::sequences
