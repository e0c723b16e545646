// Decoded-time predicates as id ranges, by a planner hook (crid preloaded).
//
// PostgreSQL asks a support function for index conditions only when the
// indexed column is a direct argument of the clause's top function; in
// `uuid_v7_to_timestamptz(id) >= x` the top is timestamptz >= and id sits one
// level down, so only a rewrite before planning helps. Before the standard
// planner runs, this hook finds, in every WHERE and JOIN ... ON conjunction
// (and each arm of an OR) of every query level,
//
//   decoder(col) op x      op: < <= = >= > (or BETWEEN, which is two of them),
//                          x: any non-volatile timestamptz, date or timestamp
//                          expression, constant, parameter or other column
//
// with decoder one of crid's uuid_v7_to_timestamptz, uuid_extract_timestamp,
// snowflake_to_timestamptz (server layout, or a constant layout whose ids sort
// by time) and crid_to_timestamptz, and writes the id conditions it implies:
//
//   col >= *_time_bound(x, '>=')  ...  col <= *_time_bound(x, '<=')
//
// Snowflake and crid ids map to their time exactly, so the original
// predicate is replaced. So is a version 7 UUID's, but a UUID of another
// version may sort among them and uuid_v7_to_timestamptz must still raise its
// error for it: the predicate becomes crid_uuid_v7_check(col) beside the range
// (the version checked, no time built and compared; one per column and
// conjunction). uuid_extract_timestamp's stays as written (it reads a version
// 1 time, and gives NULL for other versions). Because the conditions are
// ordinary id comparisons present before planning, B-tree index scans,
// partition pruning (also at executor start for parameters of generic plans)
// and row estimates follow.
//
// A rewrite applies only in conjunctions, where NULL and false select alike,
// and only when x and col are not volatile (each is evaluated once per new
// condition). Queries without these predicates are not touched at all.
// SET crid.time_predicates = off turns the hook off for a session.
#include "postgres_headers.hpp"

#include "snowflake_settings.hpp"
#include "time_keys.hpp"
#include "time_predicates.hpp"

#include "../core/time_units.hpp"

