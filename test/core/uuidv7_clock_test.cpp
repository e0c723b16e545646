// Server-wide UUIDv7 ticks: strictly increasing per caller and across
// callers that do not overlap (a linearizability check over threads on the
// real clocks, with compare-and-swap calls, commit-wait calls and both
// mixed), the offset follows the real clock forward but never back, and the
// restart floor is respected.
#include "check.hpp"

#include "../../src/core/clock.hpp"
#include "../../src/core/uuidv7_clock.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

using namespace crid::core;
using namespace crid::core::uuidv7;

namespace {

int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

constexpr int64_t real_2026_ns = INT64_C(1767225600000) * ns_per_ms;
constexpr int64_t resync = ns_per_ms;

// A fake monotonic clock that moves 7 ns per reading, and a real clock the
// test moves by hand.
struct FakeClocks {
    int64_t mono = 1000 * ns_per_ms;
    int64_t real_minus_mono = real_2026_ns;
    int64_t read_mono() { return mono += 7; }
    int64_t read_real() const { return mono + real_minus_mono; }
};

} // namespace

TEST(unix_ns_of_tick_inverts_tick_from_unix_ns) {
    for (int64_t ns : {INT64_C(0), INT64_C(1), INT64_C(15258), INT64_C(15259), real_2026_ns + 999999, real_2026_ns}) {
        uint64_t t = tick_from_unix_ns(ns);
        CHECK(unix_ns_of_tick(t) <= ns);
        CHECK_EQ(tick_from_unix_ns(unix_ns_of_tick(t)), t);
        CHECK(tick_from_unix_ns(unix_ns_of_tick(t + 1)) == t + 1);
        CHECK(tick_from_unix_ns(unix_ns_of_tick(t + 1) - 1) == t);
    }
}

// Words as the glue builds them when shared memory is built: real minus
// monotonic time, lifted above a restart floor.
template <class W>
void start_words(ServerClockWords<W> &w, int64_t real, int64_t mono, uint64_t floor_tick) {
    w.target.store(uint64_t(real - mono));
    w.catchup.store(catchup_above(0, mono, floor_tick));
}

TEST(the_first_tick_comes_after_the_restart_floor) {
    ServerClockWords<LocalWord> w;
    int64_t mono = 5 * ns_per_ms;
    // A floor in the past is no constraint: ids tell real time.
    start_words(w, real_2026_ns, mono, tick_from_unix_ns(real_2026_ns - ns_per_ms));
    CHECK_EQ(ids_clock_ns(w, mono), real_2026_ns);
    // A floor ahead of the clock (it came back behind after a restart): the
    // first tick lies just after it.
    uint64_t floor = tick_from_unix_ns(real_2026_ns + 500 * ns_per_ms);
    start_words(w, real_2026_ns, mono, floor);
    CHECK_EQ(tick_from_unix_ns(ids_clock_ns(w, mono)), floor + 1);
}

TEST(ids_ahead_of_real_time_slow_down_until_it_catches_up) {
    ServerClockWords<LocalWord> w;
    int64_t mono = 5 * ns_per_ms;
    start_words(w, real_2026_ns, mono, tick_from_unix_ns(real_2026_ns + 1000 * ns_per_ms));
    int64_t last = ids_clock_ns(w, mono);
    for (int step = 1; step <= 3000; ++step) {
        int64_t m = mono + step * ns_per_ms, now = ids_clock_ns(w, m);
        CHECK(now > last);
        last = now;
        if (step == 1000) { // half speed: 500 ms of the 1000 ms lead are gone (the floor's tick is ~15 ns)
            int64_t lead = now - (real_2026_ns + step * ns_per_ms);
            CHECK(lead >= 500 * ns_per_ms && lead < 500 * ns_per_ms + 100);
        }
    }
    // After 2 s the ids tell real time again, and keep it.
    CHECK_EQ(last, real_2026_ns + 3000 * ns_per_ms);
    // Raising the floor never lowers the words.
    CHECK_EQ(catchup_above(w.catchup.load(), mono, 0), w.catchup.load());
}

TEST(ticks_increase_and_follow_a_forward_step_but_not_a_backward_one) {
    FakeClocks c;
    ServerClockWords<LocalWord> w;
    start_words(w, c.read_real(), c.mono, 0);
    ServerClockLocal local;
    auto next = [&] {
        return server_tick(
            w, local, [&] { return c.read_mono(); }, [&] { return c.read_real(); }, resync);
    };
    uint64_t last = 0;
    for (int i = 0; i < 1000; ++i) {
        uint64_t t = next();
        CHECK(t > last);
        last = t;
    }
    // The real clock jumps ahead 10 s: after the next ms boundary the ticks
    // tell the new time.
    c.real_minus_mono += 10000 * ns_per_ms;
    c.mono += ns_per_ms;
    uint64_t t = next();
    CHECK(t > last);
    CHECK_EQ(t >> fraction_bits, uint64_t(c.read_real() / ns_per_ms));
    last = t;
    // The real clock steps back 5 s: ticks keep increasing from where they were.
    c.real_minus_mono -= 5000 * ns_per_ms;
    for (int i = 0; i < 2000; ++i) {
        c.mono += 1000; // crosses ms boundaries, so the real clock is read
        uint64_t u = next();
        CHECK(u > last);
        last = u;
    }
    CHECK((last >> fraction_bits) > uint64_t(c.read_real() / ns_per_ms));
}

