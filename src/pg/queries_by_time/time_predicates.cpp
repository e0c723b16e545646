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
// with decoder one of uuid_v7_to_timestamptz, uuid_extract_timestamp (crid's,
// or core's where it reads version 7: from PostgreSQL 18 on),
// snowflake_to_timestamptz (server layout, or a constant layout whose ids
// sort by time) and crid_to_timestamptz, and writes the id conditions it
// implies:
//
//   col >= *_time_bound(x, '>=')  ...  col <= *_time_bound(x, '<=')
//
// A rewrite never changes a query's answer. For every row the conditions
// that replace the predicate give what it gives, its ERROR included, in any
// order the executor evaluates them: the id range lets through every row on
// which the predicate is true or raises, and what stands beside the range
// raises where the decoder raises.
//
// - Snowflake and crid ids map to their time exactly, but the decoders raise
//   for a negative id. The range keeps an arm for those, `(col < 0 OR col >=
//   first)`, and `col <= COALESCE(last, -1)` lets them through when no id's
//   time qualifies or x is NULL; beside it crid_snowflake_check(col) or
//   crid_crid_check(col) raises the decoder's ERROR for them and is true for
//   every other id. A validated CHECK constraint implying col >= 0 (such as
//   CHECK (id >= 0)) says the column holds no such id: the range is then
//   plain, `col >= first`, and nothing stands beside it. Layouts whose times
//   go past timestamptz's end (wide custom ones) are left as written.
// - A UUID of another version may sort anywhere among the version 7 ones, so
//   no range lets through every row uuid_v7_to_timestamptz raises for, or
//   every version 1 row uuid_extract_timestamp reads. Their predicates are
//   rewritten only where a validated CHECK constraint says what the column
//   holds: CHECK (crid_uuid_v7_check(id)), version 7 only, gives both the
//   plain range; CHECK (uuid_extract_version(id) = 7), no other RFC version,
//   gives uuid_extract_timestamp's the range with the predicate beside it
//   (for ids of other variants, whose time it gives as NULL).
// - x is compared as the predicate compares it: the bounds of a date or
//   timestamp come from functions of that type, which take one beyond
//   timestamptz's range as later (or earlier) than every time, as the
//   cross-type comparison does, instead of failing to convert it. An x that
//   is NULL when planned (a NULL constant, a parameter of a custom plan) is
//   left as written: the planner folds the predicate to NULL.
//
// Only conjunctions are rewritten, where NULL and false select alike, and
// only when x and col are not volatile (each is evaluated once per new
// condition). Because the conditions are ordinary id comparisons present
// before planning, B-tree index scans, partition pruning (also at executor
// start for parameters of generic plans) and row estimates follow. Queries
// without these predicates are not touched at all. SET crid.time_predicates =
// off turns the hook off for a session, and invalidates its cached plans.
#include "common/postgres_headers.hpp"

#include "common/extension_schema.hpp"
#include "common/minting.hpp"
#include "common/pg_compat.hpp"
#include "snowflake/snowflake_settings.hpp"
#include "queries_by_time/time_keys.hpp"
#include "queries_by_time/time_predicates.hpp"

#include "core/time_units.hpp"

