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

// The first of `count` consecutive crid ids of one block, all the caller's
// (core::crid_ids::BlockServer::take_run), with next_id()'s refusals and
// wait; ERROR 22003 for a run longer than the blocks this server reserves.
int64_t next_run(uint64_t count);

} // namespace crid::pg::crid_ids
