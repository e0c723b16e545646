// Minting snowflake ids from the node words in shared memory.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::snowflake {

// The next id of `node` with `gene` in the low bits. Lock-free: a
// compare-and-swap on the node's word, a clock read, and (about once a second
// per server) a high-water write. Waits out sequence exhaustion and small
// clock steps back (interruptibly); ERROR for a node or gene out of range, a
// node this server may not use or keeps for backfills (crid.backfill_node), a
// clock too far behind, or no preloading.
int64_t mint(int64_t node, int64_t gene);

// The first of `count` consecutive sequences of one time unit of `node`,
// with gene 0: the caller owns every id from it to the id of the last
// sequence with the largest gene (core::snowflake::claim_run). The checks
// and waits of mint(); ERROR 22003 for a run longer than a unit holds.
int64_t mint_run(int64_t node, int64_t count);

} // namespace crid::pg::snowflake
