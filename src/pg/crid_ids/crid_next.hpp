// The next crid id of this server: crid_next() and crid_next(gene, bits)
// (genes/gene_generators.cpp) take it here.
#pragma once

#include "common/postgres_headers.hpp"

#include "core/bit_layout.hpp"

namespace crid::pg::crid_ids {

// The next crid id of this server, or with `gene` (a checked field at bit
// 0) the next whose low bits equal `value` (in range): one path for
// crid_next() and crid_next(gene, bits), waiting for a block up to
// crid.allocation_timeout. ERROR 55000 without preloading, during recovery
// and while the registry mark is damaged.
int64_t next_id(const core::BitField *gene, uint64_t value);

} // namespace crid::pg::crid_ids
