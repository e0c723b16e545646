// Server-wide UUIDv7 order from a clock that never steps back, in one of two
// ways per call, either of them correct beside the other.
//
// The guarantee: every tick returned is greater than every tick returned
// before it anywhere on the server (a call that starts after another call
// returned gets a greater tick; concurrent calls may come out in either
// order).
//
//   * The ids' clock. The tick of monotonic time m is
//       tick_from_unix_ns(m + offset(m)) with offset(m) = max(target, catchup - m / 2)
//     `target` is real time minus monotonic time (set at start, raised when
//     the real clock jumps ahead); `catchup` lifts ids above a restart floor
//     (the high-water mark, or one replayed from a primary) and then lets go
//     of it at half speed: while ids run ahead of real time, their clock runs
//     at half the rate of real time until real time catches up. Both words
//     only ever grow and m never goes back, and m + offset(m) grows with m
//     (slope 1, or 1/2 while catching up), so the tick of a clock reading
//     never goes back, in any process.
//   * A compare-and-swap call reads the clock once and takes
//     max(clock tick, last + 1) into the shared word `last` with a
//     compare-and-swap: any later call reads `last` and goes above it. It
//     costs one clock read and one atomic on a cache line that stays in the
//     caller's core while it is the only one minting.
//   * A commit-wait call takes max(clock tick, last + 1) without writing
//     anything, and returns only once the clock's tick has passed it (a tick
//     is 1/65536 ms, ~15 ns, shorter than making the id takes, so it hardly
//     ever spins): any later call reads a later clock. It costs a second
//     clock read but shares no written cache line, so it scales with cores.
//   * Either way the later call gets a greater tick, whatever kind it is.
//     `mode` only chooses: 0 while compare-and-swap calls succeed; a failed
//     one (another process took a tick in between: two backends minting at
//     once) stores its monotonic time there, and calls then commit-wait
//     until `probe_ns` later, when one tries compare-and-swap again.
//   * Two backends may take the same tick at the same moment (a commit-wait
//     call beside another call); the caller makes their ids distinct by
//     placing its process slot (unique among live backends) in the bits
//     after the tick. Such calls overlap in time, so either order is allowed.
//     Within one backend every tick is strictly greater than its last.
//
// Once per millisecond of its own the caller also reads the real clock: when
// it has moved ahead of the ids by more than `resync_ns` (an NTP step
// forward, a resumed VM), `target` is raised so ids keep telling the time. A
// real clock that steps back is not followed at once: the ids' clock then
// runs at half speed until it is back.
#pragma once
#include "pure_cpp.hpp"

#include "monotonic_word.hpp"
#include "time_units.hpp"
#include "uuidv7.hpp"

#include <cstdint>