extern "C" {
#include "access/stratnum.h"
#include "access/genam.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_opfamily_d.h"
#include "catalog/pg_proc_d.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace crid::pg::queries_by_time {

namespace {

bool enabled = true;
planner_hook_type previous_planner = nullptr;

enum class Decoder { none, uuid_v7, uuid_extract, snowflake, snowflake_layout, crid };

// The types x may have, in the order of the bound functions' overloads.
enum Comparand { at_timestamptz, at_date, at_timestamp, comparands };

// crid's functions in this database, resolved once per backend and again
// after any change to pg_proc (CREATE/DROP/ALTER EXTENSION among others).
// A function missing (an older extension version) leaves the predicates that
// need it as written.
struct Functions {
    bool resolved = false;
    bool installed = false; // CREATE EXTENSION crid was run in this database
    Oid uuid_v7 = InvalidOid, uuid_extract = InvalidOid, snowflake = InvalidOid, snowflake_layout = InvalidOid,
        crid = InvalidOid;
    // *_time_bound(x, op [, layout]) by decoder and type of x.
    Oid uuid_v7_bound[comparands] = {}, snowflake_bound[comparands] = {}, snowflake_layout_bound[comparands] = {},
        crid_bound[comparands] = {};
    Oid snowflake_check = InvalidOid, snowflake_layout_check = InvalidOid, crid_check = InvalidOid;
    Oid uuid_v7_check = InvalidOid;
    // crid's and core's, where each exists: a CHECK constraint may name either.
    Oid uuid_extract_versions[2] = {InvalidOid, InvalidOid};
} functions;
bool callback_registered = false;

void forget_functions(Datum, int, uint32) { functions.resolved = false; }

// name(x, text [, text]) for x of each comparand type.
void resolve_bounds(Oid nsp, const char *name, bool layout, Oid (&out)[comparands]) {
    const Oid types[comparands] = {TIMESTAMPTZOID, DATEOID, TIMESTAMPOID};
    for (int c = 0; c < comparands; ++c) {
        const Oid args[] = {types[c], TEXTOID, TEXTOID};
        out[c] = function_in(nsp, name, layout ? 3 : 2, args);
    }
}

const Functions &resolved_functions() {
    if (functions.resolved)
        return functions;
    if (!callback_registered) {
        CacheRegisterSyscacheCallback(PROCOID, forget_functions, 0);
        callback_registered = true;
    }
    Functions f;
    Oid nsp = pg::crid_schema();
    if (OidIsValid(nsp)) {
        f.installed = true;
        const Oid uuid_arg[] = {UUIDOID}, bigint_arg[] = {INT8OID}, bigint_text[] = {INT8OID, TEXTOID};
        f.uuid_v7 = function_in(nsp, "uuid_v7_to_timestamptz", 1, uuid_arg);
        f.uuid_extract = function_in(nsp, "uuid_extract_timestamp", 1, uuid_arg);
        f.snowflake = function_in(nsp, "snowflake_to_timestamptz", 1, bigint_arg);
        f.snowflake_layout = function_in(nsp, "snowflake_to_timestamptz", 2, bigint_text);
        f.crid = function_in(nsp, "crid_to_timestamptz", 1, bigint_arg);
        resolve_bounds(nsp, "uuid_v7_time_bound", false, f.uuid_v7_bound);
        resolve_bounds(nsp, "snowflake_time_bound", false, f.snowflake_bound);
        resolve_bounds(nsp, "snowflake_time_bound", true, f.snowflake_layout_bound);
        resolve_bounds(nsp, "crid_time_bound", false, f.crid_bound);
        f.snowflake_check = function_in(nsp, "crid_snowflake_check", 1, bigint_arg);
        f.snowflake_layout_check = function_in(nsp, "crid_snowflake_check", 2, bigint_text);
        f.crid_check = function_in(nsp, "crid_crid_check", 1, bigint_arg);
        f.uuid_v7_check = function_in(nsp, "crid_uuid_v7_check", 1, uuid_arg);
        f.uuid_extract_versions[0] = function_in(nsp, "uuid_extract_version", 1, uuid_arg);
        f.uuid_extract_versions[1] = compat::core_uuid_extract_version;
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
    // Core's where it reads version 7, as crid's does (only where crid is
    // installed: the bounds are crid's functions).
    if (fn == f.uuid_extract || (f.installed && fn == compat::core_uuid_extract_timestamp_v7))
        return Decoder::uuid_extract;
    if (fn == f.snowflake)
        return Decoder::snowflake;
    if (fn == f.snowflake_layout)
        return Decoder::snowflake_layout;
    if (fn == f.crid)
        return Decoder::crid;
    return Decoder::none;
}

bool uuid_decoder(Decoder d) { return d == Decoder::uuid_v7 || d == Decoder::uuid_extract; }

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
// then snowflake_to_timestamptz raises for negative ids only.
bool decodes_within_timestamptz(const core::snowflake::Layout &layout) {
    constexpr int64_t last_timestamptz_unix_ms = END_TIMESTAMP / 1000 + core::pg_epoch_unix_us / 1000 - 1;
    return core::snowflake::last_unix_ms(layout) <= last_timestamptz_unix_ms;
}

// What the planner's folding functions need of a plan being made: the
// values of a custom plan's parameters.
PlannerInfo *bare_root(ParamListInfo bound_params) {
    PlannerGlobal *glob = makeNode(PlannerGlobal);
    glob->boundParams = bound_params;
    PlannerInfo *root = makeNode(PlannerInfo);
    root->glob = glob;
    return root;
}

// Whether x is NULL once the planner folds it (with the values of a custom
// plan's parameters): the planner then folds the predicate to NULL, which
// the rewrite must not turn into conditions that a negative id passes.
bool folds_to_null(Node *x, ParamListInfo bound_params) {
    Node *folded = eval_const_expressions(bare_root(bound_params), static_cast<Node *>(copyObjectImpl(x)));
    return IsA(folded, Const) && castNode(Const, folded)->constisnull;
}

// --- What a CHECK constraint says about a column ------------------------------

// A column of a table: where the values of a query's Var come from.
struct BaseColumn {
    Oid relid = InvalidOid;
    AttrNumber attno = InvalidAttrNumber;
};

// The table column whose values (or NULL) a Var of query `q` carries: its
// own table's, or through subqueries (views) and join aliases whose output
// is a plain column. False when it comes from anything else.
bool base_column(Query *q, Var *v, BaseColumn &out, int depth = 0) {
    if (v->varlevelsup != 0 || v->varattno <= 0 || depth > 16 || int(v->varno) > list_length(q->rtable))
        return false;
    RangeTblEntry *rte = rt_fetch(v->varno, q->rtable);
    if (rte->rtekind == RTE_RELATION) {
        out = BaseColumn{rte->relid, v->varattno};
        return true;
    }
    Node *inner = nullptr;
    Query *inner_query = q;
    if (rte->rtekind == RTE_SUBQUERY && rte->subquery && !rte->subquery->setOperations) {
        TargetEntry *te = get_tle_by_resno(rte->subquery->targetList, v->varattno);
        inner = te ? reinterpret_cast<Node *>(te->expr) : nullptr;
        inner_query = rte->subquery;
    } else if (rte->rtekind == RTE_JOIN && v->varattno <= list_length(rte->joinaliasvars)) {
        inner = static_cast<Node *>(list_nth(rte->joinaliasvars, v->varattno - 1));
    }
    return inner && IsA(inner, Var) && base_column(inner_query, castNode(Var, inner), out, depth + 1);
}

// The validated CHECK constraints of a table that hold for every row a
// query of it reads (NO INHERIT ones may not hold in its children), as
// implicitly ANDed clauses over Vars of range table index 1.
List *check_constraints(Oid relid) {
    Relation rel = table_open(relid, NoLock); // the parser locked it
    TupleConstr *constr = rel->rd_att->constr;
    List *out = NIL;
    for (int i = 0; constr && i < constr->num_check; ++i) {
        const ConstrCheck &c = constr->check[i];
        if (!c.ccvalid || c.ccnoinherit)
            continue;
        Node *e = eval_const_expressions(nullptr, static_cast<Node *>(stringToNode(c.ccbin)));
        out = list_concat(out, make_ands_implicit(canonicalize_qual(as_expr(e), true)));
    }
    table_close(rel, NoLock);
    return out;
}

// A Var of range table index 1 for the column, as its CHECK constraints name it.
Expr *column_var(const BaseColumn &c) {
    Oid type, collation;
    int32 typmod;
    get_atttypetypmodcoll(c.relid, c.attno, &type, &typmod, &collation);
    return &makeVar(1, c.attno, type, typmod, collation, 0)->xpr;
}

// The column a decoder reads: a Var, or a Var of a type binary-coercible to
// bigint (crid's bigid, a domain over bigint) that the parser relabeled to
// bigint, whose index (int8_ops) the range condition then uses alike.
Var *decoded_column(Node *col) {
    if (IsA(col, RelabelType) && castNode(RelabelType, col)->resulttype == INT8OID)
        col = reinterpret_cast<Node *>(castNode(RelabelType, col)->arg);
    return IsA(col, Var) ? castNode(Var, col) : nullptr;
}

// What the constraints of a column say, as far as the rewrite asks.
struct ColumnFacts {
    bool not_negative = false;     // bigint: col >= 0 (or NULL)
    bool at_most = false;          // bigint: col <= the `at_most` asked for (or NULL)
    bool uuid_v7_only = false;     // uuid: crid_uuid_v7_check(col) holds
    bool no_other_version = false; // uuid: uuid_extract_version(col) = 7 (or NULL)
};

// Whether every row satisfies `fact` (or makes it NULL), by the constraints.
bool implied(Expr *fact, List *constraints) {
    return constraints != NIL && predicate_implied_by(list_make1(fact), constraints, true);
}

ColumnFacts column_facts(Query *q, Node *col, bool uuid, int64_t at_most = 0) {
    ColumnFacts facts;
    BaseColumn c;
    Var *col_var = decoded_column(col);
    if (!col_var || !base_column(q, col_var, c))
        return facts;
    List *constraints = check_constraints(c.relid);
    if (constraints == NIL)
        return facts;
    const Functions &f = resolved_functions();
    Expr *var = column_var(c);
    if (!uuid) {
        // A bigid column's constraints read it as the bigint it relabels to.
        if (exprType(reinterpret_cast<Node *>(var)) != INT8OID)
            var = &makeRelabelType(var, INT8OID, -1, InvalidOid, COERCE_IMPLICIT_CAST)->xpr;
        Const *zero = makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(0), false, FLOAT8PASSBYVAL);
        facts.not_negative =
            implied(key_comparison(Family::snowflake, BTGreaterEqualStrategyNumber, var, &zero->xpr), constraints);
        if (at_most > 0) {
            Const *top =
                makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(at_most), false, FLOAT8PASSBYVAL);
            facts.at_most = implied(
                key_comparison(Family::snowflake, BTLessEqualStrategyNumber, copy_expr(as_node(var)), &top->xpr),
                constraints);
        }
        return facts;
    }
    if (OidIsValid(f.uuid_v7_check))
        facts.uuid_v7_only = implied(call(f.uuid_v7_check, BOOLOID, list_make1(var)), constraints);
    for (Oid uuid_extract_version : f.uuid_extract_versions) {
        if (!OidIsValid(uuid_extract_version) || facts.uuid_v7_only || facts.no_other_version)
            continue;
        Oid eq = get_opfamily_member(INTEGER_BTREE_FAM_OID, INT2OID, INT2OID, BTEqualStrategyNumber);
        Const *seven = makeConst(INT2OID, -1, InvalidOid, sizeof(int16), Int16GetDatum(7), false, true);
        Expr *version = call(uuid_extract_version, INT2OID, list_make1(copy_expr(as_node(var))));
        Expr *fact = make_opclause(eq, BOOLOID, false, version, &seven->xpr, InvalidOid, InvalidOid);
        castNode(OpExpr, fact)->opfuncid = get_opcode(eq);
        facts.no_other_version = implied(fact, constraints);
    }
    facts.no_other_version = facts.no_other_version || facts.uuid_v7_only;
    return facts;
}

// --- The conditions ------------------------------------------------------------

// One predicate being rewritten.
struct Predicate {
    Decoder decoder;
    FuncExpr *call;       // decoder(col [, layout])
    Expr *x;              // what its time is compared with
    Comparand type;       // x's type
    bool guard_negatives; // keep negative ids in the range, for the check beside it
};

Family family_of(Decoder d) {
    return uuid_decoder(d) ? Family::uuid_v7 : d == Decoder::crid ? Family::crid : Family::snowflake;
}

Node *column_of(const Predicate &p) { return static_cast<Node *>(linitial(p.call->args)); }

// A bound of the server's snowflake or crid layout for a timestamptz
// constant, as the constant it is: with crid preloaded those layouts are
// fixed until the server stops, and a timestamptz does not depend on
// TimeZone, so every plan would compute the one value. The planner folds
// only IMMUTABLE calls, and partitions are pruned at plan time only by
// constants; the STABLE call would prune them at executor start.
bool fold_at_plan_time(const Predicate &p) {
    return (p.decoder == Decoder::snowflake || p.decoder == Decoder::crid) && p.type == at_timestamptz &&
           IsA(p.x, Const) && pg::preloaded();
}

// The value of a call of crid's bound functions with constant arguments
// (estimate_expression_value folds STABLE calls as well). The functions
// return a key or NULL for every timestamptz, never an ERROR.
Expr *folded(Expr *e) { return as_expr(estimate_expression_value(bare_root(nullptr), as_node(e))); }

// *_time_bound(x, op [, layout]) for one comparison strategy, or nullptr
// when that function is missing.
Expr *bound(const Predicate &p, int strategy) {
    const Functions &f = resolved_functions();
    const Oid(&fns)[comparands] = uuid_decoder(p.decoder)           ? f.uuid_v7_bound
                                  : p.decoder == Decoder::crid      ? f.crid_bound
                                  : p.decoder == Decoder::snowflake ? f.snowflake_bound
                                                                    : f.snowflake_layout_bound;
    Oid fn = fns[p.type];
    if (!OidIsValid(fn))
        return nullptr;
    Const *op = makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1, CStringGetTextDatum(op_text(strategy)), false, false);
    List *args = list_make2(copy_expr(as_node(p.x)), op);
    if (p.decoder == Decoder::snowflake_layout)
        args = lappend(args, copy_expr(static_cast<Node *>(lsecond(p.call->args))));
    Expr *e = call(fn, key_type(family_of(p.decoder)), args);
    return fold_at_plan_time(p) ? folded(e) : e;
}

