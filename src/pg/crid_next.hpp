// crid ids with a shard gene, from the same shared block server as crid_next().
#pragma once

#include "postgres_headers.hpp"

#include "../core/bit_layout.hpp"

namespace crid::pg::crid_ids {

// The next id whose low bits (`gene`, a checked field at bit 0) equal `value`
// (in range): BlockServer::take_with_gene, waiting for a block like
// crid_next() (up to crid.allocation_timeout). ERROR 55000 without
// preloading or during recovery.
int64_t next_with_gene(const core::BitField &gene, uint64_t value);

} // namespace crid::pg::crid_ids
