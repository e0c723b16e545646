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

// The largest INCREMENT BY a converted sequence serves: 2n - 1 ids must fit
// one crid block or one snowflake unit (checked again when minting).
constexpr int64_t max_increment = 1 << 20;

// The first of `span` consecutive ids of `family`, all the caller's: a run
// of crid ids, or of snowflake sequences of one unit (each sequence owns the
// 2^gene_bits ids of its genes).
int64_t mint_span(sequences::Family family, int64_t span) {
    if (family == sequences::Family::crid)
        return span == 1 ? crid_ids::next_id(nullptr, 0) : crid_ids::next_run(uint64_t(span));
    int node = snowflake::configured_node();
    if (node < 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("crid.node_id is not set"),
                        errhint("Set crid.node_id in postgresql.conf: converted sequences mint on that node.")));
    snowflake::check_node_id_not_backfill_node("nextval");
    if (span == 1)
        return snowflake::mint(node, 0);
    const int gene_bits = snowflake::server_layout_or_error().gene_bits;
    const int64_t per_sequence = int64_t(1) << gene_bits;
    return snowflake::mint_run(node, (span + per_sequence - 1) / per_sequence);
}

// The next value of a converted sequence: an id of its family that nobody
// else is handed, above every value it gave as a plain sequence. With
// INCREMENT BY n, an ORM takes the n keys ending at the value (Hibernate's
// pooled optimizer) or starting at it (pooled-lo): crid reserves the 2n - 1
// consecutive ids around it, so both are this session's alone.
int64_t hand_out(sequences::Entry *e) {
    const int64_t n = e->increment;
    if (n < 1 || n > max_increment)
        ereport(ERROR,
                (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                 errmsg("sequence \"%s\": INCREMENT BY %lld is out of range for a converted sequence",
                        get_rel_name(e->seq), static_cast<long long>(n)),
                 errdetail("Converted sequences take increments 1 to %lld.", static_cast<long long>(max_increment))));
    const int64_t first = mint_span(e->family, 2 * n - 1);
    const int64_t id = first + (n - 1);
    if (first <= e->floor) {
        char *name = get_rel_name(e->seq);
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("sequence \"%s\": the id crid minted (%lld) is not above its last plain value (%lld)",
                               name ? name : "?", static_cast<long long>(first), static_cast<long long>(e->floor)),
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
