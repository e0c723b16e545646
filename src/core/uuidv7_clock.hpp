// Server-wide UUIDv7 order without a shared write per id: "commit-wait" on a
// clock that never steps back.
//
// The guarantee: every tick returned is greater than every tick returned
// before it anywhere on the server (a call that starts after another call
// returned gets a greater tick; concurrent calls may come out in either
// order). The compare-and-swap design (one shared word, advance() in
// monotonic_word.hpp) gives it by making every id bounce one cache line
// between cores. This design gives it from time alone:
//
//   * Ticks come from CLOCK_MONOTONIC plus a shared offset (real time minus
//     monotonic time, fixed when shared memory is built). The monotonic clock
//     never steps back, and the offset only ever grows, so the tick of a
//     clock reading never goes back either, across all processes.
//   * Commit-wait: after choosing tick t from a reading, the caller waits
//     until the clock's tick has passed t before it returns (a few
//     nanoseconds: a tick is 1/65536 ms, ~15 ns, and making the id takes
//     longer than that). Any call that starts afterwards reads a later clock
//     and gets a tick > t. Within one backend that also makes every tick
//     strictly greater than its previous one.
//   * Two backends may read the same tick at the same moment; the caller
//     makes their ids distinct by placing its process slot (unique among
//     live backends) in the bits after the tick. Such calls overlap in time,
//     so either order is allowed.
//
// Per id: two reads of the monotonic clock (vDSO, no system call) and a read
// of the offset, a line that is only written when the real clock jumped
// forward. Once per millisecond of its own the caller also reads the real
// clock: when it has moved ahead of monotonic + offset by more than
// `resync_ns` (an NTP step forward, a suspended VM), the offset is raised so
// ids keep telling the time. A real clock that steps back is not followed:
// ids then run ahead of it by the step (like the compare-and-swap design's
// logical clock), and the high-water mark keeps that true across restarts.
#pragma once
#include "pure_cpp.hpp"

#include "monotonic_word.hpp"
#include "time_units.hpp"
#include "uuidv7.hpp"

#include <cstdint>

namespace crid::core::uuidv7 {

// What one backend remembers between calls.
struct CommitWaitLocal {
    uint64_t last_tick = 0;      // the last tick this backend returned
    int64_t last_checked_ms = 0; // the monotonic ms at which it last read the real clock
};

// The first Unix nanosecond whose tick (tick_from_unix_ns) is `tick`.
constexpr int64_t unix_ns_of_tick(uint64_t tick) noexcept {
    uint64_t ms = tick >> fraction_bits, fraction = tick & ((UINT64_C(1) << fraction_bits) - 1);
    uint64_t ns_in_ms = (fraction * uint64_t(ns_per_ms) + (UINT64_C(1) << fraction_bits) - 1) >> fraction_bits;
    return int64_t(ms) * ns_per_ms + int64_t(ns_in_ms);
}

// The offset to start from: real - monotonic, raised so that the first tick
// lies after `floor_tick` (the restart floor from the high-water mark).
inline uint64_t initial_offset_ns(int64_t real_ns, int64_t mono_ns, uint64_t floor_tick) {
    int64_t offset = real_ns - mono_ns;
    // The first unix ns whose tick exceeds floor_tick: the next tick's start.
    int64_t floor_ns = unix_ns_of_tick(floor_tick + 1);
    if (mono_ns + offset < floor_ns)
        offset = floor_ns - mono_ns;
    return uint64_t(offset);
}

// The next tick (see above). `offset` is the shared word, `mono()` and
// `real()` return nanoseconds of the monotonic and the real clock. Throws
// datetime_out_of_range past the last UUIDv7 millisecond.
template <Word W, class Mono, class Real>
uint64_t commit_wait_tick(W &offset, CommitWaitLocal &local, Mono &&mono, Real &&real, int64_t resync_ns) {
    uint64_t off = offset.load();
    int64_t m = mono();
    if (m / ns_per_ms != local.last_checked_ms) {
        local.last_checked_ms = m / ns_per_ms;
        int64_t wanted = real() - m;
        // Raise the offset when the real clock ran ahead; never lower it.
        while (wanted > int64_t(off) + resync_ns && !offset.compare_exchange(off, uint64_t(wanted))) {
        }
        if (wanted > int64_t(off) + resync_ns)
            off = uint64_t(wanted);
    }
    uint64_t t = tick_from_unix_ns(m + int64_t(off));
    if (t <= local.last_tick) // impossible with a monotonic clock; kept as a guard
        t = local.last_tick + 1;
    // Commit-wait: return only once the clock's tick has passed t.
    while (tick_from_unix_ns(mono() + int64_t(offset.load())) <= t) {
    }
    local.last_tick = t;
    return t;
}

} // namespace crid::core::uuidv7
