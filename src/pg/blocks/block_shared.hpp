// The crid family's shared memory: the block server that crid_next() takes
// ids from, and what the background worker tells the backends.
#pragma once

#include "common/postgres_headers.hpp"

#include "module/shared_memory.hpp"
#include "common/shared_word.hpp"

#include "core/crid_blocks.hpp"

extern "C" {
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/spin.h"
}

namespace crid::pg::crid_ids {

// Ring of 32 blocks: room to keep a few hundred thousand ids in reserve, so
// a fast server never waits on a slow registry commit.
inline constexpr size_t ring_blocks = 32;
using Server = core::crid_ids::BlockServer<SharedWord, ring_blocks>;

// What the worker is doing, for the error a waiting backend raises.
enum class WorkerState : int {
    not_started,  // no worker has run since the server started
    connecting,   // connecting to crid.registry_database (or pausing before it after failures)
    no_database,  // crid.registry_database does not exist; the worker waits for it
    no_extension, // connected, but CREATE EXTENSION crid was not run there
    bad_table,    // crid.registry_table names no table of the registry's shape there
    unreachable,  // a remote registry (crid.registry) cannot be reached or stopped answering
    outdated,     // the registry lacks crid_registry_check (crid older than 0.3.0 there)
    held_back,    // the registry changed (went backwards): reservations wait for its floor to pass
    failing,      // a reservation failed; `detail` says why
    serving,      // reserving blocks normally
};

struct CridShared {
    Server server;
    ConditionVariable block_published; // broadcast after every publish
    Latch *worker_latch;               // set by backends when ids run low
    pg_atomic_uint64 wake_below;       // ... that is, below this many (the worker's target)
    slock_t status_lock;               // guards the fields below
    WorkerState state;
    int worker_pid;
    char detail[512];
    // Counters: written by the worker, except sync_waits and timeouts.
    pg_atomic_uint64 blocks_reserved;
    pg_atomic_uint64 ids_reserved;
    pg_atomic_uint64 registry_failures;
    pg_atomic_uint64 registry_commits; // reservation transactions (one or more blocks each)
    pg_atomic_uint64 registry_us_total;
    pg_atomic_uint64 registry_us_max;
    pg_atomic_uint64 sync_waits;
    pg_atomic_uint64 wait_timeouts;
    pg_atomic_uint64 registry_regressions; // times the registry was seen to go backwards
    pg_atomic_uint64 registry_round_trips; // registry transactions of any kind (blocks, leases, checks)
    pg_atomic_uint64 registry_last_us;     // how long the last one took
    pg_atomic_uint64 round_started_ns;     // monotonic start of the transaction in flight, 0 when none
    pg_atomic_uint64 registry_connects;    // connections made to a remote registry
    pg_atomic_uint32 registry_connected;   // 1 while connected to a remote registry

    // Across worker processes (status_lock): consecutive failed worker
    // processes, for the pause before the next one starts, and whether the
    // last connection attempt found no registry database.
    int worker_failures;
    bool registry_database_missing;

    // The registry mark (registry_mark.hpp). mark_refusal is read by every
    // crid_next(); the rest is guarded by mark_lock.
    LWLock *mark_lock;
    pg_atomic_uint32 mark_refusal; // Refusal: none or mark_damaged
    bool mark_known;               // a mark exists (read at start or written since)
    int64 mark_unix_s;             // the last second with a reserved block, Unix seconds
    int64 mark_sequence;           // its registry row had reached at least this
    uint64 mark_generation;        // bumped by crid_reset_high_water(): the worker restarts its guard
    char mark_detail[512];         // why the mark is refused (set with the refusal)
};

// The shared state, or nullptr when crid is not preloaded.
CridShared *shared() noexcept;

// Shared memory size, and building it at start and after a crash (a fresh,
// empty server: blocks of the previous life are a gap, never reused).
Size shared_size();
void init_shared(CridShared *memory, LWLock *mark_lock);
void attach(CridShared *memory) noexcept;

// Records the worker's state for waiting backends (detail may be null).
void set_status(WorkerState state, const char *detail);

} // namespace crid::pg::crid_ids