Const *bigint_const(int64_t v) {
    return makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(v), false, FLOAT8PASSBYVAL);
}

// `col >= first` for > and >=, `col <= last` for < and <=; with negative ids
// guarded, `(col < 0 OR col >= first)` and `col <= COALESCE(last, -1)`, so
// that every negative id meets the check beside the range.
Expr *bound_condition(const Predicate &p, int strategy) {
    Expr *b = bound(p, strategy);
    if (!b)
        return nullptr;
    Family family = family_of(p.decoder);
    Expr *col = copy_expr(column_of(p));
    if (strategy == BTGreaterEqualStrategyNumber || strategy == BTGreaterStrategyNumber) {
        Expr *range = key_comparison(family, BTGreaterEqualStrategyNumber, col, b);
        if (!p.guard_negatives)
            return range;
        Expr *negative = key_comparison(family, BTLessStrategyNumber, copy_expr(column_of(p)), &bigint_const(0)->xpr);
        return make_orclause(list_make2(negative, range));
    }
    if (p.guard_negatives) {
        CoalesceExpr *c = makeNode(CoalesceExpr);
        c->coalescetype = INT8OID;
        c->coalescecollid = InvalidOid;
        c->args = list_make2(b, bigint_const(-1));
        c->location = -1;
        b = &c->xpr;
    }
    return key_comparison(family, BTLessEqualStrategyNumber, col, b);
}

