// Where UUIDv7 ticks and random bits come from in this process: the
// server-wide word when crid is preloaded, a per-backend word otherwise.
#pragma once

#include "../core/uuid.hpp"

#include <cstdint>

namespace crid::pg::uuidv7 {

// Defines crid.uuidv7_order; called from _PG_init.
void define_settings();

// The next tick, strictly greater than every tick this server (or, without
// preloading or with crid.uuidv7_order = backend, this backend) handed out
// before. Throws core::Error.
uint64_t next_tick();

// 64 bits from pg_strong_random, through a per-backend pool. Throws core::Error.
uint64_t random64();

// A fresh monotonic version 7 UUID. Throws core::Error.
core::Uuid next();

} // namespace crid::pg::uuidv7
