// SQL functions of converted sequences: the values nextval(), IDENTITY,
// currval() and lastval() hand out once the planner hook (sequence_plans.hpp)
// or a column DEFAULT sends them here.
#include "common/postgres_headers.hpp"

#include "crid_ids/crid_next.hpp"
#include "sequences/converted_sequences.hpp"
#include "snowflake/snowflake_settings.hpp"
#include "snowflake/snowflake_source.hpp"

extern "C" {
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

using namespace crid::pg;

namespace {

int64_t mint(sequences::Family family, const char *function) {
    if (family == sequences::Family::crid)
        return crid_ids::next_id(nullptr, 0);
    int node = snowflake::configured_node();
    if (node < 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("crid.node_id is not set"),
                        errhint("Set crid.node_id in postgresql.conf: converted sequences mint on that node.")));
    snowflake::check_node_id_not_backfill_node(function);
    return snowflake::mint(node, 0);
}

// The next value of a converted sequence: an id of its family that nobody
// else is handed, above every value it gave as a plain sequence.
int64_t hand_out(sequences::Entry *e) {
    int64_t id = mint(e->family, "nextval");
    if (id <= e->floor) {
        char *name = get_rel_name(e->seq);
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("sequence \"%s\": the id crid minted (%lld) is not above its last plain value (%lld)",
                               name ? name : "?", static_cast<long long>(id), static_cast<long long>(e->floor)),
                        errhint("The server's clock or layout went back; crid_check() says more.")));
    }
    e->has_last = true;
    e->last = id;
    sequences::last_handed_out = {true, e->seq, id};
    return id;
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_sequence_nextval);
PG_FUNCTION_INFO_V1(crid_sequence_identity);
PG_FUNCTION_INFO_V1(crid_sequence_currval);
PG_FUNCTION_INFO_V1(crid_sequence_lastval);

// crid_sequence_nextval(sequence regclass): nextval() of a converted
// sequence, with nextval()'s privilege check (USAGE or UPDATE).
// A sequence not converted (a name the planner could not see, as in
// nextval($1)) is PostgreSQL's nextval().
Datum crid_sequence_nextval(PG_FUNCTION_ARGS) {
    Oid seq = PG_GETARG_OID(0);
    sequences::Entry *e = sequences::for_nextval(seq, false, &fcinfo->flinfo->fn_extra);
    if (!e)
        return DirectFunctionCall1(nextval_oid, ObjectIdGetDatum(seq));
    PG_RETURN_INT64(hand_out(e));
}

// crid_sequence_identity(sequence regclass): the value of an IDENTITY
// column whose sequence is converted. PostgreSQL checks no privilege on an
// identity sequence; this checks INSERT or UPDATE on its table instead.
Datum crid_sequence_identity(PG_FUNCTION_ARGS) {
    Oid seq = PG_GETARG_OID(0);
    sequences::Entry *e = sequences::for_nextval(seq, true, &fcinfo->flinfo->fn_extra);
    if (!e)
        sequences::not_converted(seq);
    PG_RETURN_INT64(hand_out(e));
}

// crid_sequence_currval(sequence regclass): the value this session was last
// handed from a converted sequence; PostgreSQL's currval() of one that is
// not converted.
Datum crid_sequence_currval(PG_FUNCTION_ARGS) {
    Oid seq = PG_GETARG_OID(0);
    sequences::Entry *e = sequences::entry_of(seq);
    if (!e->converted)
        return DirectFunctionCall1(currval_oid, ObjectIdGetDatum(seq));
    char *name = get_rel_name(seq);
    if (pg_class_aclcheck(seq, GetUserId(), ACL_SELECT | ACL_USAGE) != ACLCHECK_OK)
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied for sequence %s", name ? name : "?")));
    if (!e->has_last)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("currval of sequence \"%s\" is not yet defined in this session", name ? name : "?")));
    PG_RETURN_INT64(e->last);
}

// crid_sequence_lastval(): the value crid last handed this session from a
// converted sequence, else what PostgreSQL's lastval() says.
Datum crid_sequence_lastval(PG_FUNCTION_ARGS) {
    if (!sequences::last_handed_out.valid)
        return OidFunctionCall0Coll(F_LASTVAL, InvalidOid);
    Oid seq = sequences::last_handed_out.seq;
    if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(seq)))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("lastval is not yet defined in this session")));
    if (pg_class_aclcheck(seq, GetUserId(), ACL_SELECT | ACL_USAGE) != ACLCHECK_OK)
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("permission denied for sequence %s", get_rel_name(seq))));
    PG_RETURN_INT64(sequences::last_handed_out.value);
}

} // extern "C"
