#include "sequences/sequence_plans.hpp"

#include "sequences/converted_sequences.hpp"

extern "C" {
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/planner.h"
#include "utils/fmgroids.h"
#include "utils/syscache.h"
}

namespace crid::pg::sequences {

namespace {

planner_hook_type previous_planner = nullptr;

bool sequence_call(Node *node) {
    if (IsA(node, NextValueExpr))
        return true;
    if (!IsA(node, FuncExpr))
        return false;
    Oid fn = castNode(FuncExpr, node)->funcid;
    return fn == F_NEXTVAL || fn == F_CURRVAL || fn == F_LASTVAL;
}

bool find_walker(Node *node, void *context);
bool (*find_fn())() { return reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(find_walker)); }

// True when some query level holds a call the hook may rewrite.
bool find_walker(Node *node, void *context) {
    if (!node)
        return false;
    if (sequence_call(node))
        return true;
    if (IsA(node, Query))
        return query_tree_walker(castNode(Query, node), find_fn(), context, 0);
    return expression_tree_walker(node, find_fn(), context);
}

// Whether a call of nextval() or currval() goes to crid's function: a
// constant naming a converted sequence (the plan then depends on it), or
// an argument only known when it runs (crid's function serves either kind).
bool served_by_crid(Node *arg) {
    if (!arg || !IsA(arg, Const))
        return true;
    const Const *c = castNode(Const, arg);
    return !c->constisnull && c->consttype == REGCLASSOID && entry_of(DatumGetObjectId(c->constvalue))->converted;
}

Node *call_on(Oid fn, Oid seq, int location) {
    Const *arg = makeConst(REGCLASSOID, -1, InvalidOid, sizeof(Oid), ObjectIdGetDatum(seq), false, true);
    FuncExpr *f = makeFuncExpr(fn, INT8OID, list_make1(arg), InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
    f->location = location;
    return reinterpret_cast<Node *>(f);
}

Node *rewrite_mutator(Node *node, void *context);
Node *(*rewrite_fn())() { return reinterpret_cast<Node *(*)()>(reinterpret_cast<void (*)()>(rewrite_mutator)); }

Node *rewrite_mutator(Node *node, void *context) {
    if (!node)
        return nullptr;
    if (IsA(node, Query))
        return reinterpret_cast<Node *>(query_tree_mutator(castNode(Query, node), rewrite_fn(), context, 0));
    const Objects &o = objects();
    if (IsA(node, NextValueExpr)) {
        NextValueExpr *n = castNode(NextValueExpr, node);
        // Conversion refuses columns other than bigint; one altered since
        // keeps PostgreSQL's expression, which the sequence refuses.
        if (n->typeId == INT8OID && entry_of(n->seqid)->converted)
            return call_on(o.identity, n->seqid, -1);
        return static_cast<Node *>(copyObjectImpl(n));
    }
    if (IsA(node, FuncExpr)) {
        FuncExpr *f = castNode(FuncExpr, node);
        Oid replacement = InvalidOid;
        if ((f->funcid == F_NEXTVAL || f->funcid == F_CURRVAL) && list_length(f->args) == 1 &&
            served_by_crid(static_cast<Node *>(linitial(f->args))))
            replacement = f->funcid == F_NEXTVAL ? o.nextval : o.currval;
        else if (f->funcid == F_LASTVAL)
            replacement = o.lastval;
        if (OidIsValid(replacement)) {
            FuncExpr *copy = static_cast<FuncExpr *>(copyObjectImpl(f));
            copy->funcid = replacement;
            return reinterpret_cast<Node *>(copy);
        }
    }
    return expression_tree_mutator(node, rewrite_fn(), context);
}

// True for a SQL function whose body may call nextval(), currval() or
// lastval(): PostgreSQL would inline it into the statement being planned,
// after the hook looked at it, so such a function is kept a call while a
// statement is planned in a database with crid; its own statement is then
// planned through the hook when it runs.
bool may_call_sequences(Oid fn) {
    HeapTuple tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
    if (!HeapTupleIsValid(tuple))
        return false;
    bool found = false;
    if (reinterpret_cast<Form_pg_proc>(GETSTRUCT(tuple))->prolang == SQLlanguageId) {
        bool isnull = true;
        Datum body = SysCacheGetAttr(PROCOID, tuple, Anum_pg_proc_prosrc, &isnull);
        if (!isnull) {
            const char *src = TextDatumGetCString(body);
            found = strcasestr(src, "nextval") || strcasestr(src, "currval") || strcasestr(src, "lastval");
        }
    }
    ReleaseSysCache(tuple);
    return found;
}

int planning_depth = 0;
needs_fmgr_hook_type previous_needs_fmgr = nullptr;

bool needs_fmgr(Oid fn) {
    if (previous_needs_fmgr && previous_needs_fmgr(fn))
        return true;
    return planning_depth > 0 && may_call_sequences(fn) && objects().installed;
}

// Plans with planning_depth counting it. Only PostgreSQL calls and
// trivially destructible locals: an ERROR may leave through this frame.
PlannedStmt *plan_counted(Query *parse, const char *query_string, int cursor_options, ParamListInfo bound_params) {
    PlannedStmt *stmt;
    ++planning_depth;
    PG_TRY();
    {
        stmt = previous_planner ? previous_planner(parse, query_string, cursor_options, bound_params)
                                : standard_planner(parse, query_string, cursor_options, bound_params);
    }
    PG_CATCH();
    {
        --planning_depth;
        PG_RE_THROW();
    }
    PG_END_TRY();
    --planning_depth;
    return stmt;
}

PlannedStmt *plan(Query *parse, const char *query_string, int cursor_options, ParamListInfo bound_params) {
    if (find_walker(reinterpret_cast<Node *>(parse), nullptr) && objects().installed)
        parse = reinterpret_cast<Query *>(rewrite_mutator(reinterpret_cast<Node *>(parse), nullptr));
    return plan_counted(parse, query_string, cursor_options, bound_params);
}

} // namespace

void install_plan_hook() {
    previous_planner = planner_hook;
    planner_hook = plan;
    previous_needs_fmgr = needs_fmgr_hook;
    needs_fmgr_hook = needs_fmgr;
}

} // namespace crid::pg::sequences
