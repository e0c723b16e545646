// Server-wide generator state in shared memory. It exists only when crid is in
// shared_preload_libraries: shared memory can be requested only then.
#pragma once

#include "postgres_headers.hpp"

#include "../core/monotonic_word.hpp"

namespace crid::pg {

// The server-wide words. Each lives on its own cache line, so backends that
// mint different kinds of id do not slow each other down.
struct SharedState {
    alignas(PG_CACHE_LINE_SIZE) pg_atomic_uint64 uuidv7_tick; // last UUIDv7 tick handed out
};

// The state, or nullptr when crid was not preloaded.
SharedState *shared_state() noexcept;

// True in a server that loaded crid through shared_preload_libraries.
bool crid_preloaded() noexcept;

// Chains shmem_request_hook / shmem_startup_hook; called from _PG_init.
void install_shared_memory_hooks();

// A pg_atomic_uint64 seen through the core's Word concept.
struct SharedWord {
    pg_atomic_uint64 *word;
    uint64_t load() const noexcept { return pg_atomic_read_u64(word); }
    bool compare_exchange(uint64_t &expected, uint64_t desired) noexcept {
        return pg_atomic_compare_exchange_u64(word, &expected, desired);
    }
};

} // namespace crid::pg
