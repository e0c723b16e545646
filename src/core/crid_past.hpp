// crid ids for past times: the checks of crid_reserve(at, n) and
// the id of crid_pack(at, sequence). A backfill reserves, for each second of
// its history, one block in the registry like any other (so no node, Go or
// PostgreSQL, is ever handed the same sequences), and packs its rows' ids
// from that block. A second whose registry row crid_evict deleted cannot be
// reserved in again: its row would restart at sequence 0 and repeat ids
// handed out before the eviction. crid_evict records how far it deleted
// (evicted_before: every second below it), and reservations at an explicit
// second check it.
#pragma once
#include "pure_cpp.hpp"

#include "crid_layout.hpp"

#include <cstdint>

namespace crid::core::crid_ids {

// The registry second of crid_reserve(at, n): at's second (datetime_out_of_range
// before the epoch or past the last second), with n sequences 1 ..
// sequence_space (numeric_out_of_range naming n and the limit).
int64_t reserve_ts(const Layout &layout, int64_t unix_ms, int64_t n);

// The block of n sequences crid_reserve reserved in second ts ended at
// next_seq: past sequence_space, numeric_out_of_range naming the second, the
// sequences it had left and the limit (the caller's transaction rolls the
// reservation back).
void check_reserved_end(const Layout &layout, int64_t ts, int64_t n, int64_t next_seq);

// `function` (crid_reserve, crid_allocate) may reserve in second ts unless
// crid_evict deleted it: ts below evicted_before is prerequisite_state,
// naming both seconds.
void check_not_evicted(const Layout &layout, const char *function, int64_t ts, int64_t evicted_before);

// The id of sequence `sequence` in the second of unix_ms: datetime_out_of_range
// outside the layout's seconds, numeric_out_of_range for a sequence outside
// 0 .. sequence_space - 1.
int64_t pack_at(const Layout &layout, int64_t unix_ms, int64_t sequence);

} // namespace crid::core::crid_ids
