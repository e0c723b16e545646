// The crid family's shared memory: the block server crid_next() takes ids
// from, and the doorbell of whoever fills it (the block reserver,
// worker/block_refill.hpp, which reserves the blocks and publishes them
// here). Blocks of a previous life of the server are never published again:
// it starts empty at start and after every crash.
#pragma once

#include "common/postgres_headers.hpp"
#include "common/shared_word.hpp"
#include "common/stats_rows.hpp"

#include "core/crid_blocks.hpp"

extern "C" {
#include "storage/condition_variable.h"
#include "storage/latch.h"
}

namespace crid::pg::crid_ids {

// Ring of 32 blocks: room to keep a few hundred thousand ids in reserve, so
// a fast server never waits on a slow registry commit.
inline constexpr size_t ring_blocks = 32;
using Server = core::crid_ids::BlockServer<SharedWord, ring_blocks>;

struct BlockShared {
    Server server;
    ConditionVariable block_published;   // broadcast after every publish
    Latch *filler_latch;                 // set by backends when ids run low (nullptr: no filler runs)
    pg_atomic_uint64 wake_below;         // ... that is, below this many (the block reserver's target)
    pg_atomic_uint64 sync_waits;         // crid_next() calls that found no id and waited
    pg_atomic_uint64 wait_timeouts;      // ... and gave up after crid.allocation_timeout
    pg_atomic_uint64 waited_ns;          // the last moment a crid_next() waited (monotonic; 0: never)
    pg_atomic_uint64 blocks_reserved;    // blocks published
    pg_atomic_uint64 ids_reserved;       // ... and their ids
    pg_atomic_uint64 block_size_now;     // the size of the block reserver's next block (0 before it first looked)
    pg_atomic_uint64 block_size_largest; // the largest block published
};

// Shared memory for it: from shmem_request_hook, then in the postmaster at
// start and after every crash.
void request_blocks();
void startup_blocks();

// The shared state, or nullptr when crid is not preloaded.
BlockShared *shared() noexcept;

// Wakes the block reserver (a no-op while its latch is already set, so at most one
// wake-up per filler cycle).
void wake_filler();

// A crid_next() found no id and waits for a block: wakes the block reserver and
// tells it someone waits now, so that no pause of the block reserver's after a
// failure keeps the caller waiting (the block reserver still paces its attempts).
// Called again at every turn of the wait.
void wake_filler_for_waiter();

// True while a crid_next() waits for a block: one waited within the last
// half second.
bool waiter_seen(int64_t now_ns);

// Why no block came within crid.allocation_timeout, as the block reserver knows:
// the reason after "no block within ...: ", its last detail ("" for none),
// and what to do. Installed at load by whoever fills the server.
using TimeoutExplainer = void (*)(char *why, size_t why_size, char *detail, size_t detail_size, char *hint,
                                  size_t hint_size);
void set_timeout_explainer(TimeoutExplainer explainer);
TimeoutExplainer timeout_explainer();

// crid_stats() rows of family crid: ids_served (ids of published blocks
// handed out; exact but for tickets a backend stalled past a whole ring of
// blocks gave up), blocks_reserved, ids_reserved, ids_unserved,
// reserve_target (the block reserver's target), block_size_now (the size of its next
// block) and block_size_largest (of every block published), sync_waits
// (crid_next calls that found no id and waited), wait_timeouts, and
// registry_mark_damaged (1 while a damaged registry mark stops crid minting).
void add_stats(StatsRows &rows);

} // namespace crid::pg::crid_ids
