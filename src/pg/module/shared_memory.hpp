// Server-wide generator state in shared memory. It exists only when crid is in
// shared_preload_libraries: shared memory can be requested only then.
#pragma once

#include "common/postgres_headers.hpp"

#include "common/shared_word.hpp"

#include "core/uuidv7_clock.hpp"

namespace crid::pg {

// One snowflake node: its generator word and counters, alone on a cache line
// so that backends minting for different nodes never slow each other down.
struct alignas(PG_CACHE_LINE_SIZE) SnowflakeNodeSlot {
    SharedWord state;                  // last (unit, sequence) issued, see snowflake_generator.hpp
    pg_atomic_uint64 minted;           // ids handed out
    pg_atomic_uint64 clock_waits;      // waits for a clock that stepped back a little
    pg_atomic_uint64 clock_borrows;    // ids issued ahead of the clock
    pg_atomic_uint64 clock_refusals;   // errors for a clock too far behind
    pg_atomic_uint64 exhaustion_waits; // waits for the next ms after 2^sequence_bits ids
};

// Why a family refuses to mint although the server runs: history on disk
// that disagrees with valid settings, or a damaged crid file, stops only the
// minting that depends on it, until a superuser resolves it with a function.
enum class Refusal : uint32 {
    none = 0,
    layout_changed = 1, // crid_high_water was written under another snowflake layout
    mark_damaged = 2,   // a mark file could not be read or parsed
};

struct SharedState {
    // Server-ordered UUIDv7 ticks come from CLOCK_MONOTONIC and these two
    // words (core/uuidv7_clock.hpp): read on every id, written only at start,
    // by a repair or WAL replay, and when the real clock jumps forward.
    alignas(PG_CACHE_LINE_SIZE) core::uuidv7::CommitWaitWords<SharedWord> uuidv7_clock;
    // The high-water mark on disk (high_water.hpp): no id may carry a later ms.
    alignas(PG_CACHE_LINE_SIZE) pg_atomic_uint64 snowflake_persisted_ms;
    pg_atomic_uint64 snowflake_persists;   // how often it was written, by a minting backend
    pg_atomic_uint64 mark_keeper_persists; // ... and by the high-water keeper, ahead of the ids
    // Set by a minting backend when its id is within half the write lead of
    // the mark, so the keeper (high_water_keeper.hpp) moves the mark ahead
    // before any id catches up with it and has to wait for an fsync.
    pg_atomic_uint32 mark_wanted;
    Latch *mark_keeper_latch;       // the keeper's latch, or nullptr while it does not run
    LWLock *snowflake_persist_lock; // one writer of the file at a time; guards the fields below
    // Read on every id; written at start and by crid_accept_layout() and
    // crid_reset_high_water().
    pg_atomic_uint32 snowflake_refusal; // Refusal
    pg_atomic_uint32 uuidv7_refusal;    // Refusal: none or mark_damaged
    // The layout line written with the mark: the layout of the snowflake ids
    // it covers. While snowflake refuses a changed layout, UUIDv7 keeps
    // writing the old one, so the change stays visible until accepted.
    char mark_layout[256];
    // What a refusal is about, set when the refusal is (never changed while
    // it stands, so a refused caller may read it without the lock).
    char refusal_detail[512];
};

// The state, or nullptr when crid was not preloaded.
SharedState *shared_state() noexcept;

// The snowflake node slots (1 << crid.snowflake_node_bits of them), or nullptr.
SnowflakeNodeSlot *snowflake_slots() noexcept;
int64_t snowflake_slot_count() noexcept;

// How many processes can mint at once (every PGPROC: backends, auxiliary
// processes, prepared transactions): the UUIDv7 slot width and the bound on
// snowflake adds racing past a unit (snowflake_generator.hpp).
uint64_t process_slot_count() noexcept;

// ERROR unless this process may mint `family` ids ("snowflake", "crid"): not
// during recovery (a standby copied from its primary carries the primary's
// node ids, high-water mark and registry, so it would repeat its ids), and
// only with crid preloaded. `what` names the caller in the second message,
// `preload_hint` says what preloading brings.
void require_minting(const char *family, const char *what, const char *preload_hint);

// Chains shmem_request_hook / shmem_startup_hook; called from _PG_init.
void install_shared_memory_hooks();

} // namespace crid::pg