extern "C" {
#include "access/stratnum.h"
#include "access/genam.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc_d.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parse_coerce.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace tk = crid::pg::time_keys;

namespace crid::pg::time_predicates {

namespace {

bool enabled = true;
planner_hook_type previous_planner = nullptr;

enum class Decoder { none, uuid_v7, uuid_extract, snowflake, snowflake_layout, crid };

// crid's functions in this database, resolved once per backend and again
// after any change to pg_proc (CREATE/DROP/ALTER EXTENSION among others).
struct Functions {
    bool resolved = false;
    bool installed = false; // CREATE EXTENSION crid was run in this database
    Oid uuid_v7 = InvalidOid, uuid_extract = InvalidOid, snowflake = InvalidOid, snowflake_layout = InvalidOid,
        crid = InvalidOid;
    Oid uuid_v7_bound = InvalidOid, snowflake_bound = InvalidOid, snowflake_layout_bound = InvalidOid,
        crid_bound = InvalidOid;
    Oid uuid_v7_check = InvalidOid;
} functions;
bool callback_registered = false;

void forget_functions(Datum, int, uint32) { functions.resolved = false; }

// The schema of extension crid in this database, or InvalidOid.
Oid crid_schema() {
    Relation rel = table_open(ExtensionRelationId, AccessShareLock);
    ScanKeyData key;
    ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ, CStringGetDatum("crid"));
    SysScanDesc scan = systable_beginscan(rel, ExtensionNameIndexId, true, nullptr, 1, &key);
    HeapTuple tuple = systable_getnext(scan);
    Oid nsp =
        HeapTupleIsValid(tuple) ? reinterpret_cast<Form_pg_extension>(GETSTRUCT(tuple))->extnamespace : InvalidOid;
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    return nsp;
}

const Functions &resolved_functions() {
    if (functions.resolved)
        return functions;
    if (!callback_registered) {
        CacheRegisterSyscacheCallback(PROCOID, forget_functions, 0);
        callback_registered = true;
    }
    Functions f;
    Oid nsp = crid_schema();
    if (OidIsValid(nsp)) {
        f.installed = true;
        const Oid uuid_arg[] = {UUIDOID}, bigint_arg[] = {INT8OID}, bigint_text[] = {INT8OID, TEXTOID};
        const Oid bound2[] = {TIMESTAMPTZOID, TEXTOID}, bound3[] = {TIMESTAMPTZOID, TEXTOID, TEXTOID};
        f.uuid_v7 = tk::function_in(nsp, "uuid_v7_to_timestamptz", 1, uuid_arg);
        f.uuid_extract = tk::function_in(nsp, "uuid_extract_timestamp", 1, uuid_arg);
        f.snowflake = tk::function_in(nsp, "snowflake_to_timestamptz", 1, bigint_arg);
        f.snowflake_layout = tk::function_in(nsp, "snowflake_to_timestamptz", 2, bigint_text);
        f.crid = tk::function_in(nsp, "crid_to_timestamptz", 1, bigint_arg);
        f.uuid_v7_bound = tk::function_in(nsp, "uuid_v7_time_bound", 2, bound2);
        f.snowflake_bound = tk::function_in(nsp, "snowflake_time_bound", 2, bound2);
        f.snowflake_layout_bound = tk::function_in(nsp, "snowflake_time_bound", 3, bound3);
        f.crid_bound = tk::function_in(nsp, "crid_time_bound", 2, bound2);
        f.uuid_v7_check = tk::function_in(nsp, "crid_uuid_v7_check", 1, uuid_arg);
    }
    f.resolved = true;
    functions = f;
    return functions;
}

Decoder decoder_of(Node *n) {
    if (!n || !IsA(n, FuncExpr))
        return Decoder::none;
    Oid fn = castNode(FuncExpr, n)->funcid;
    const Functions &f = resolved_functions();
    if (!OidIsValid(fn))
        return Decoder::none;
    if (fn == f.uuid_v7)
        return Decoder::uuid_v7;
    if (fn == f.uuid_extract)
        return Decoder::uuid_extract;
    if (fn == f.snowflake)
        return Decoder::snowflake;
    if (fn == f.snowflake_layout)
        return Decoder::snowflake_layout;
    if (fn == f.crid)
        return Decoder::crid;
    return Decoder::none;
}

// The B-tree family of timestamptz, date and timestamp comparisons.
Oid datetime_family() {
    static Oid family = InvalidOid;
    if (!OidIsValid(family))
        family = get_opclass_family(GetDefaultOpClass(TIMESTAMPTZOID, BTREE_AM_OID));
    return family;
}

int commuted(int strategy) {
    switch (strategy) {
    case BTLessStrategyNumber:
        return BTGreaterStrategyNumber;
    case BTLessEqualStrategyNumber:
        return BTGreaterEqualStrategyNumber;
    case BTGreaterEqualStrategyNumber:
        return BTLessEqualStrategyNumber;
    case BTGreaterStrategyNumber:
        return BTLessStrategyNumber;
    default:
        return strategy;
    }
}

const char *op_text(int strategy) {
    switch (strategy) {
    case BTLessStrategyNumber:
        return "<";
    case BTLessEqualStrategyNumber:
        return "<=";
    case BTGreaterEqualStrategyNumber:
        return ">=";
    default:
        return ">";
    }
}

// Whether every time a snowflake layout can decode to fits in timestamptz:
// then snowflake_to_timestamptz never fails on an id of it, and a condition
// on the id can stand for the one on its time.
bool decodes_within_timestamptz(const core::snowflake::Layout &layout) {
    constexpr int64_t last_timestamptz_unix_ms = END_TIMESTAMP / 1000 + core::pg_epoch_unix_us / 1000 - 1;
    return core::snowflake::last_unix_ms(layout) <= last_timestamptz_unix_ms;
}

// Whether a date or timestamp constant has a timestamptz: the cross-type
// comparison handles one beyond timestamptz's range (a date in the year
// 300000 is later than every timestamptz), the conversion the rewrite needs
// would raise an ERROR instead. Such a predicate is left as written.
bool converts_to_timestamptz(Node *x, Oid xtype) {
    if (!IsA(x, Const) || castNode(Const, x)->constisnull)
        return true;
    int overflow = 0;
    Datum v = castNode(Const, x)->constvalue;
    if (xtype == DATEOID)
        (void)date2timestamptz_opt_overflow(DatumGetDateADT(v), &overflow);
    else if (xtype == TIMESTAMPOID)
        (void)timestamp2timestamptz_opt_overflow(DatumGetTimestamp(v), &overflow);
    return overflow == 0;
}

// `col op' bound(x, op)` for one comparison strategy.
Expr *bound_condition(Decoder d, FuncExpr *dec, int strategy, Expr *x) {
    const Functions &f = resolved_functions();
    tk::Family family = d == Decoder::uuid_v7 || d == Decoder::uuid_extract ? tk::Family::uuid_v7
                        : d == Decoder::crid                                ? tk::Family::crid
                                                                            : tk::Family::snowflake;
    Oid fn = family == tk::Family::uuid_v7 ? f.uuid_v7_bound
             : family == tk::Family::crid  ? f.crid_bound
             : d == Decoder::snowflake     ? f.snowflake_bound
                                           : f.snowflake_layout_bound;
    if (!OidIsValid(fn))
        return nullptr;
    Const *op = makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1, CStringGetTextDatum(op_text(strategy)), false, false);
    List *args = list_make2(tk::copy_expr(reinterpret_cast<Node *>(x)), op);
    if (d == Decoder::snowflake_layout)
        args = lappend(args, tk::copy_expr(static_cast<Node *>(lsecond(dec->args))));
    Expr *bound = tk::call(fn, tk::key_type(family), args);
    Expr *col = tk::copy_expr(static_cast<Node *>(linitial(dec->args)));
    bool lower = strategy == BTGreaterEqualStrategyNumber || strategy == BTGreaterStrategyNumber;
    return tk::key_comparison(family, lower ? BTGreaterEqualStrategyNumber : BTLessEqualStrategyNumber, col, bound);
}

// The conjuncts that replace `clause` when it is decoder(col) op x; NIL when
// it is not one (or not safely rewritable).
List *implied_conditions(Node *clause) {
    if (!IsA(clause, OpExpr) || list_length(castNode(OpExpr, clause)->args) != 2)
        return NIL;
    OpExpr *op = castNode(OpExpr, clause);
    Node *left = static_cast<Node *>(linitial(op->args)), *right = static_cast<Node *>(lsecond(op->args));
    Decoder d = decoder_of(left);
    bool decoder_left = d != Decoder::none;
    if (!decoder_left)
        d = decoder_of(right);
    if (d == Decoder::none || !op_in_opfamily(op->opno, datetime_family()))
        return NIL;
    FuncExpr *dec = castNode(FuncExpr, decoder_left ? left : right);
    Node *x = decoder_left ? right : left;
    Node *col = static_cast<Node *>(linitial(dec->args));
    if (!IsA(col, Var) || contain_volatile_functions(x))
        return NIL;
    const core::snowflake::Layout *layout = nullptr;
    if (d == Decoder::snowflake_layout && !(layout = tk::sortable_layout(static_cast<Node *>(lsecond(dec->args)))))
        return NIL;

    int strategy;
    Oid lefttype, righttype;
    get_op_opfamily_properties(op->opno, datetime_family(), false, &strategy, &lefttype, &righttype);
    if (!decoder_left)
        strategy = commuted(strategy);
    Oid xtype = decoder_left ? righttype : lefttype;
    if (xtype != TIMESTAMPTZOID && !converts_to_timestamptz(x, xtype))
        return NIL;
    if (xtype != TIMESTAMPTZOID) // date or timestamp: compared as the timestamptz it converts to
        x = coerce_to_target_type(nullptr, x, xtype, TIMESTAMPTZOID, -1, COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
    if (!x)
        return NIL;

    List *out = NIL;
    Expr *xe = tk::as_expr(x);
    if (strategy == BTEqualStrategyNumber) {
        Expr *lo = bound_condition(d, dec, BTGreaterEqualStrategyNumber, xe);
        Expr *hi = bound_condition(d, dec, BTLessEqualStrategyNumber, xe);
        if (!lo || !hi)
            return NIL;
        out = list_make2(lo, hi);
    } else {
        Expr *one = bound_condition(d, dec, strategy, xe);
        if (!one)
            return NIL;
        out = list_make1(one);
    }
    bool exact = d == Decoder::crid || (d == Decoder::snowflake_layout && decodes_within_timestamptz(*layout)) ||
                 (d == Decoder::snowflake && decodes_within_timestamptz(snowflake::server_layout_or_error()));
    if (exact)
        return out;
    const Functions &f = resolved_functions();
    if (d == Decoder::uuid_v7 && OidIsValid(f.uuid_v7_check))
        return lappend(out, tk::call(f.uuid_v7_check, BOOLOID, list_make1(tk::copy_expr(col))));
    return lappend(out, clause);
}

// The conjuncts without repeats of one crid_uuid_v7_check call: `t >= a AND
// t < b` checks each row's version once.
List *checked_once(List *conjuncts) {
    Oid check = resolved_functions().uuid_v7_check;
    List *out = NIL;
    ListCell *lc;
    foreach (lc, conjuncts) {
        Node *n = static_cast<Node *>(lfirst(lc));
        bool is_check = IsA(n, FuncExpr) && castNode(FuncExpr, n)->funcid == check;
        if (!is_check || !list_member(out, n))
            out = lappend(out, n);
    }
    return out;
}

// The conjuncts `clause` becomes (itself when nothing applies). ANDs are
// flattened; each arm of an OR is a conjunction of its own.
List *rewrite_conjuncts(Node *clause, bool &changed) {
    if (is_andclause(clause)) {
        List *out = NIL;
        ListCell *lc;
        foreach (lc, castNode(BoolExpr, clause)->args)
            out = list_concat(out, rewrite_conjuncts(static_cast<Node *>(lfirst(lc)), changed));
        return out;
    }
    if (is_orclause(clause)) {
        BoolExpr *b = castNode(BoolExpr, clause);
        ListCell *lc;
        foreach (lc, b->args) {
            bool arm_changed = false;
            List *arm = rewrite_conjuncts(static_cast<Node *>(lfirst(lc)), arm_changed);
            if (arm_changed) {
                lfirst(lc) = make_ands_explicit(checked_once(arm));
                changed = true;
            }
        }
        return list_make1(clause);
    }
    List *implied = implied_conditions(clause);
    if (implied == NIL)
        return list_make1(clause);
    changed = true;
    return implied;
}

void rewrite_qual(Node **qual) {
    if (!*qual)
        return;
    bool changed = false;
    List *conjuncts = rewrite_conjuncts(*qual, changed);
    if (changed)
        *qual = tk::as_node(make_ands_explicit(checked_once(conjuncts)));
}

// The WHERE of a FROM list and the ON of its joins, at any depth.
void rewrite_jointree(Node *n) {
    if (!n)
        return;
    if (IsA(n, FromExpr)) {
        FromExpr *f = castNode(FromExpr, n);
        rewrite_qual(&f->quals);
        ListCell *lc;
        foreach (lc, f->fromlist)
            rewrite_jointree(static_cast<Node *>(lfirst(lc)));
    } else if (IsA(n, JoinExpr)) {
        JoinExpr *j = castNode(JoinExpr, n);
        rewrite_qual(&j->quals);
        rewrite_jointree(j->larg);
        rewrite_jointree(j->rarg);
    }
}

bool rewrite_walker(Node *node, void *context);

// The walker as the old-style pointer type PostgreSQL 15's walkers take.
bool (*walker_fn())() { return reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(rewrite_walker)); }

// Every query level: the query itself, subqueries in FROM, CTEs and sublinks.
bool rewrite_walker(Node *node, void *context) {
    if (!node)
        return false;
    if (IsA(node, Query)) {
        Query *q = castNode(Query, node);
        rewrite_jointree(reinterpret_cast<Node *>(q->jointree));
        return query_tree_walker(q, walker_fn(), context, 0);
    }
    return expression_tree_walker(node, walker_fn(), context);
}

// Only PostgreSQL calls and trivially destructible locals below: an ERROR may
// leave through these frames.
PlannedStmt *plan(Query *parse, const char *query_string, int cursor_options, ParamListInfo bound_params) {
    if (enabled && resolved_functions().installed)
        rewrite_walker(reinterpret_cast<Node *>(parse), nullptr);
    if (previous_planner)
        return previous_planner(parse, query_string, cursor_options, bound_params);
    return standard_planner(parse, query_string, cursor_options, bound_params);
}

} // namespace

void init(bool preloading) {
    DefineCustomBoolVariable(
        "crid.time_predicates",
        "Lets decoded-time predicates such as uuid_v7_to_timestamptz(id) >= x use the index on id.",
        "With crid preloaded, the planner adds the id range such a predicate implies.", &enabled, true, PGC_USERSET, 0,
        nullptr, nullptr, nullptr);
    if (preloading) {
        previous_planner = planner_hook;
        planner_hook = plan;
    }
}

} // namespace crid::pg::time_predicates
