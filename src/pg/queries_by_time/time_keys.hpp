// Time ranges as id ranges, on the PostgreSQL side: reading tstzrange
// arguments, the first and last id of a span as Datums, and what the planner
// code (support functions, planner hook) builds conditions from. Shared by
// the SQL functions, the support function of *_in() and the planner hook.
#pragma once

#include "common/postgres_headers.hpp"

#include "core/time_range.hpp"

#include <optional>

extern "C" {
#include "nodes/primnodes.h"
#include "utils/rangetypes.h"
}

namespace crid::pg::queries_by_time {

using Span = std::optional<core::time_range::Units>;

enum class Family { uuid_v7, snowflake, crid };

// A family of ids and, for snowflake, its layout (not owned).
struct Keyspace {
    Family family = Family::uuid_v7;
    const core::snowflake::Layout *layout = nullptr;
};

// uuid or bigint.
Oid key_type(Family family);

// The ends of a tstzrange value.
struct RangeEnds {
    bool empty = false;
    core::time_range::End lower, upper;
};
RangeEnds range_ends(RangeType *range);

// The units of the keyspace whose time lies in the range (C++ runs guarded:
// ERROR for a snowflake layout whose bigint order is not time order).
Span span_of_range(const Keyspace &ks, const RangeEnds &ends);

// The units whose time t satisfies `t op at` (op: <, <=, >=, >).
Span span_of_comparison(const Keyspace &ks, core::time_range::Op op, TimestampTz at);

// The first and last id of a span. No span gives the pair (largest id,
// smallest id), between which no id lies, so `id >= first AND id <= last` is
// false for every id rather than NULL.
struct Keys {
    Datum first;
    Datum last;
};
Keys keys_of(const Keyspace &ks, const Span &span);

// A Const of the key type.
Const *key_const(Family family, Datum key);

// The btree operator `key op key` of the key type for a btree strategy
// (BTGreaterEqualStrategyNumber, ...).
Oid key_operator(Family family, int strategy);

// `arg op rhs` as a boolean OpExpr (rhs of the key type).
Expr *key_comparison(Family family, int strategy, Expr *arg, Expr *rhs);

// Node casts C++ accepts (PostgreSQL's node structs are unrelated types to it),
// and copyObject without the GNU typeof it is written with.
inline Expr *as_expr(Node *n) { return reinterpret_cast<Expr *>(n); }
inline Node *as_node(Expr *e) { return reinterpret_cast<Node *>(e); }
inline Expr *copy_expr(Node *n) { return static_cast<Expr *>(copyObjectImpl(n)); }

// A function of crid, by name and argument types, in the schema `nsp`;
// InvalidOid when missing (never an ERROR).
Oid function_in(Oid nsp, const char *name, int nargs, const Oid *argtypes);

// A function call expression of crid's helper `funcid` (returning rettype).
Expr *call(Oid funcid, Oid rettype, List *args);

// The snowflake layout of a constant text argument, or nullptr when it is no
// valid layout or one whose bigint order is not time order (no ERROR).
const core::snowflake::Layout *sortable_layout(Node *arg);

} // namespace crid::pg::queries_by_time
