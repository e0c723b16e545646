// What this server has taken from the crid registry, so that a registry that
// went backwards cannot make it serve an id twice.
//
// A registry goes backwards when its rows lose history: DROP and CREATE
// EXTENSION, TRUNCATE crid_allocations, or the restore of an older dump.
// Its next upsert for a second this server already used then starts that
// second's sequences again at 0, below blocks already served.
//
// The guard keeps one rule: every block published must lie wholly above
// every block published before (ids are ts << sequence_bits | seq, so "above"
// means a later second, or the same second at or past the end of the last
// block). The worker reserves seconds in non-decreasing order and the
// registry only grows, so a sound registry never breaks the rule; a block
// that breaks it came from a registry that went backwards. Such a block is
// dropped (a gap, never a repeat) and reservations move on to the next
// second, which nothing served yet.
//
// Across a restart the guard starts from the persisted mark (the last second
// in which a block was reserved, written before any id of that second was
// served): reservations start in the second after it.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>

namespace crid::core::crid_ids {

class RegistryGuard {
  public:
    // After a restart: blocks were reserved up to second `ts`, whose registry
    // row had reached at least `sequence`.
    void restore(int64_t ts, int64_t sequence) noexcept {
        known_ = true;
        last_ts_ = ts;
        last_end_ = sequence;
        earliest_ts_ = ts + 1;
    }

    // The earliest second the next reservation may use.
    int64_t earliest_ts() const noexcept { return earliest_ts_; }

    // Second `ts` has no room for another block: move on to the next.
    void second_full(int64_t ts) noexcept {
        if (ts + 1 > earliest_ts_)
            earliest_ts_ = ts + 1;
    }

    // The registry returned block [start, start + size) of second `ts`.
    // True: it lies above everything accepted before (publish it). False: the
    // registry went backwards; drop the block, the next reservation uses a
    // later second.
    bool accept(int64_t ts, int64_t start, int64_t size) noexcept {
        if (known_ && (ts < last_ts_ || (ts == last_ts_ && start < last_end_))) {
            went_backwards();
            return false;
        }
        known_ = true;
        last_ts_ = ts;
        last_end_ = start + size;
        if (ts > earliest_ts_)
            earliest_ts_ = ts;
        return true;
    }

    // The registry's row of last_ts() was missing or below last_end(): it
    // went backwards. Reservations continue after that second.
    void went_backwards() noexcept {
        if (last_ts_ + 1 > earliest_ts_)
            earliest_ts_ = last_ts_ + 1;
    }

    // The last accepted (or restored) block: its second and the end of its
    // sequences. Meaningful only when known().
    bool known() const noexcept { return known_; }
    int64_t last_ts() const noexcept { return last_ts_; }
    int64_t last_end() const noexcept { return last_end_; }

  private:
    bool known_ = false;
    int64_t last_ts_ = 0;
    int64_t last_end_ = 0;
    int64_t earliest_ts_ = 0;
};

} // namespace crid::core::crid_ids
