// Planner support of pg_uuidv7's uuid_timestamptz_to_v7(at, zero) and
// uuid_timestamp_to_v7(at, zero). Both are VOLATILE, as they are: with zero
// false they draw a random tail, so two calls differ. With zero a constant
// true the result is the smallest version 7 UUID of at's millisecond, a
// function of `at` alone: SupportRequestSimplify replaces the call by
// crid_uuid_v7_zero(at), the same C function declared IMMUTABLE STRICT (a
// constant `at` is folded into the UUID), so that
// `WHERE id >= uuid_timestamptz_to_v7(t, true)` is a condition of the
// primary key's index, as under pg_uuidv7, which declares both STABLE.
#include "common/postgres_headers.hpp"

#include "queries_by_time/time_keys.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
}

using namespace crid;
namespace by_time = crid::pg::queries_by_time;

namespace {

Node *simplify(SupportRequestSimplify *req) {
    List *args = req->fcall->args;
    if (list_length(args) != 2)
        return nullptr;
    Node *zero = static_cast<Node *>(lsecond(args));
    if (!IsA(zero, Const) || castNode(Const, zero)->constisnull || !DatumGetBool(castNode(Const, zero)->constvalue))
        return nullptr;
    Node *at = static_cast<Node *>(linitial(args));
    Oid at_type = exprType(at);
    Oid fn = by_time::function_in(get_func_namespace(req->fcall->funcid), "crid_uuid_v7_zero", 1, &at_type);
    if (!OidIsValid(fn))
        return nullptr;
    if (IsA(at, Const)) {
        Const *c = castNode(Const, at);
        if (c->constisnull)
            return reinterpret_cast<Node *>(makeNullConst(UUIDOID, -1, InvalidOid));
        // An infinite time stays a call: its ERROR belongs to the execution.
        if (TIMESTAMP_NOT_FINITE(DatumGetTimestampTz(c->constvalue)))
            return by_time::as_node(by_time::call(fn, UUIDOID, list_make1(by_time::copy_expr(at))));
        return by_time::as_node(
            evaluate_expr(by_time::call(fn, UUIDOID, list_make1(by_time::copy_expr(at))), UUIDOID, -1, InvalidOid));
    }
    return by_time::as_node(by_time::call(fn, UUIDOID, list_make1(by_time::copy_expr(at))));
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_uuid_v7_zero_support);

Datum crid_uuid_v7_zero_support(PG_FUNCTION_ARGS) {
    Node *request = reinterpret_cast<Node *>(PG_GETARG_POINTER(0));
    Node *out = nullptr;
    if (IsA(request, SupportRequestSimplify))
        out = simplify(reinterpret_cast<SupportRequestSimplify *>(request));
    PG_RETURN_POINTER(out);
}
}
