#include "queries_by_time/time_keys.hpp"

#include "common/boundary.hpp"
#include "common/extension_schema.hpp"
#include "crid_ids/crid_ids_settings.hpp"
#include "common/args.hpp"

#include <string>

extern "C" {
#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "utils/syscache.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/pg_list.h"
#include "nodes/value.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"
}

namespace crid::pg::queries_by_time {

namespace tr = core::time_range;

namespace {

tr::End end_of(const RangeBound &b) {
    if (b.infinite)
        return tr::End{};
    return tr::End{b.inclusive ? tr::End::Kind::inclusive : tr::End::Kind::exclusive, DatumGetTimestampTz(b.val)};
}

// The grid of a keyspace; for snowflake, after checking that its ids sort by
// time (C++ only: call inside guarded()).
tr::Grid grid_of(const Keyspace &ks) {
    switch (ks.family) {
    case Family::uuid_v7:
        return tr::uuid_v7::grid();
    case Family::snowflake:
        tr::snowflake::check_sorted_by_time(*ks.layout);
        return tr::snowflake::grid(*ks.layout);
    case Family::crid:
        break;
    }
    return tr::crid_ids::grid(crid_ids::layout());
}

// The one parsed layout sortable_layout() hands out; globals, so no C++
// object with a destructor lives in a frame ereport may leave.
std::string planner_layout_text;
core::snowflake::Layout planner_layout;
bool planner_layout_valid = false;

} // namespace

Oid key_type(Family family) { return family == Family::uuid_v7 ? UUIDOID : INT8OID; }

RangeEnds range_ends(RangeType *range) {
    TypeCacheEntry *tc = lookup_type_cache(RangeTypeGetOid(range), TYPECACHE_RANGE_INFO);
    RangeBound lower, upper;
    bool empty;
    range_deserialize(tc, range, &lower, &upper, &empty);
    return RangeEnds{empty, end_of(lower), end_of(upper)};
}

Span span_of_range(const Keyspace &ks, const RangeEnds &ends) {
    if (ends.empty)
        return std::nullopt;
    return guarded([&] { return tr::units_between(grid_of(ks), ends.lower, ends.upper); });
}

Span span_of_comparison(const Keyspace &ks, tr::Op op, TimestampTz at) {
    return guarded([&] { return tr::units_where(grid_of(ks), op, at); });
}

Keys keys_of(const Keyspace &ks, const Span &span) {
    if (ks.family == Family::uuid_v7) {
        core::Uuid first, last; // no span: (ffff..., 0000...)
        first.bytes.fill(0xFF);
        if (span) {
            first = tr::uuid_v7::first_id(span->first);
            last = tr::uuid_v7::last_id(span->last);
        }
        return Keys{uuid_datum(first), uuid_datum(last)};
    }
    struct {
        int64_t first = INT64_MAX, last = INT64_MIN;
    } ids;
    if (span)
        guarded([&] {
            if (ks.family == Family::snowflake) {
                ids.first = tr::snowflake::first_id(*ks.layout, span->first);
                ids.last = tr::snowflake::last_id(*ks.layout, span->last);
            } else {
                ids.first = tr::crid_ids::first_id(crid_ids::layout(), span->first);
                ids.last = tr::crid_ids::last_id(crid_ids::layout(), span->last);
            }
        });
    return Keys{Int64GetDatum(ids.first), Int64GetDatum(ids.last)};
}

Const *key_const(Family family, Datum key) {
    if (family == Family::uuid_v7)
        return makeConst(UUIDOID, -1, InvalidOid, UUID_LEN, key, false, false);
    return makeConst(INT8OID, -1, InvalidOid, sizeof(int64), key, false, FLOAT8PASSBYVAL);
}

Oid key_operator(Family family, int strategy) {
    // Built-in operators: their OIDs never change, so one lookup per backend.
    static Oid cache[2][BTMaxStrategyNumber + 1];
    Oid &slot = cache[family == Family::uuid_v7 ? 0 : 1][strategy];
    if (!OidIsValid(slot)) {
        Oid type = key_type(family);
        Oid opfamily = get_opclass_family(GetDefaultOpClass(type, BTREE_AM_OID));
        slot = get_opfamily_member(opfamily, type, type, int16(strategy));
    }
    return slot;
}

Expr *key_comparison(Family family, int strategy, Expr *arg, Expr *rhs) {
    Oid opno = key_operator(family, strategy);
    OpExpr *op = castNode(OpExpr, make_opclause(opno, BOOLOID, false, arg, rhs, InvalidOid, InvalidOid));
    op->opfuncid = get_opcode(opno);
    return &op->xpr;
}

Oid function_in(Oid nsp, const char *name, int nargs, const Oid *argtypes) {
    // Straight from the catalog cache: a lookup by qualified name would check
    // USAGE on the schema, and fail every query of a role without it when
    // crid lives in a schema of its own (CREATE EXTENSION crid SCHEMA crid).
    // Only crid's own: in a database whose crid is older than the library,
    // a function it lacks may be anyone's who can create in crid's schema,
    // and the planner would add it to every role's queries.
    Oid fn = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
                             PointerGetDatum(buildoidvector(argtypes, nargs)), ObjectIdGetDatum(nsp));
    return pg::crid_member(ProcedureRelationId, fn) ? fn : InvalidOid;
}

Expr *call(Oid funcid, Oid rettype, List *args) {
    return &makeFuncExpr(funcid, rettype, args, InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL)->xpr;
}

const core::snowflake::Layout *sortable_layout(Node *arg) {
    if (!arg || !IsA(arg, Const) || castNode(Const, arg)->constisnull)
        return nullptr;
    text *t = DatumGetTextPP(castNode(Const, arg)->constvalue);
    const char *data = VARDATA_ANY(t);
    size_t len = VARSIZE_ANY_EXHDR(t);
    CaughtError ignored;
    bool parsed = attempt(
        [&] {
            if (!planner_layout_valid || planner_layout_text.size() != len ||
                planner_layout_text.compare(0, len, data, len) != 0) {
                planner_layout_valid = false; // a failed parse must not leave a stale pair
                planner_layout = core::snowflake::layout_named(std::string_view(data, len));
                planner_layout_text.assign(data, len);
                planner_layout_valid = true;
            }
            tr::snowflake::check_sorted_by_time(planner_layout);
        },
        ignored);
    return parsed ? &planner_layout : nullptr;
}

} // namespace crid::pg::queries_by_time