TEST(a_jump_below_the_resync_threshold_is_not_followed) {
    FakeClocks c;
    ServerClockWords<LocalWord> w;
    start_words(w, c.read_real(), c.mono, 0);
    uint64_t target = w.target.load();
    ServerClockLocal local;
    c.real_minus_mono += resync / 2;
    c.mono += 2 * ns_per_ms;
    server_tick(
        w, local, [&] { return c.read_mono(); }, [&] { return c.read_real(); }, resync);
    CHECK_EQ(w.target.load(), target);
}

// Each call is bracketed by two events of one global counter. When call A
// ended (event eA) before call B started (sB), B's id must exceed A's. Ids
// are (tick, thread), as the glue makes them (tick, process slot). The
// monotonic clock is coarsened to 16 us so that threads often read the same
// tick: without the commit-wait or the compare-and-swap this check fails.
// `mode` starts the mode word: 0 compare-and-swap first, INT64_MAX
// commit-wait for good; `probe_ns` 0 makes every call after a failed
// compare-and-swap try it again, so the two kinds of call mix all along.
void check_threads_never_go_below(uint64_t floor_tick, uint64_t mode = 0, int64_t probe_ns = default_probe_ns) {
    constexpr int threads = 4, per_thread = 20000;
    auto coarse_ns = [] { return steady_ns() & ~INT64_C(0x3FFF); };
    ServerClockWords<ThreadWord> words;
    start_words(words, wall_clock_ns(), coarse_ns(), floor_tick);
    words.mode.store(mode);
    std::atomic<uint64_t> events{0};
    struct Call {
        uint64_t start, end, id;
    };
    std::vector<std::vector<Call>> calls(threads);
    std::vector<std::thread> pool;
    for (int th = 0; th < threads; ++th)
        pool.emplace_back([&, th] {
            ServerClockLocal local;
            auto &mine = calls[size_t(th)];
            mine.reserve(per_thread);
            for (int i = 0; i < per_thread; ++i) {
                uint64_t s = events.fetch_add(1);
                uint64_t t = server_tick(words, local, coarse_ns, wall_clock_ns, resync, probe_ns);
                uint64_t e = events.fetch_add(1);
                mine.push_back({s, e, (t << 2) | uint64_t(th)});
            }
        });
    for (auto &t : pool)
        t.join();
    std::vector<Call> all;
    for (auto &c : calls)
        all.insert(all.end(), c.begin(), c.end());
    std::vector<Call> by_end = all;
    std::sort(all.begin(), all.end(), [](const Call &a, const Call &b) { return a.start < b.start; });
    std::sort(by_end.begin(), by_end.end(), [](const Call &a, const Call &b) { return a.end < b.end; });
    size_t ended = 0, violations = 0;
    uint64_t max_ended = 0;
    for (const Call &c : all) {
        while (ended < by_end.size() && by_end[ended].end < c.start)
            max_ended = std::max(max_ended, by_end[ended++].id);
        if (ended > 0 && c.id <= max_ended)
            ++violations;
    }
    std::vector<uint64_t> ids;
    for (const Call &c : all)
        ids.push_back(c.id);
    std::sort(ids.begin(), ids.end());
    CHECK_EQ(violations, size_t(0));
    CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end()); // no id twice
    CHECK((ids.front() >> 2) > floor_tick);
}

TEST(threads_never_return_a_tick_below_one_returned_before) { check_threads_never_go_below(0); }

TEST(threads_never_return_a_tick_below_one_returned_before_while_catching_up) {
    // Ids start 5 s ahead of real time: their clock runs at half speed.
    check_threads_never_go_below(tick_from_unix_ns(wall_clock_ns() + 5000 * ns_per_ms));
}

TEST(threads_that_only_commit_wait_never_go_below) { check_threads_never_go_below(0, uint64_t(INT64_MAX)); }

TEST(threads_mixing_compare_and_swap_and_commit_wait_never_go_below) {
    check_threads_never_go_below(0, 0, 0);
    check_threads_never_go_below(tick_from_unix_ns(wall_clock_ns() + 5000 * ns_per_ms), 0, 0);
}

