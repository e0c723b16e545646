// How many snowflake ids each node minted (crid_stats()'s `ids`), counted
// without a shared write per id: every process slot (PGPROC) has its own
// cache line of counters, which only the process using that slot writes,
// with plain stores. An entry is bound to a node the first time a process
// of that slot mints for it and keeps that node until shared memory is
// rebuilt, so a process that exits leaves its counts for the next one of
// its slot to continue: the node's shared counter plus every slot's entry
// of that node is exact whenever it is read. A process whose slot has no
// entry left for a node (a slot's processes minted for more nodes than it
// has entries) adds to the node's shared counter instead.
#pragma once

#include "common/postgres_headers.hpp"

#include "snowflake/node_words.hpp"

namespace crid::pg::snowflake {

inline constexpr int mint_count_entries = 4;

struct alignas(PG_CACHE_LINE_SIZE) SlotMintCounts {
    pg_atomic_uint32 node_plus_one[mint_count_entries]; // 0: entry free
    pg_atomic_uint64 minted[mint_count_entries];
};

// Shared memory for them: from shmem_request_hook, then in the postmaster
// at start and after every crash (all zero, as the node words' counters).
void request_mint_counts();
void startup_mint_counts();

// One id of `node` (whose word is `word`) handed out by this process.
void count_minted(NodeWord &word, int64_t node);

// Adds every node's ids to `per_node` (node_word_count() entries): the
// shared counters and every slot's entries.
void add_minted(uint64 *per_node);

} // namespace crid::pg::snowflake
