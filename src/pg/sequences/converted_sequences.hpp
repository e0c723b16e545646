// Sequences converted by crid_sequence_convert(): what this backend knows of
// them, and what it handed out from them.
//
// A converted sequence is a row of crid_sequences (its family, and the last
// value it gave as a plain sequence). Each backend keeps one entry per
// sequence it looked at, converted or not, read from that table and from
// pg_sequence; an entry goes stale when the relation cache drops the
// sequence or its owning table (converting and reverting alter the
// sequence, GRANT and REVOKE alter either) or a role's membership changes,
// and is read again at its next use. What the session handed out (currval)
// survives that: entries are never removed, so a pointer to one stays valid
// for the backend's life.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::sequences {

enum class Family : uint8 { snowflake, crid };

struct Entry {
    Oid seq;           // hash key
    bool valid;        // the facts below are current
    bool converted;    // a row of crid_sequences names it
    Family family;     // converted: the family it hands out
    int64 increment;   // INCREMENT BY of the sequence
    int64 floor;       // converted: every id handed out is above it
    Oid owner_table;   // the table whose column owns it (InvalidOid: none)
    Oid acl_user;      // the role the two checks below were made for
    bool may_nextval;  // USAGE or UPDATE on the sequence
    bool may_identity; // INSERT or UPDATE on the owning table
    bool has_last;     // this session handed out a value of it
    int64 last;        // that value (what currval returns)
};

// crid's objects in this database, resolved once and again after DDL.
struct Objects {
    bool installed; // extension crid is in this database
    Oid table;      // crid_sequences
    Oid nextval;    // crid_sequence_nextval(regclass)
    Oid identity;   // crid_sequence_identity(regclass)
    Oid currval;    // crid_sequence_currval(regclass)
    Oid lastval;    // crid_sequence_lastval()
};
const Objects &objects();

// The current entry of `seq` (read again when stale). Only PostgreSQL
// calls: an ERROR may leave through it.
Entry *entry_of(Oid seq);

// The entry of a converted sequence that the current role may take a value
// of (identity: through its owning table's IDENTITY column), an ERROR
// naming the sequence when it may not, or nullptr for a sequence not
// converted. `cached` is the caller's fn_extra slot.
Entry *for_nextval(Oid seq, bool identity, void **cached);

// ERROR 55000: `seq` is not converted.
[[noreturn]] void not_converted(Oid seq);

// The sequence and value of the last value this session was handed by crid
// (valid false: none yet).
struct LastHandedOut {
    bool valid;
    Oid seq;
    int64 value;
};
extern LastHandedOut last_handed_out;

} // namespace crid::pg::sequences
