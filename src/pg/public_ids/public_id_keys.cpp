#include "public_ids/public_id_keys.hpp"

#include "common/args.hpp"
#include "common/extension_schema.hpp"

#include "core/uuidv47.hpp"

#include <new>

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_namespace.h"
#include "commands/trigger.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace crid::pg::public_ids {

// Every CallCache made before its last bump looks the key up again.
uint64 key_generation = 1;

namespace {

HTAB *keys = nullptr;
// The key table's OID as last read, so its relcache invalidations are known.
Oid key_table = InvalidOid;

void forget_keys(bool rows_too) {
    ++key_generation;
    if (keys == nullptr)
        return;
    HASH_SEQ_STATUS seq;
    hash_seq_init(&seq, keys);
    while (auto *k = static_cast<PublicKey *>(hash_seq_search(&seq))) {
        k->allowed_user = InvalidOid;
        if (rows_too)
            k->loaded = false;
    }
}

// The key table's statement trigger sends a relcache invalidation for it
// (rows changed); InvalidOid means every relation, after a cache reset.
void on_relcache(Datum, Oid relid) {
    if (relid == InvalidOid || relid == key_table)
        forget_keys(true);
}

// A role's membership or attributes changed, or a database's owner (who is
// the member of pg_database_owner): check usable_by again.
void on_roles(Datum, int, uint32) {
    forget_keys(false);
    forget_plans_with_faces();
}

HTAB *key_hash() {
    if (keys != nullptr)
        return keys;
    HASHCTL ctl{};
    ctl.keysize = sizeof(int32);
    ctl.entrysize = sizeof(PublicKey);
    keys = hash_create("crid public id keys", 8, &ctl, HASH_ELEM | HASH_BLOBS);
    CacheRegisterRelcacheCallback(on_relcache, 0);
    CacheRegisterSyscacheCallback(AUTHMEMMEMROLE, on_roles, 0);
    CacheRegisterSyscacheCallback(AUTHOID, on_roles, 0);
    CacheRegisterSyscacheCallback(DATABASEOID, on_roles, 0);
    return keys;
}

AttrNumber key_column(TupleDesc desc, const char *name) {
    for (int i = 0; i < desc->natts; ++i) {
        Form_pg_attribute a = TupleDescAttr(desc, i);
        if (!a->attisdropped && strcmp(NameStr(a->attname), name) == 0)
            return a->attnum;
    }
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("crid's key table crid_public_id_keys has no column %s", name)));
}

Oid key_table_oid(const char *function) {
    Oid nsp = crid_schema();
    Oid relid = OidIsValid(nsp) ? get_relname_relid("crid_public_id_keys", nsp) : InvalidOid;
    if (!OidIsValid(relid))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: crid's key table crid_public_id_keys is missing in this database", function),
                        errhint("CREATE EXTENSION crid, or ALTER EXTENSION crid UPDATE, makes it.")));
    return relid;
}

// The row of one key id in the key table, while the scan is open. The row is
// read with a catalog snapshot, taken after every invalidation this backend
// has processed, not with the statement's: a transaction whose snapshot is
// older than a key's retirement or move must not cache the row as it was,
// since no invalidation would come again to correct it.
struct KeyRowScan {
    Relation rel;
    TupleDesc desc;
    SysScanDesc scan;
    HeapTuple row; // not valid when the table has no such key id
};

KeyRowScan begin_key_row_scan(Oid relid, int32 key_id) {
    KeyRowScan s;
    s.rel = table_open(relid, AccessShareLock);
    s.desc = RelationGetDescr(s.rel);
    ScanKeyData scankey;
    ScanKeyInit(&scankey, key_column(s.desc, "key_id"), BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(key_id));
    s.scan = systable_beginscan(s.rel, InvalidOid, false, nullptr, 1, &scankey);
    s.row = systable_getnext(s.scan);
    return s;
}

void end_key_row_scan(KeyRowScan &s) {
    systable_endscan(s.scan);
    table_close(s.rel, AccessShareLock);
}

