// The snowflake generator words in shared memory: one per node of this
// server's layout, each alone on a cache line with its counters, so that
// backends minting for different nodes never slow each other down. They
// start from the high-water mark, so ids after a restart or crash are above
// every id before.
#pragma once

#include "common/postgres_headers.hpp"
#include "common/shared_word.hpp"

namespace crid::pg::snowflake {

struct alignas(PG_CACHE_LINE_SIZE) NodeWord {
    SharedWord state;                  // last (unit, sequence) issued, see core/snowflake_generator.hpp
    pg_atomic_uint64 minted;           // ids handed out but not counted per process (mint_counts.hpp)
    pg_atomic_uint64 clock_waits;      // waits for a clock that stepped back a little
    pg_atomic_uint64 clock_borrows;    // ids issued ahead of the clock
    pg_atomic_uint64 clock_refusals;   // errors for a clock too far behind
    pg_atomic_uint64 exhaustion_waits; // waits for the next ms after 2^sequence_bits ids
};

// Shared memory for them: from shmem_request_hook, then in the postmaster
// at start and after every crash, every word just above `mark_ms` (-1: none).
void request_words();
void startup_words(int64_t mark_ms);

// The words (1 << crid.snowflake_node_bits of them), or nullptr without preloading.
NodeWord *node_words() noexcept;
int64_t node_word_count() noexcept;

// Every word at least just above `unix_ms`, or exactly there when `exactly`
// (the high-water mark's listener).
void raise_all_words(int64_t unix_ms, bool exactly);

// For snowflake node leases: raising one node's word above the bound its
// previous holder wrote (and the mark with it, so a restart stays above it
// too; ERROR when the mark cannot be written), and the Unix ms of the last
// id claimed on a node (0 when none), read after the lease fence went up.
void raise_node_above(int64_t node, int64_t unix_ms);
int64_t node_last_unix_ms(int64_t node);

} // namespace crid::pg::snowflake
