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

#include "common/minting.hpp"
#include "common/postgres_headers.hpp"

namespace crid::pg::marks {

// Its shared state: from shmem_request_hook, then in the postmaster at start
// and after every crash, when the file is read; a WARNING and a refusal for
// a damaged one. Never raises an ERROR.
void request_registry_mark();
void startup_registry_mark();

// The mark as the worker's guard starts from: `generation` changes with
// every crid_reset_high_water(), which restarts the guard.
struct RegistryMarkState {
    uint64_t generation = 0;
    bool known = false;   // a mark exists (read at start or written since)
    int64_t unix_s = 0;   // the last second with a reserved block
    int64_t sequence = 0; // its registry row had reached at least this
};
RegistryMarkState registry_mark();

// The worker, before it serves ids of `unix_s` (a second in Unix seconds):
// makes sure the mark on disk covers it, writing only when it is a later
// second than the mark. `sequence` is how far that second's registry row
// reached. ERROR when the file cannot be written.
void cover_registry_mark(int64_t unix_s, int64_t sequence);

// crid_reset_high_water(at, force) for the registry mark: the mark moves to
// at's second (never back unless forced, or when it was damaged) and the
// next registry_mark() has a new generation. Returns the second the mark holds now.
int64_t reset_registry_mark(int64_t at_unix_ms, bool force);

// What refuses crid minting now (none or mark_damaged), for crid_stats().
Refusal registry_mark_refusal() noexcept;

// ERROR 55000 while the mark is damaged: every crid id passes here (one
// atomic read).
[[noreturn]] void raise_registry_mark_refusal();
inline void check_registry_mark() {
    if (registry_mark_refusal() != Refusal::none)
        raise_registry_mark_refusal();
}

} // namespace crid::pg::marks