// A secret's bytes as DatumGetByteaPP gave them: a detoasted copy of the
// stored value is wiped and freed, not left in memory.
void release_secret(bytea *bytes, Datum stored) {
    if (reinterpret_cast<Pointer>(bytes) != DatumGetPointer(stored)) {
        explicit_bzero(VARDATA_ANY(bytes), VARSIZE_ANY_EXHDR(bytes));
        pfree(bytes);
    }
}

enum class KeyRow { missing, retired, read };

// Fills `k` (its key_id set) from its row.
KeyRow read_key_row(PublicKey *k, const char *function) {
    key_table = key_table_oid(function);
    KeyRowScan s = begin_key_row_scan(key_table, k->key_id);
    KeyRow result = HeapTupleIsValid(s.row) ? KeyRow::read : KeyRow::missing;
    bool retired_null = true;
    if (result == KeyRow::read)
        (void)heap_getattr(s.row, key_column(s.desc, "retired_at"), s.desc, &retired_null);
    if (result == KeyRow::read && !retired_null)
        result = KeyRow::retired;
    if (result == KeyRow::read) {
        bool secret_null, usable_null;
        Datum secret = heap_getattr(s.row, key_column(s.desc, "secret"), s.desc, &secret_null);
        Datum usable = heap_getattr(s.row, key_column(s.desc, "usable_by"), s.desc, &usable_null);
        bytea *bytes = secret_null ? nullptr : DatumGetByteaPP(secret);
        if (bytes == nullptr || VARSIZE_ANY_EXHDR(bytes) != 16)
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("%s: key %d of public ids has no 16-byte secret", function, k->key_id),
                            errhint("The trigger of crid_public_id_keys refuses such rows; was it disabled?")));
        k->sip = core::sip_key_from_bytes(reinterpret_cast<const uint8_t *>(VARDATA_ANY(bytes)));
        new (&k->permutation) core::Permutation63(k->sip);
        new (&k->permutation53) core::Permutation53(k->sip);
        release_secret(bytes, secret);
        k->usable_by = usable_null ? InvalidOid : DatumGetObjectId(usable);
        k->allowed_user = InvalidOid;
        k->loaded = true;
    }
    end_key_row_scan(s);
    return result;
}

// The cached key, or its row read into the cache. An unknown or retired
// key id leaves no entry behind (calls with made-up ids must not grow the
// cache).
PublicKey *cached_key(int32 key_id, const char *function) {
    auto *k = static_cast<PublicKey *>(hash_search(key_hash(), &key_id, HASH_FIND, nullptr));
    if (k != nullptr && k->loaded)
        return k;
    alignas(PublicKey) char buffer[sizeof(PublicKey)];
    auto *read = reinterpret_cast<PublicKey *>(buffer);
    read->key_id = key_id;
    KeyRow row = read_key_row(read, function);
    if (row == KeyRow::read) {
        k = static_cast<PublicKey *>(hash_search(keys, &key_id, HASH_ENTER, nullptr));
        memcpy(static_cast<void *>(k), read, sizeof(PublicKey));
    }
    explicit_bzero(buffer, sizeof buffer);
    if (row == KeyRow::missing)
        ereport(ERROR,
                (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("%s: key %d of public ids does not exist", function, key_id),
                 errhint("Keys are the rows of crid_public_id_keys; crid_public_id_key_create() makes one.")));
    if (row == KeyRow::retired)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: key %d of public ids is retired", function, key_id),
                        errhint("A retired key's secret is gone: faces made with it no longer decode.")));
    return k;
}

const PublicKey &lookup(int32 key_id, const char *function) {
    PublicKey *k = cached_key(key_id, function);
    Oid user = GetUserId();
    if (k->allowed_user != user) {
        if (!has_privs_of_role(user, k->usable_by))
            ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                            errmsg("%s: permission denied for key %d of public ids", function, key_id),
                            errhint("A key serves the members of its usable_by role in crid_public_id_keys.")));
        k->allowed_user = user;
    }
    return *k;
}

} // namespace

