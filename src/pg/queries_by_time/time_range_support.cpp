// Planner support of uuid_v7_in(), snowflake_in() and crid_in(): what lets
// `WHERE snowflake_in(id, r)` use the B-tree on id without crid preloaded.
//
// - SupportRequestSimplify: the call becomes `id >= *_range_first(r) AND
//   id <= *_range_last(r)`, its exact equivalent for snowflake_in and crid_in
//   (ids not of the family are outside both), and for uuid_v7_in with
//   `crid_uuid_v7_in_exact(id, r)` beside it (a UUID of another version may
//   sort among the version 7 ones and must still give false), so index
//   scans, partition pruning, generic plans and row estimates all come from
//   plain id comparisons.
// - SupportRequestIndexCondition (any call not simplified): the same two
//   conditions as index conditions; lossy for UUIDs.
// - SupportRequestSelectivity: the fraction of ids between the two keys, from
//   the column's statistics.
//
// Conditions are built only when they are safe to evaluate separately: the
// range has no volatile function (evaluating it twice must give one value),
// and a snowflake layout is a constant whose ids sort by time.
#include "common/postgres_headers.hpp"

#include "common/minting.hpp"
#include "snowflake/snowflake_settings.hpp"
#include "queries_by_time/time_keys.hpp"

extern "C" {
#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
}

using namespace crid;
namespace by_time = crid::pg::queries_by_time;

