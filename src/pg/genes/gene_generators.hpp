// Minting ids that carry a shard gene, shared by the SQL generators that take
// a gene and by the trigger crid_fill_id_with_gene, so bits and genes are
// checked the same way everywhere. These ereport.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::genes {

// uuid_generate_v7(gene, bits): a UUIDv7 of the server-wide order with the
// gene in the low bits of rand_b (bits 1 to 10: 48 random bits stay).
Datum mint_uuidv7(int32 gene, int32 bits);

// crid_next(gene, bits): a crid id whose low bits are the gene (bits 1 to 16,
// 2^bits at most crid.block_size).
int64_t mint_crid(int32 gene, int32 bits);

} // namespace crid::pg::genes