namespace crid::core::uuidv7 {

// The shared words: the clock's offsets (nanoseconds as int64 in uint64
// words; 0 = none), the last tick a compare-and-swap call took (0: none),
// and the mode (0: compare-and-swap; else the monotonic ns at which a
// compare-and-swap failed).
template <Word W>
struct ServerClockWords {
    W target;
    W catchup;
    W last;
    W mode;
};

// What one backend remembers between calls.
struct ServerClockLocal {
    uint64_t last_tick = 0;      // the last tick this backend returned
    int64_t last_checked_ms = 0; // the monotonic ms at which it last read the real clock
};

// The first Unix nanosecond whose tick (tick_from_unix_ns) is `tick`.
constexpr int64_t unix_ns_of_tick(uint64_t tick) noexcept {
    uint64_t ms = tick >> fraction_bits, fraction = tick & ((UINT64_C(1) << fraction_bits) - 1);
    uint64_t ns_in_ms = (fraction * uint64_t(ns_per_ms) + (UINT64_C(1) << fraction_bits) - 1) >> fraction_bits;
    return int64_t(ms) * ns_per_ms + int64_t(ns_in_ms);
}

// offset(m) of the words' values.
constexpr int64_t offset_at(int64_t mono_ns, uint64_t target, uint64_t catchup) noexcept {
    int64_t lifted = int64_t(catchup) - mono_ns / 2;
    return lifted > int64_t(target) ? lifted : int64_t(target);
}

// The Unix nanosecond the ids' clock reads at monotonic time m.
template <Word W>
int64_t ids_clock_ns(const ServerClockWords<W> &words, int64_t mono_ns) {
    return mono_ns + offset_at(mono_ns, words.target.load(), words.catchup.load());
}

// The `catchup` value that makes the tick at monotonic time m come after
// `floor_tick`, or `old` when that already holds (it never moves back).
constexpr uint64_t catchup_above(uint64_t old, int64_t mono_ns, uint64_t floor_tick) noexcept {
    // catchup - m / 2 >= floor - m, so m + offset(m) reaches the floor.
    int64_t needed = unix_ns_of_tick(floor_tick + 1) - mono_ns / 2;
    return needed > int64_t(old) ? uint64_t(needed) : old;
}

// The last tick of Unix millisecond `unix_ms` (0 before 1970): ticks after
// a restart at a high-water mark of that millisecond are above it.
constexpr uint64_t last_tick_of_ms(int64_t unix_ms) noexcept {
    return unix_ms < 0 ? 0 : ((uint64_t(unix_ms) + 1) << fraction_bits) - 1;
}

// How long calls commit-wait after a compare-and-swap failed before one
// tries again: long beside a burst of contention, short beside a session.
inline constexpr int64_t default_probe_ns = 100 * INT64_C(1000000);

// The next tick (see above). `mono()` and `real()` return nanoseconds of the
// monotonic and the real clock. Throws datetime_out_of_range past the last
// UUIDv7 millisecond.
template <Word W, class Mono, class Real>
uint64_t server_tick(ServerClockWords<W> &words, ServerClockLocal &local, Mono &&mono, Real &&real, int64_t resync_ns,
                     int64_t probe_ns = default_probe_ns) {
    uint64_t target = words.target.load(), catchup = words.catchup.load();
    int64_t m = mono();
    if (m / ns_per_ms != local.last_checked_ms) {
        local.last_checked_ms = m / ns_per_ms;
        int64_t wanted = real() - m;
        // Raise the target when the real clock ran ahead; never lower it.
        while (wanted > int64_t(target) + resync_ns && !words.target.compare_exchange(target, uint64_t(wanted))) {
        }
        if (wanted > int64_t(target) + resync_ns)
            target = uint64_t(wanted);
    }
    const uint64_t clock_tick = tick_from_unix_ns(m + offset_at(m, target, catchup));
    auto above = [&](uint64_t last) {
        uint64_t t = clock_tick > last ? clock_tick : last + 1;
        return t > local.last_tick ? t : local.last_tick + 1;
    };
    auto clock_passed = [&](uint64_t t) { return tick_from_unix_ns(ids_clock_ns(words, mono())) > t; };
    uint64_t last = words.last.load();
    uint64_t mode = words.mode.load();
    if (mode == 0 || m - int64_t(mode) > probe_ns) {
        if (mode != 0)
            words.mode.compare_exchange(mode, 0);
        uint64_t t = above(last);
        if (words.last.compare_exchange(last, t)) {
            // Two ids in one tick put `last` ahead of the clock: keep ids
            // from running ahead of time (rare: a tick is ~15 ns).
            while (t > clock_tick && !clock_passed(t - 1)) {
            }
            local.last_tick = t;
            return t;
        }
        // Another process took a tick meanwhile (`last` now holds it):
        // commit-wait for a while.
        words.mode.store(uint64_t(m > 0 ? m : 1));
    }
    uint64_t t = above(last);
    while (!clock_passed(t)) {
    }
    local.last_tick = t;
    return t;
}

// How many bits of rand_b carry the process slot of a commit-wait id: enough
// for `process_slots` distinct values (at least 1 bit, at most 18, which
// PostgreSQL's limits never exceed).
constexpr int slot_bits_for(uint64_t process_slots) noexcept {
    int bits = 1;
    while (bits < 18 && (UINT64_C(1) << bits) < process_slots)
        ++bits;
    return bits;
}

// A version 7 UUID of a commit-wait tick: the tick (48-bit ms, 16-bit
// fraction), then the caller's process slot in the next `slot_bits` bits,
// then random bits. Two calls that read the same tick come from different
// processes, so (tick, slot) never repeats on one server.
inline Uuid from_tick_and_slot(uint64_t tick, uint64_t slot, int slot_bits, uint64_t random) noexcept {
    const int random_bits = 58 - slot_bits;
    return from_tick(tick, (slot << random_bits) | (random & ((UINT64_C(1) << random_bits) - 1)));
}

} // namespace crid::core::uuidv7