// crid_snowflake_check(col [, layout]) or crid_crid_check(col): the decoder's
// ERROR for the negative ids the range lets through.
Expr *negative_check(const Predicate &p) {
    const Functions &f = resolved_functions();
    Oid fn = p.decoder == Decoder::crid        ? f.crid_check
             : p.decoder == Decoder::snowflake ? f.snowflake_check
                                               : f.snowflake_layout_check;
    if (!OidIsValid(fn))
        return nullptr;
    List *args = list_make1(copy_expr(column_of(p)));
    if (p.decoder == Decoder::snowflake_layout)
        args = lappend(args, copy_expr(static_cast<Node *>(lsecond(p.call->args))));
    return call(fn, BOOLOID, args);
}

// Whether the decoder of `p` raises for nothing but negative ids (checked
// beside the range, or ruled out by a constraint).
bool raises_for_negatives_only(const Predicate &p) {
    if (p.decoder == Decoder::crid)
        return true;
    if (p.decoder == Decoder::snowflake)
        return decodes_within_timestamptz(snowflake::server_layout_or_error());
    const core::snowflake::Layout *layout = sortable_layout(static_cast<Node *>(lsecond(p.call->args)));
    return layout && decodes_within_timestamptz(*layout);
}

// A layout of fewer bits (bits=53) also raises for ids above its largest,
// which an id range below them would pass over: the largest id of such a
// layout, which a CHECK constraint must rule out for the rewrite; 0 for
// other layouts and families.
int64_t narrowed_max_id(const Predicate &p) {
    if (p.decoder != Decoder::snowflake && p.decoder != Decoder::snowflake_layout)
        return 0;
    const core::snowflake::Layout *layout = p.decoder == Decoder::snowflake
                                                ? &snowflake::server_layout_or_error()
                                                : sortable_layout(static_cast<Node *>(lsecond(p.call->args)));
    return layout && layout->width != 0 ? core::snowflake::max_id(*layout) : 0;
}

