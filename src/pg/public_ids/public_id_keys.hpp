// The keys of public ids, as the face functions see them: read from crid's
// key table by key id, kept per backend, and handed only to roles the key
// names. The key table is crid_public_id_keys; nobody but its key
// administrators may read it (docs/public-ids.md, "Keys").
//
// A face function reads the key row itself, with a heap scan of that one
// table: no SQL runs, so nothing of anyone else's (a trigger, a rule, a
// policy, a search_path) runs with the key in reach, and the caller needs no
// right on the table. What it hands back is a face, never the key; and only
// to a role that has the privileges of the key's usable_by role.
#pragma once

#include "common/postgres_headers.hpp"

#include "public_ids/faces_in_plans.hpp"

#include "core/permutation63.hpp"
#include "core/siphash.hpp"

namespace crid::pg::public_ids {

struct PublicKey {
    int32 key_id;     // the hash key (first, as dynahash wants it)
    bool loaded;      // false: read the row again before use
    Oid usable_by;    // the role whose members may compute faces with it
    Oid allowed_user; // a user found to have usable_by's privileges, until roles change
    core::SipKey sip; // UUIDv47's key, and the permutation's master key
    core::Permutation63 permutation;
    core::Permutation53 permutation53; // faces of ids of at most 53 bits
};

// What a face function keeps in fn_extra between rows: the key it used last
// (valid while nothing changed keys or roles since), and the function's own
// state (the Sqids functions keep their codec there).
struct CallCache {
    int32 key_id;
    uint64 generation;
    Oid user;
    const PublicKey *key;
    void *extra;
};

CallCache &call_cache(FunctionCallInfo fcinfo);

// ERROR 22003 for a negative id or face (`what` says which): the 63-bit
// faces and their text cover 0 to 2^63 - 1.
void require_not_negative(int64_t value, const char *function, const char *what);

// The width of argument `arg` of a face function: 53 or 63 (ERROR 22023
// otherwise, 22004 for NULL).
int face_bits_arg(FunctionCallInfo fcinfo, int arg, const char *function);

// ERROR 22003 for an id or face outside 0 .. 2^bits - 1 (bits 53 or 63).
void require_within_bits(int64_t value, int bits, const char *function, const char *what);

// Bumped whenever a cached key or a role check may be stale.
extern uint64 key_generation;

// The key `key_id` for the current user, from this backend's cache or the
// key table. ERROR 22004 for a NULL key id (argument `arg` of `function`),
// 42704 for a key id the table lacks, 42501 when the current user lacks the
// privileges of the key's usable_by role, 55000 when crid is not installed
// in this database. The messages name the key id, never the key.
const PublicKey &key_for_call_slow(FunctionCallInfo fcinfo, int arg, const char *function);

// Every row after a call site's first: the key it used last, when the key id
// and the user are the same and nothing changed since (inline: this is all
// a face costs beyond its arithmetic).
inline const PublicKey &key_for_call(FunctionCallInfo fcinfo, int arg, const char *function) {
    note_key_use();
    const auto *c = static_cast<const CallCache *>(fcinfo->flinfo->fn_extra);
    if (c != nullptr && c->key != nullptr && !PG_ARGISNULL(arg) && c->key_id == PG_GETARG_INT32(arg) &&
        c->generation == key_generation && c->user == GetUserId())
        return *c->key;
    return key_for_call_slow(fcinfo, arg, function);
}

} // namespace crid::pg::public_ids