namespace {

// What a *_in call names: its family, arguments and, when known at plan
// time, its keyspace.
struct InCall {
    by_time::Family family;
    Oid funcid;
    Node *id;
    Node *range;
    Node *layout; // snowflake_in's third argument, or nullptr
    bool known;   // the keyspace is known: not a snowflake layout that is variable or unsorted
    by_time::Keyspace keyspace;
};

InCall in_call(by_time::Family family, Oid funcid, List *args) {
    InCall c{family,
             funcid,
             static_cast<Node *>(linitial(args)),
             static_cast<Node *>(lsecond(args)),
             list_length(args) > 2 ? static_cast<Node *>(lthird(args)) : nullptr,
             true,
             by_time::Keyspace{family}};
    if (family == by_time::Family::snowflake) {
        c.keyspace.layout = c.layout ? by_time::sortable_layout(c.layout) : &pg::snowflake::server_layout_or_error();
        c.known = c.keyspace.layout != nullptr;
    }
    return c;
}

// Whether the keys can be folded into constants at plan time: a constant
// range of an IMMUTABLE form, or of the server's snowflake or crid layout
// where crid is preloaded and those are fixed until the server stops
// (without preloading they follow a reload, and are read when the plan
// runs).
bool foldable(const InCall &c) {
    return IsA(c.range, Const) && (c.family == by_time::Family::uuid_v7 || c.layout != nullptr || pg::preloaded());
}

const char *helper_name(by_time::Family family, bool last) {
    switch (family) {
    case by_time::Family::uuid_v7:
        return last ? "uuid_v7_range_last" : "uuid_v7_range_first";
    case by_time::Family::snowflake:
        return last ? "snowflake_range_last" : "snowflake_range_first";
    case by_time::Family::crid:
        break;
    }
    return last ? "crid_range_last" : "crid_range_first";
}

// The key bound `*_range_first(r [, layout])` (or _last), as a constant when
// foldable, else as a call of crid's helper in the schema of the *_in
// function; nullptr when that helper is missing.
Expr *bound(const InCall &c, bool last) {
    Oid key_type = by_time::key_type(c.family);
    if (foldable(c)) {
        Const *r = castNode(Const, c.range);
        if (r->constisnull)
            return &makeNullConst(key_type, -1, InvalidOid)->xpr;
        by_time::Keys keys = by_time::keys_of(
            c.keyspace, by_time::span_of_range(c.keyspace, by_time::range_ends(DatumGetRangeTypeP(r->constvalue))));
        return &by_time::key_const(c.family, last ? keys.last : keys.first)->xpr;
    }
    Oid argtypes[2] = {TSTZRANGEOID, TEXTOID};
    Oid fn =
        by_time::function_in(get_func_namespace(c.funcid), helper_name(c.family, last), c.layout ? 2 : 1, argtypes);
    if (!OidIsValid(fn))
        return nullptr;
    List *args = list_make1(by_time::copy_expr(c.range));
    if (c.layout)
        args = lappend(args, by_time::copy_expr(c.layout));
    return by_time::call(fn, key_type, args);
}

// [id >= first, id <= last], or NIL.
List *range_conditions(const InCall &c) {
    Expr *first = bound(c, false), *last = bound(c, true);
    if (!first || !last)
        return NIL;
    return list_make2(by_time::key_comparison(c.family, BTGreaterEqualStrategyNumber, by_time::copy_expr(c.id), first),
                      by_time::key_comparison(c.family, BTLessEqualStrategyNumber, by_time::copy_expr(c.id), last));
}

// Evaluating the range (and id) once per condition must give one value.
bool may_repeat(Node *n) { return !contain_volatile_functions(n) && !contain_subplans(n); }

// uuid_v7_in's id range is not exact (a UUID of another version may sort
// among the version 7 ones), so the call stays beside it as
// crid_uuid_v7_in_exact(id, r): the same C function without this support
// (nothing simplifies it again), whose selectivity is 1, the range's being
// the estimate. The three together are exactly the call, NULLs included.
// nullptr where that function is missing (an install older than 0.3.0).
Expr *uuid_v7_exact_call(const InCall &c) {
    Oid argtypes[2] = {UUIDOID, TSTZRANGEOID};
    Oid fn = by_time::function_in(get_func_namespace(c.funcid), "crid_uuid_v7_in_exact", 2, argtypes);
    if (!OidIsValid(fn))
        return nullptr;
    return by_time::call(fn, BOOLOID, list_make2(by_time::copy_expr(c.id), by_time::copy_expr(c.range)));
}

Node *simplify(SupportRequestSimplify *req, by_time::Family family) {
    InCall c = in_call(family, req->fcall->funcid, req->fcall->args);
    if (!c.known || !may_repeat(c.id) || !may_repeat(c.range))
        return nullptr;
    List *conds = range_conditions(c);
    if (conds && family == by_time::Family::uuid_v7) {
        Expr *exact = uuid_v7_exact_call(c);
        conds = exact ? lappend(conds, exact) : NIL;
    }
    return conds ? by_time::as_node(make_andclause(conds)) : nullptr;
}

Node *index_condition(SupportRequestIndexCondition *req, by_time::Family family) {
    if (req->indexarg != 0 || req->index->relam != BTREE_AM_OID || !is_funcclause(req->node))
        return nullptr;
    // Our operators are those of the type's default B-tree order; another
    // opclass may order differently.
    Oid type = by_time::key_type(family);
    if (req->opfamily != get_opclass_family(GetDefaultOpClass(type, BTREE_AM_OID)))
        return nullptr;
    FuncExpr *f = castNode(FuncExpr, req->node);
    InCall c = in_call(family, f->funcid, f->args);
    if (!c.known || !may_repeat(c.range) || bms_is_member(req->index->rel->relid, pull_varnos(req->root, c.range)))
        return nullptr;
    List *conds = range_conditions(c);
    req->lossy = family == by_time::Family::uuid_v7;
    return reinterpret_cast<Node *>(conds);
}

Node *selectivity(SupportRequestSelectivity *req, by_time::Family family) {
    if (req->is_join || list_length(req->args) < 2)
        return nullptr;
    List *args = NIL;
    ListCell *lc;
    foreach (lc, req->args)
        args = lappend(args, estimate_expression_value(req->root, static_cast<Node *>(lfirst(lc))));
    InCall c = in_call(family, req->funcid, args);
    if (!c.known || !IsA(c.range, Const))
        return nullptr;
    if (castNode(Const, c.range)->constisnull) {
        req->selectivity = 0.0; // STRICT: NULL, never true
        return reinterpret_cast<Node *>(req);
    }
    by_time::Span span = by_time::span_of_range(
        c.keyspace, by_time::range_ends(DatumGetRangeTypeP(castNode(Const, c.range)->constvalue)));
    if (!span) {
        req->selectivity = 0.0; // no id's time lies in the range
        return reinterpret_cast<Node *>(req);
    }
    by_time::Keys keys = by_time::keys_of(c.keyspace, span);
    Expr *id = by_time::as_expr(c.id);
    List *conds = list_make2(
        by_time::key_comparison(family, BTGreaterEqualStrategyNumber, id, &by_time::key_const(family, keys.first)->xpr),
        by_time::key_comparison(family, BTLessEqualStrategyNumber, id, &by_time::key_const(family, keys.last)->xpr));
    req->selectivity = clauselist_selectivity(req->root, conds, req->varRelid, req->jointype, req->sjinfo);
    return reinterpret_cast<Node *>(req);
}

Datum support(Node *request, by_time::Family family) {
    Node *out = nullptr;
    if (IsA(request, SupportRequestSimplify))
        out = simplify(reinterpret_cast<SupportRequestSimplify *>(request), family);
    else if (IsA(request, SupportRequestIndexCondition))
        out = index_condition(reinterpret_cast<SupportRequestIndexCondition *>(request), family);
    else if (IsA(request, SupportRequestSelectivity))
        out = selectivity(reinterpret_cast<SupportRequestSelectivity *>(request), family);
    PG_RETURN_POINTER(out);
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_uuid_v7_in_support);
PG_FUNCTION_INFO_V1(crid_snowflake_in_support);
PG_FUNCTION_INFO_V1(crid_crid_in_support);
PG_FUNCTION_INFO_V1(crid_uuid_v7_check_support);

Datum crid_uuid_v7_in_support(PG_FUNCTION_ARGS) {
    return support(reinterpret_cast<Node *>(PG_GETARG_POINTER(0)), by_time::Family::uuid_v7);
}
Datum crid_snowflake_in_support(PG_FUNCTION_ARGS) {
    return support(reinterpret_cast<Node *>(PG_GETARG_POINTER(0)), by_time::Family::snowflake);
}
Datum crid_crid_in_support(PG_FUNCTION_ARGS) {
    return support(reinterpret_cast<Node *>(PG_GETARG_POINTER(0)), by_time::Family::crid);
}

// crid_uuid_v7_check(id) keeps every row it does not refuse with an ERROR:
// selectivity 1, so the estimate of a rewritten UUIDv7 predicate is the id
// range's alone.
Datum crid_uuid_v7_check_support(PG_FUNCTION_ARGS) {
    Node *request = reinterpret_cast<Node *>(PG_GETARG_POINTER(0));
    if (!IsA(request, SupportRequestSelectivity))
        PG_RETURN_POINTER(nullptr);
    reinterpret_cast<SupportRequestSelectivity *>(request)->selectivity = 1.0;
    PG_RETURN_POINTER(request);
}

} // extern "C"
