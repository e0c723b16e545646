// Where UUIDv7 ticks and random bits come from in this process: the
// server-wide word when crid is preloaded, a per-backend word otherwise.
#pragma once

#include "core/uuid.hpp"

#include <cstdint>

namespace crid::pg::uuidv7 {

// Defines crid.uuidv7_order; called from _PG_init.
void define_settings();

// The next tick: with server-wide order, greater than every tick returned
// on this server before the call began (core/uuidv7_clock.hpp; calls that
// overlap may share a tick, which compose() tells apart); without preloading
// or with crid.uuidv7_order = backend, strictly greater than every tick this
// backend handed out. Throws core::Error.
uint64_t next_tick();

// Before an id of Unix millisecond `unix_ms` from next()/next_tick() is
// returned: with server-wide order, pushes the server's high-water mark (see
// high_water.hpp) past it, so after a restart or crash the tick
// resumes above every id handed out, even with the clock behind. May write
// and fsync a file (about once a second): call outside guarded().
void keep_high_water(uint64_t unix_ms);

// 64 bits from pg_strong_random, through a per-backend pool. Throws core::Error.
uint64_t random64();

// The UUID of a tick from next_tick() and 64 random bits: with server-wide
// order it carries this backend's process slot after the tick, since two
// backends may take the same tick at the same moment.
core::Uuid compose(uint64_t tick, uint64_t random);

// A fresh monotonic version 7 UUID. Throws core::Error.
core::Uuid next();

} // namespace crid::pg::uuidv7
