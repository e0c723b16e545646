// SQL functions of shard genes: the gene of a key or of an id, an id with its
// gene replaced, and the hash support functions of the operator classes
// crid_gene_int8_ops and crid_gene_uuid_ops. All IMMUTABLE and STRICT.
#include "common/postgres_headers.hpp"

#include "common/boundary.hpp"
#include "genes/gene_keys.hpp"
#include "common/args.hpp"

#include "core/gene.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
}

using namespace crid;
namespace gene = crid::core::gene;

namespace {

// The hash support functions: PostgreSQL's hash partitioning of the result
// computes the id's low 64 bits themselves (see core::gene::partition_hash).
Datum extended_hash(uint64_t low) { return UInt64GetDatum(gene::partition_hash(low)); }
Datum standard_hash(uint64_t low) { return UInt32GetDatum(uint32(gene::partition_hash(low))); }

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_gene_of_bigint);
PG_FUNCTION_INFO_V1(crid_gene_of_text);
PG_FUNCTION_INFO_V1(crid_gene_of_uuid);
PG_FUNCTION_INFO_V1(crid_id_gene_bigint);
PG_FUNCTION_INFO_V1(crid_id_gene_uuid);
PG_FUNCTION_INFO_V1(crid_id_with_gene_bigint);
PG_FUNCTION_INFO_V1(crid_id_with_gene_uuid);
PG_FUNCTION_INFO_V1(crid_gene_hash_int8);
PG_FUNCTION_INFO_V1(crid_gene_hash_int8_extended);
PG_FUNCTION_INFO_V1(crid_gene_hash_int4);
PG_FUNCTION_INFO_V1(crid_gene_hash_int4_extended);
PG_FUNCTION_INFO_V1(crid_gene_hash_int2);
PG_FUNCTION_INFO_V1(crid_gene_hash_int2_extended);
PG_FUNCTION_INFO_V1(crid_gene_hash_uuid);
PG_FUNCTION_INFO_V1(crid_gene_hash_uuid_extended);

// gene_of(key bigint, bits): the key's low bits, two's complement.
Datum crid_gene_of_bigint(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(pg::genes::gene_of_datum(PG_GETARG_DATUM(0), INT8OID, PG_GETARG_INT32(1), "gene_of"));
}

// gene_of(key text, bits): MurmurHash3 x86_32 (seed 0) of the UTF-8 bytes, masked.
Datum crid_gene_of_text(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(pg::genes::gene_of_datum(PG_GETARG_DATUM(0), TEXTOID, PG_GETARG_INT32(1), "gene_of"));
}

// gene_of(key uuid, bits): MurmurHash3 x86_32 (seed 0) of the 16 bytes, masked.
Datum crid_gene_of_uuid(PG_FUNCTION_ARGS) {
    PG_RETURN_INT32(pg::genes::gene_of_datum(PG_GETARG_DATUM(0), UUIDOID, PG_GETARG_INT32(1), "gene_of"));
}

// id_gene(id bigint, bits): the gene an id carries in its low bits.
Datum crid_id_gene_bigint(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    int32 bits = PG_GETARG_INT32(1);
    PG_RETURN_INT32(pg::guarded([&] { return gene::of_key(id, bits, "id_gene"); }));
}

// id_gene(id uuid, bits): the low bits of the uuid's last bytes.
Datum crid_id_gene_uuid(PG_FUNCTION_ARGS) {
    core::Uuid id = pg::uuid_arg(fcinfo, 0);
    int32 bits = PG_GETARG_INT32(1);
    PG_RETURN_INT32(pg::guarded([&] { return gene::of_uuid_id(id, bits); }));
}

// id_with_gene(id bigint, gene, bits): the id with its low bits replaced.
Datum crid_id_with_gene_bigint(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    int32 g = PG_GETARG_INT32(1), bits = PG_GETARG_INT32(2);
    PG_RETURN_INT64(pg::guarded([&] { return gene::with_gene(id, g, bits); }));
}

// id_with_gene(id uuid, gene, bits)
Datum crid_id_with_gene_uuid(PG_FUNCTION_ARGS) {
    core::Uuid id = pg::uuid_arg(fcinfo, 0);
    int32 g = PG_GETARG_INT32(1), bits = PG_GETARG_INT32(2);
    core::Uuid out = pg::guarded([&] { return gene::with_gene(id, g, bits); });
    return pg::uuid_datum(out);
}

// Hash support of crid_gene_int8_ops (SQL crid_gene_hash and
// crid_gene_hash_extended of each integer type): smaller integers hash as
// the bigint of the same value, so a constant of any integer type prunes
// like the id.
Datum crid_gene_hash_int8(PG_FUNCTION_ARGS) { return standard_hash(uint64_t(PG_GETARG_INT64(0))); }
Datum crid_gene_hash_int8_extended(PG_FUNCTION_ARGS) { return extended_hash(uint64_t(PG_GETARG_INT64(0))); }
Datum crid_gene_hash_int4(PG_FUNCTION_ARGS) { return standard_hash(uint64_t(int64_t(PG_GETARG_INT32(0)))); }
Datum crid_gene_hash_int4_extended(PG_FUNCTION_ARGS) { return extended_hash(uint64_t(int64_t(PG_GETARG_INT32(0)))); }
Datum crid_gene_hash_int2(PG_FUNCTION_ARGS) { return standard_hash(uint64_t(int64_t(PG_GETARG_INT16(0)))); }
Datum crid_gene_hash_int2_extended(PG_FUNCTION_ARGS) { return extended_hash(uint64_t(int64_t(PG_GETARG_INT16(0)))); }

// Hash support of crid_gene_uuid_ops (crid_gene_hash, crid_gene_hash_extended):
// the uuid's last 8 bytes.
Datum crid_gene_hash_uuid(PG_FUNCTION_ARGS) { return standard_hash(pg::uuid_arg(fcinfo, 0).low64()); }
Datum crid_gene_hash_uuid_extended(PG_FUNCTION_ARGS) { return extended_hash(pg::uuid_arg(fcinfo, 0).low64()); }

} // extern "C"