// One caller alone keeps to compare-and-swap calls: one clock reading per
// tick (no commit-wait), and `last` holds what it returned.
TEST(a_caller_alone_takes_ticks_by_compare_and_swap) {
    FakeClocks c;
    ServerClockWords<LocalWord> w;
    start_words(w, c.read_real(), c.mono, 0);
    ServerClockLocal local;
    int readings = 0;
    auto mono = [&] {
        ++readings;
        c.mono += 100; // ~6.5 ticks per call: no two ids share a tick
        return c.mono;
    };
    uint64_t last = 0;
    for (int i = 0; i < 1000; ++i) {
        uint64_t t = server_tick(
            w, local, mono, [&] { return c.read_real(); }, resync);
        CHECK(t > last);
        CHECK_EQ(w.last.load(), t);
        last = t;
    }
    CHECK_EQ(w.mode.load(), uint64_t(0));
    CHECK_EQ(readings, 1000);
}

// Two ids in one tick: the second goes above `last`, and waits until the
// clock reaches it rather than run ahead of time.
TEST(a_compare_and_swap_tick_never_runs_ahead_of_the_clock) {
    FakeClocks c; // 7 ns per reading: about two readings per tick
    ServerClockWords<LocalWord> w;
    start_words(w, c.read_real(), c.mono, 0);
    ServerClockLocal local;
    for (int i = 0; i < 1000; ++i) {
        uint64_t t = server_tick(
            w, local, [&] { return c.read_mono(); }, [&] { return c.read_real(); }, resync);
        CHECK(t <= tick_from_unix_ns(ids_clock_ns(w, c.mono)));
    }
}

// A word whose next compare-and-swap loses to another process's write.
struct RacedWord {
    uint64_t value = 0;
    uint64_t race = 0; // written just before the next compare_exchange (0: none)
    uint64_t load() const noexcept { return value; }
    void store(uint64_t v) noexcept { value = v; }
    bool compare_exchange(uint64_t &expected, uint64_t desired) noexcept {
        if (race != 0)
            value = std::exchange(race, 0);
        if (value != expected) {
            expected = value;
            return false;
        }
        value = desired;
        return true;
    }
};

// A failed compare-and-swap (another process took a tick in between)
// switches calls to commit-wait, and a call probe_ns later switches back.
TEST(contention_switches_to_commit_wait_and_a_probe_switches_back) {
    FakeClocks c;
    ServerClockWords<RacedWord> w;
    start_words(w, c.read_real(), c.mono, 0);
    ServerClockLocal local;
    auto real = [&] { return c.read_real(); };
    auto mono = [&] { return c.mono += 100; };
    const uint64_t other = tick_from_unix_ns(ids_clock_ns(w, c.mono)) + 3;
    w.last.race = other;
    uint64_t t = server_tick(w, local, mono, real, resync, ns_per_ms);
    CHECK(t > other);               // above the other process's tick
    CHECK(w.mode.load() != 0);      // and commit-waiting now
    CHECK_EQ(w.last.load(), other); // commit-wait calls write nothing
    uint64_t u = server_tick(w, local, mono, real, resync, ns_per_ms);
    CHECK(u > t && w.last.load() == other && w.mode.load() != 0);
    c.mono += 2 * ns_per_ms; // past probe_ns: compare-and-swap again
    uint64_t v = server_tick(w, local, mono, real, resync, ns_per_ms);
    CHECK(v > u);
    CHECK_EQ(w.mode.load(), uint64_t(0));
    CHECK_EQ(w.last.load(), v);
}

TEST(slot_bits_cover_every_process_slot) {
    CHECK_EQ(slot_bits_for(1), 1);
    CHECK_EQ(slot_bits_for(2), 1);
    CHECK_EQ(slot_bits_for(3), 2);
    CHECK_EQ(slot_bits_for(130), 8);
    CHECK_EQ(slot_bits_for(256), 8);
    CHECK_EQ(slot_bits_for(257), 9);
    CHECK_EQ(slot_bits_for(UINT64_C(1) << 40), 18);
}

TEST(uuids_of_one_tick_differ_by_slot_and_sort_by_tick_first) {
    uint64_t tick = tick_from_unix_ns(real_2026_ns + 123456);
    Uuid a = from_tick_and_slot(tick, 3, 8, ~UINT64_C(0));
    Uuid b = from_tick_and_slot(tick, 4, 8, 0);
    CHECK(a < b); // the slot sits above every random bit
    CHECK(from_tick_and_slot(tick, 255, 8, ~UINT64_C(0)) < from_tick_and_slot(tick + 1, 0, 8, 0));
    CHECK_EQ(a.version(), 7);
    CHECK(a.rfc_variant());
    CHECK_EQ(unix_ms_of(a), uint64_t(real_2026_ns / ns_per_ms));
    // The slot does not spill into the tick's bits.
    CHECK(from_tick_and_slot(tick, 0xFF, 8, 0) < from_tick_and_slot(tick + 1, 0, 8, 0));
}