void require_not_negative(int64_t value, const char *function, const char *what) {
    if (value < 0)
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("%s: %s %lld is negative", function, what, static_cast<long long>(value)),
                        errhint("Ids and their faces are 0 to %lld.", static_cast<long long>(INT64_MAX))));
}

int face_bits_arg(FunctionCallInfo fcinfo, int arg, const char *function) {
    if (PG_ARGISNULL(arg))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s: bits must not be NULL", function)));
    int32 bits = PG_GETARG_INT32(arg);
    if (bits != core::Permutation53::bits && bits != 63)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s: bits is %d, not 53 or 63", function, bits),
                 errhint("53: faces of ids below 2^53 (JavaScript-safe), themselves below 2^53; 63: of any "
                         "non-negative bigint.")));
    return bits;
}

void require_within_bits(int64_t value, int bits, const char *function, const char *what) {
    const int64_t top = bits == 63 ? INT64_MAX : int64_t(core::Permutation53::max);
    if (value < 0 || value > top)
        ereport(ERROR,
                (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                 errmsg("%s: %s %lld is outside 0 to %lld (%d bits)", function, what, static_cast<long long>(value),
                        static_cast<long long>(top), bits),
                 errhint("A face of %d bits is made of, and stands for, an id of at most %d bits.", bits, bits)));
}

CallCache &call_cache(FunctionCallInfo fcinfo) {
    if (fcinfo->flinfo->fn_extra == nullptr)
        fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallCache));
    return *static_cast<CallCache *>(fcinfo->flinfo->fn_extra);
}

const PublicKey &key_for_call_slow(FunctionCallInfo fcinfo, int arg, const char *function) {
    int32 key_id = required_int32(fcinfo, arg, function, "key_id");
    CallCache &c = call_cache(fcinfo);
    const PublicKey &k = lookup(key_id, function);
    c.key = &k;
    c.key_id = key_id;
    c.generation = key_generation;
    c.user = GetUserId();
    return k;
}

} // namespace crid::pg::public_ids

extern "C" {

PG_FUNCTION_INFO_V1(crid_public_id_keys_changed);
PG_FUNCTION_INFO_V1(crid_public_id_secret);
PG_FUNCTION_INFO_V1(crid_public_id_key_held);
PG_FUNCTION_INFO_V1(crid_public_id_keys_restored);

// Statement trigger of crid_public_id_keys: rows changed, so every backend
// drops the keys it keeps (at its next transaction, or at once here), and
// every cached plan of every backend: a face of constants is folded into a
// plan when it is made (the functions are IMMUTABLE), and such a plan would
// go on answering for a key its session may no longer use (one deleted,
// moved to another role, truncated away), or with the secret of a key that
// is no longer there (a key made in a transaction that rolled back, whose
// key id another key now has: an INSERT changes what a key id means too),
// and depends on no relation an invalidation could name. PostgreSQL resets
// every plan cache when the catalog cache of pg_namespace is invalidated
// (its plan cache's syscache callback), which is the one way to reach every
// backend's plans.
// Keys change rarely; plans are made again on their next use.
Datum crid_public_id_keys_changed(PG_FUNCTION_ARGS) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("crid_public_id_keys_changed: not called as a trigger")));
    auto *trigger = reinterpret_cast<TriggerData *>(fcinfo->context);
    CacheInvalidateRelcacheByRelid(RelationGetRelid(trigger->tg_relation));
    CacheInvalidateCatalog(NamespaceRelationId);
    return PointerGetDatum(nullptr);
}

// 16 bytes from the operating system's strong random source: a new key's
// secret, made inside the server so it is never typed into a statement.
Datum crid_public_id_secret(PG_FUNCTION_ARGS) {
    bytea *out = static_cast<bytea *>(palloc(VARHDRSZ + 16));
    SET_VARSIZE(out, VARHDRSZ + 16);
    if (!pg_strong_random(VARDATA(out), 16))
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("crid_public_id_secret: no strong random bytes")));
    PG_RETURN_BYTEA_P(out);
}

