// The server-wide UUIDv7 clock in shared memory (core/uuidv7_clock.hpp):
// the clock's two offsets, read on every server-ordered id and written only
// at start, by a repair or WAL replay, and when the real clock jumps
// forward; they start above the high-water mark, so ids after a restart or
// crash are above every id before. Beside them the last tick a
// compare-and-swap call took, written per id while one backend mints
// alone, and the mode word that says whether calls compare-and-swap.
#pragma once

#include "common/postgres_headers.hpp"
#include "common/shared_word.hpp"
#include "common/stats_rows.hpp"

#include "core/uuidv7_clock.hpp"

namespace crid::pg::uuidv7 {

using ClockWords = core::uuidv7::ServerClockWords<SharedWord>;

// Shared memory for them: from shmem_request_hook, then in the postmaster
// at start and after every crash, above `mark_ms` (-1: none).
void request_clock();
void startup_clock(int64_t mark_ms);

// The words, or nullptr without preloading.
ClockWords *clock_words() noexcept;

// Ticks from now on above Unix millisecond `unix_ms`; `exactly` also puts
// the clock back to real time when it ran ahead (a forced reset of the mark).
void raise_clock(int64_t unix_ms, bool exactly);

// crid_stats() rows of family uuidv7: high_water_damaged, 1 while a damaged
// high-water mark stops server-ordered UUIDv7 minting.
void add_stats(StatsRows &rows);

} // namespace crid::pg::uuidv7
