// The generators that take a gene: uuid_generate_v7(gene, bits) and
// crid_next(gene, bits). snowflake_next(node, gene) lives with its family
// (the gene bits are a layout setting there). Not STRICT: a NULL gene or bits
// is ERROR 22004, never a NULL id.
#include "genes/gene_generators.hpp"

#include "common/boundary.hpp"
#include "crid_ids/crid_next.hpp"
#include "crid_ids/crid_ids_settings.hpp"
#include "genes/gene_keys.hpp"
#include "common/args.hpp"
#include "uuidv7/uuidv7_source.hpp"

#include "core/crid_layout.hpp"
#include "core/gene.hpp"
#include "core/uuidv7.hpp"

using namespace crid;

namespace crid::pg::genes {

Datum mint_uuidv7(int32 gene, int32 bits) {
    core::Uuid u = pg::guarded([&] {
        core::BitField f =
            core::gene::field(bits, "uuid_generate_v7", core::uuidv7::max_gene_bits,
                              "The gene takes the place of random bits below the process slot; at most 10, "
                              "so most stay random and ids of different servers stay apart.");
        core::gene::check_gene(f, gene, "uuid_generate_v7");
        return core::gene::put(pg::uuidv7::next(), f, uint64_t(gene));
    });
    pg::uuidv7::keep_high_water(u.high48());
    return pg::uuid_datum(u);
}

int64_t mint_crid(int32 gene, int32 bits) {
    // The field of the last (bits, crid.block_size) this backend checked:
    // a statement mints with the same bits on every row, and checking them
    // cost more than taking the id. Other bits or block size, or a gene the
    // field does not hold, take the checked path, which raises the error.
    static int32 checked_bits = -1;
    static int64_t checked_block_size = -1;
    static core::BitField checked_field;
    const int64_t block_size = pg::crid_ids::block_size();
    if (bits != checked_bits || block_size != checked_block_size || !checked_field.holds(gene)) {
        checked_field = pg::guarded([&] { return core::crid_ids::gene_field(bits, gene, block_size); });
        checked_bits = bits;
        checked_block_size = block_size;
    }
    return pg::crid_ids::next_id(&checked_field, uint64_t(gene));
}

} // namespace crid::pg::genes

extern "C" {

PG_FUNCTION_INFO_V1(crid_uuid_generate_v7_gene);
PG_FUNCTION_INFO_V1(crid_next_gene);

// uuid_generate_v7(gene integer, bits integer)
Datum crid_uuid_generate_v7_gene(PG_FUNCTION_ARGS) {
    int32 gene = pg::required_int32(fcinfo, 0, "uuid_generate_v7", "the gene", pg::genes::null_gene_hint);
    int32 bits = pg::required_int32(fcinfo, 1, "uuid_generate_v7", "the gene bits", pg::genes::null_gene_hint);
    return pg::genes::mint_uuidv7(gene, bits);
}

// crid_next(gene integer, bits integer)
Datum crid_next_gene(PG_FUNCTION_ARGS) {
    int32 gene = pg::required_int32(fcinfo, 0, "crid_next", "the gene", pg::genes::null_gene_hint);
    int32 bits = pg::required_int32(fcinfo, 1, "crid_next", "the gene bits", pg::genes::null_gene_hint);
    PG_RETURN_INT64(pg::genes::mint_crid(gene, bits));
}

} // extern "C"