// Whether the key table holds key `key_id` with `secret` (NULL: a retired
// key, whose secret is wiped): its trigger skips such a row, so a dump's
// keys may be restored twice. In C, not in SQL: a query run by the trigger
// during a COPY is logged by auto_explain (log_nested_statements) with the
// COPY's context, the row and its secret; and the comparison must not put
// the secret into a plan either. Only to a role that may read the table,
// which learns nothing it could not read.
static bool key_held(const char *function, int32 key_id, bytea *given) {
    Oid relid = crid::pg::public_ids::key_table_oid(function);
    if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("%s: permission denied for table crid_public_id_keys", function)));
    auto s = crid::pg::public_ids::begin_key_row_scan(relid, key_id);
    bool held = false;
    if (HeapTupleIsValid(s.row)) {
        bool secret_null;
        Datum secret = heap_getattr(s.row, crid::pg::public_ids::key_column(s.desc, "secret"), s.desc, &secret_null);
        if (secret_null || given == nullptr) {
            held = secret_null && given == nullptr;
        } else {
            bytea *bytes = DatumGetByteaPP(secret);
            held = VARSIZE_ANY_EXHDR(bytes) == VARSIZE_ANY_EXHDR(given) &&
                   memcmp(VARDATA_ANY(bytes), VARDATA_ANY(given), VARSIZE_ANY_EXHDR(given)) == 0;
            crid::pg::public_ids::release_secret(bytes, secret);
        }
    }
    crid::pg::public_ids::end_key_row_scan(s);
    return held;
}

Datum crid_public_id_key_held(PG_FUNCTION_ARGS) {
    const char *function = "crid_public_id_key_held";
    int32 key_id = crid::pg::required_int32(fcinfo, 0, function, "key_id");
    PG_RETURN_BOOL(key_held(function, key_id, PG_ARGISNULL(1) ? nullptr : PG_GETARG_BYTEA_PP(1)));
}

// BEFORE INSERT row trigger of crid_public_id_keys, after
// crid_public_id_keys_check (triggers fire in name order), which refused
// bad rows and wiped a retired key's secret: a row equal to a key the table
// holds (key id, secret, retirement) is skipped, so a dump's keys may be
// restored twice. A trigger of its own, in C, so the secret is never handed
// to a function found by its name, which someone else could have made
// (docs/security.md).
Datum crid_public_id_keys_restored(PG_FUNCTION_ARGS) {
    const char *function = "crid_public_id_keys_restored";
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR,
                (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED), errmsg("%s: not called as a trigger", function)));
    auto *trigger = reinterpret_cast<TriggerData *>(fcinfo->context);
    if (!TRIGGER_FIRED_BEFORE(trigger->tg_event) || !TRIGGER_FIRED_FOR_ROW(trigger->tg_event) ||
        !TRIGGER_FIRED_BY_INSERT(trigger->tg_event) ||
        RelationGetRelid(trigger->tg_relation) != crid::pg::public_ids::key_table_oid(function))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("%s: only a BEFORE INSERT row trigger of crid_public_id_keys", function)));
    HeapTuple row = trigger->tg_trigtuple;
    TupleDesc desc = RelationGetDescr(trigger->tg_relation);
    bool key_null, secret_null;
    Datum key = heap_getattr(row, crid::pg::public_ids::key_column(desc, "key_id"), desc, &key_null);
    Datum secret = heap_getattr(row, crid::pg::public_ids::key_column(desc, "secret"), desc, &secret_null);
    if (key_null)
        return PointerGetDatum(row); // refused by crid_public_id_keys_check
    bytea *given = secret_null ? nullptr : DatumGetByteaPP(secret);
    bool held = key_held(function, DatumGetInt32(key), given);
    if (given != nullptr)
        crid::pg::public_ids::release_secret(given, secret);
    return held ? PointerGetDatum(nullptr) : PointerGetDatum(row);
}

} // extern "C"