// The conjuncts that replace `clause` when it is decoder(col) op x; NIL when
// it is not one, or when no rewrite keeps its answer.
List *implied_conditions(Query *q, Node *clause, ParamListInfo bound_params) {
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
    if (!decoded_column(col) || contain_volatile_functions(x))
        return NIL;
    if (d == Decoder::snowflake_layout && !sortable_layout(static_cast<Node *>(lsecond(dec->args))))
        return NIL;

    int strategy;
    Oid lefttype, righttype;
    get_op_opfamily_properties(op->opno, datetime_family(), false, &strategy, &lefttype, &righttype);
    if (!decoder_left)
        strategy = commuted(strategy);
    Oid xtype = decoder_left ? righttype : lefttype;
    Comparand type = xtype == DATEOID ? at_date : xtype == TIMESTAMPOID ? at_timestamp : at_timestamptz;
    if (folds_to_null(x, bound_params))
        return NIL;

    Predicate p{d, dec, as_expr(x), type, false};
    const int64_t narrowed_max = narrowed_max_id(p);
    ColumnFacts facts = column_facts(q, col, uuid_decoder(d), narrowed_max);
    Expr *beside = nullptr; // what must stand beside the range
    if (d == Decoder::uuid_v7) {
        if (!facts.uuid_v7_only)
            return NIL;
    } else if (d == Decoder::uuid_extract) {
        if (!facts.no_other_version)
            return NIL;
        if (!facts.uuid_v7_only) // another variant's id may lie in the range: its time is NULL
            beside = as_expr(clause);
    } else {
        if (!raises_for_negatives_only(p))
            return NIL;
        // A narrowed layout: only where constraints keep every id within it
        // (CHECK (id BETWEEN 0 AND 9007199254740991)) is the range exact.
        if (narrowed_max != 0 && !(facts.not_negative && facts.at_most))
            return NIL;
        p.guard_negatives = !facts.not_negative;
        if (p.guard_negatives && !(beside = negative_check(p)))
            return NIL;
    }

    List *out = NIL;
    if (strategy == BTEqualStrategyNumber) {
        Expr *lo = bound_condition(p, BTGreaterEqualStrategyNumber);
        Expr *hi = bound_condition(p, BTLessEqualStrategyNumber);
        if (!lo || !hi)
            return NIL;
        out = list_make2(lo, hi);
    } else {
        Expr *one = bound_condition(p, strategy);
        if (!one)
            return NIL;
        out = list_make1(one);
    }
    return beside ? lappend(out, beside) : out;
}

