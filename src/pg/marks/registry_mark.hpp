// The registry mark on disk (crid_registry_mark in the data directory, format
// in core/marks.hpp): the last second in which this server reserved a crid
// block, written before any id of a later second is served. After a restart
// or crash the worker reserves only in later seconds, so no registry, however
// far it went backwards (core/registry_guard.hpp), can make the server serve
// an id of its previous life again.
//
// A damaged file stops crid minting only (ERROR 55000 from crid_next()) until
// a superuser repairs it with crid_reset_high_water(at) or restores it.
#pragma once

#include "common/postgres_headers.hpp"

#include "blocks/block_shared.hpp"

namespace crid::pg::crid_ids::registry_mark {

// At start and after a crash, in the postmaster: reads the file into `s`;
// a WARNING and a refusal for a damaged one. Never raises an ERROR.
void load_at_start(CridShared *s);

// The worker, before it serves ids of `unix_s` (a second in Unix seconds):
// makes sure the mark on disk covers it, writing only when it is a later
// second than the mark. `sequence` is how far that second's registry row
// reached. ERROR when the file cannot be written.
void cover(int64_t unix_s, int64_t sequence);

// crid_reset_high_water(at, force) for the registry mark: the mark moves to
// at's second (never back unless forced, or when it was damaged) and the
// worker restarts its guard from it. Returns the second the mark holds now.
int64_t reset(int64_t at_unix_ms, bool force);

// ERROR 55000 for crid_next() while the mark is damaged.
[[noreturn]] void raise_refusal(CridShared *s);

} // namespace crid::pg::crid_ids::registry_mark
