// SQL functions of the crid family that read its layout only, so they need
// no preloading: the decoders, and crid_pack() for ids of past times.
#include "common/postgres_headers.hpp"

#include "crid_ids/crid_ids_settings.hpp"
#include "common/args.hpp"
#include "common/boundary.hpp"

#include "core/crid_past.hpp"
#include "core/time_units.hpp"

extern "C" {
#include "access/htup_details.h"
}

using namespace crid;
namespace ids = crid::core::crid_ids;
using pg::crid_ids::layout;

extern "C" {

PG_FUNCTION_INFO_V1(crid_to_timestamptz);
PG_FUNCTION_INFO_V1(crid_parse);
PG_FUNCTION_INFO_V1(crid_floor);
PG_FUNCTION_INFO_V1(crid_pack);

// crid_to_timestamptz(id): the second its block was reserved in.
Datum crid_to_timestamptz(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    const ids::Layout &l = layout();
    int64_t ms = pg::guarded([&] { return ids::unix_ms_of_ts(l, ids::unpack(l, id).ts); });
    PG_RETURN_TIMESTAMPTZ(pg::timestamptz_from_unix_ms(ms));
}

// crid_parse(id) -> (ts timestamptz, sequence, registry_ts)
Datum crid_parse(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    const ids::Layout &l = layout();
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("crid_parse must return a record")));
    ids::Parts p;
    int64_t ms = pg::guarded([&] {
        p = ids::unpack(l, id);
        return ids::unix_ms_of_ts(l, p.ts);
    });
    Datum values[3] = {TimestampTzGetDatum(pg::timestamptz_from_unix_ms(ms)), Int64GetDatum(p.seq),
                       Int64GetDatum(p.ts)};
    bool nulls[3] = {false, false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

// crid_floor(at): the smallest id of at's second.
Datum crid_floor(PG_FUNCTION_ARGS) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, "crid_floor");
    const ids::Layout &l = layout();
    PG_RETURN_INT64(pg::guarded([&] { return ids::floor_id(l, core::unix_ms_from_pg_us_floor(at)); }));
}

// crid_pack(at timestamptz, sequence bigint): the id of that sequence in at's second.
Datum crid_pack(PG_FUNCTION_ARGS) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, "crid_pack");
    int64_t sequence = pg::required_int64(fcinfo, 1, "crid_pack", "the sequence");
    const ids::Layout &l = layout();
    PG_RETURN_INT64(pg::guarded([&] { return ids::pack_at(l, core::unix_ms_from_pg_us_floor(at), sequence); }));
}

} // extern "C"