// The conjuncts without repeats: `t >= a AND t < b` checks each row once.
List *checked_once(List *conjuncts) {
    List *out = NIL;
    ListCell *lc;
    foreach (lc, conjuncts) {
        Node *n = static_cast<Node *>(lfirst(lc));
        if (!list_member(out, n))
            out = lappend(out, n);
    }
    return out;
}

// What a rewrite needs to know while it walks a query.
struct Walk {
    ParamListInfo bound_params;
};

// The conjuncts `clause` becomes (itself when nothing applies). ANDs are
// flattened; each arm of an OR is a conjunction of its own.
List *rewrite_conjuncts(Query *q, Node *clause, const Walk &walk, bool &changed) {
    if (is_andclause(clause)) {
        List *out = NIL;
        ListCell *lc;
        foreach (lc, castNode(BoolExpr, clause)->args)
            out = list_concat(out, rewrite_conjuncts(q, static_cast<Node *>(lfirst(lc)), walk, changed));
        return out;
    }
    if (is_orclause(clause)) {
        BoolExpr *b = castNode(BoolExpr, clause);
        ListCell *lc;
        foreach (lc, b->args) {
            bool arm_changed = false;
            List *arm = rewrite_conjuncts(q, static_cast<Node *>(lfirst(lc)), walk, arm_changed);
            if (arm_changed) {
                lfirst(lc) = make_ands_explicit(checked_once(arm));
                changed = true;
            }
        }
        return list_make1(clause);
    }
    List *implied = implied_conditions(q, clause, walk.bound_params);
    if (implied == NIL)
        return list_make1(clause);
    changed = true;
    return implied;
}

