// SharedWord: a pg_atomic_uint64 in shared memory seen through the core's
// word concepts (monotonic_word.hpp), the one adapter every lock-free path of
// the glue uses: snowflake node words, the UUIDv7 tick, the crid block server.
#pragma once

#include "common/postgres_headers.hpp"

#include "core/monotonic_word.hpp"

namespace crid::pg {

// The block server's words are zeroed and reset() rather than each passed to
// pg_atomic_init_u64, which is only equivalent where 64-bit atomics are native.
#ifdef PG_HAVE_ATOMIC_U64_SIMULATION
#error "crid needs native 64-bit atomics (this platform emulates them with spinlocks)"
#endif

// The memory order crid_blocks.hpp asks of its words: load() acquires,
// store() releases, fetch_add() and compare_exchange() are full barriers.
struct SharedWord {
    pg_atomic_uint64 value;
    uint64_t load() const noexcept {
        uint64_t v = pg_atomic_read_u64(const_cast<pg_atomic_uint64 *>(&value));
        pg_read_barrier();
        return v;
    }
    void store(uint64_t v) noexcept {
        pg_memory_barrier();
        pg_atomic_write_u64(&value, v);
    }
    uint64_t fetch_add(uint64_t v) noexcept { return pg_atomic_fetch_add_u64(&value, v); }
    bool compare_exchange(uint64_t &expected, uint64_t desired) noexcept {
        return pg_atomic_compare_exchange_u64(&value, &expected, desired);
    }
    // For shared-memory initialisation only, before any other process runs.
    void init(uint64_t v) noexcept { pg_atomic_init_u64(&value, v); }
};
static_assert(core::AtomicWord<SharedWord>);

} // namespace crid::pg
