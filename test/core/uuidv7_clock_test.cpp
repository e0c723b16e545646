// Commit-wait UUIDv7 ticks: strictly increasing per caller and across
// callers that do not overlap (a linearizability check over threads on the
// real clocks), the offset follows the real clock forward but never back,
// and the restart floor is respected.
#include "check.hpp"

#include "../../src/core/clock.hpp"
#include "../../src/core/uuidv7_clock.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
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

TEST(initial_offset_starts_after_the_restart_floor) {
    int64_t mono = 5 * ns_per_ms;
    // A floor in the past is no constraint: the offset is real - mono.
    CHECK_EQ(initial_offset_ns(real_2026_ns, mono, tick_from_unix_ns(real_2026_ns - ns_per_ms)),
             uint64_t(real_2026_ns - mono));
    // A floor ahead of the clock (it came back behind after a restart): the
    // first tick lies after it.
    uint64_t floor = tick_from_unix_ns(real_2026_ns + 500 * ns_per_ms);
    uint64_t off = initial_offset_ns(real_2026_ns, mono, floor);
    CHECK(tick_from_unix_ns(mono + int64_t(off)) > floor);
    CHECK_EQ(tick_from_unix_ns(mono + int64_t(off)), floor + 1);
}

TEST(ticks_increase_and_follow_a_forward_step_but_not_a_backward_one) {
    FakeClocks c;
    LocalWord offset{uint64_t(c.real_minus_mono)};
    CommitWaitLocal local;
    auto next = [&] {
        return commit_wait_tick(
            offset, local, [&] { return c.read_mono(); }, [&] { return c.read_real(); }, resync);
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
    LocalWord offset{uint64_t(c.real_minus_mono)};
    CommitWaitLocal local;
    c.real_minus_mono += resync / 2;
    c.mono += 2 * ns_per_ms;
    commit_wait_tick(
        offset, local, [&] { return c.read_mono(); }, [&] { return c.read_real(); }, resync);
    CHECK_EQ(offset.load(), uint64_t(real_2026_ns));
}

TEST(threads_never_return_a_tick_below_one_returned_before) {
    // Each call is bracketed by two events of one global counter. When call A
    // ended (event eA) before call B started (sB), B's id must exceed A's.
    // Ids are (tick, thread), as the glue makes them (tick, process slot).
    // The monotonic clock is coarsened to 16 us so that threads often read
    // the same tick: without the commit-wait this check fails.
    constexpr int threads = 4, per_thread = 20000;
    auto coarse_ns = [] { return steady_ns() & ~INT64_C(0x3FFF); };
    ThreadWord offset;
    offset.store(initial_offset_ns(wall_clock_ns(), coarse_ns(), 0));
    std::atomic<uint64_t> events{0};
    struct Call {
        uint64_t start, end, id;
    };
    std::vector<std::vector<Call>> calls(threads);
    std::vector<std::thread> pool;
    for (int th = 0; th < threads; ++th)
        pool.emplace_back([&, th] {
            CommitWaitLocal local;
            auto &mine = calls[size_t(th)];
            mine.reserve(per_thread);
            for (int i = 0; i < per_thread; ++i) {
                uint64_t s = events.fetch_add(1);
                uint64_t t = commit_wait_tick(offset, local, coarse_ns, wall_clock_ns, resync);
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
}