void rewrite_qual(Query *q, Node **qual, const Walk &walk) {
    if (!*qual)
        return;
    bool changed = false;
    List *conjuncts = rewrite_conjuncts(q, *qual, walk, changed);
    if (changed)
        *qual = as_node(make_ands_explicit(checked_once(conjuncts)));
}

// The WHERE of a FROM list and the ON of its joins, at any depth.
void rewrite_jointree(Query *q, Node *n, const Walk &walk) {
    if (!n)
        return;
    if (IsA(n, FromExpr)) {
        FromExpr *f = castNode(FromExpr, n);
        rewrite_qual(q, &f->quals, walk);
        ListCell *lc;
        foreach (lc, f->fromlist)
            rewrite_jointree(q, static_cast<Node *>(lfirst(lc)), walk);
    } else if (IsA(n, JoinExpr)) {
        JoinExpr *j = castNode(JoinExpr, n);
        rewrite_qual(q, &j->quals, walk);
        rewrite_jointree(q, j->larg, walk);
        rewrite_jointree(q, j->rarg, walk);
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
        rewrite_jointree(q, reinterpret_cast<Node *>(q->jointree), *static_cast<const Walk *>(context));
        return query_tree_walker(q, walker_fn(), context, 0);
    }
    return expression_tree_walker(node, walker_fn(), context);
}

// Only PostgreSQL calls and trivially destructible locals below: an ERROR may
// leave through these frames.
PlannedStmt *plan(Query *parse, const char *query_string, int cursor_options, ParamListInfo bound_params) {
    if (enabled && resolved_functions().installed) {
        Walk walk{bound_params};
        rewrite_walker(reinterpret_cast<Node *>(parse), &walk);
    }
    if (previous_planner)
        return previous_planner(parse, query_string, cursor_options, bound_params);
    return standard_planner(parse, query_string, cursor_options, bound_params);
}

// A cached plan keeps the rewrite it was planned with: turning the setting
// on or off plans again every statement cached in this session.
void assign_enabled(bool value, void *) {
    if (value != enabled)
        ResetPlanCache();
}

} // namespace

void init(bool preloading) {
    DefineCustomBoolVariable(
        "crid.time_predicates",
        "Lets decoded-time predicates such as uuid_v7_to_timestamptz(id) >= x use the index on id.",
        "With crid preloaded, the planner adds the id range such a predicate implies; changing it plans cached "
        "statements again.",
        &enabled, true, PGC_USERSET, 0, nullptr, assign_enabled, nullptr);
    if (preloading) {
        previous_planner = planner_hook;
        planner_hook = plan;
    }
}

} // namespace crid::pg::queries_by_time
