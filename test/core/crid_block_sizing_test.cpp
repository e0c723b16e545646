// Blocks that size themselves, on a fake clock: a simulated server hands ids
// out at a rate the test sets, and reserves as the block reserver does (once
// fewer than reserve_target() ids remain, one block of block_size() per
// registry round trip).
#include "check.hpp"

#include "../../src/core/crid_block_sizing.hpp"

#include <vector>

using namespace crid::core::crid_ids;

namespace {

SizingSettings settings(int64_t base = 10000, int64_t threshold = 5000, int64_t max_rate = 4, Layout l = Layout{}) {
    ReservationSettings usable = usable_settings(l, base, threshold);
    return sizing_settings(l, usable, max_rate, 28);
}

// A server minting at `rate` ids a second, in steps of 1 ms, whose registry
// answers `round_trip_ms` after a reservation is sent. The reserver looks at
// demand whenever the reserve runs low (backends wake it) and at least once
// a second (its latch timeout), as worker/block_refill.cpp does.
struct FakeServer {
    SizingSettings s;
    BlockSizer sizer;
    int64_t now_ms = 1000000;
    int64_t rate = 0;
    int64_t round_trip_ms = 2;
    double remaining = 0;
    uint64_t served = 0;
    uint64_t waits = 0;
    int64_t in_flight_until = -1; // a reservation answers then
    int64_t in_flight_size = 0;
    int64_t last_look_ms = 0;
    std::vector<int64_t> reserved_at; // when each block was reserved
    std::vector<int64_t> sizes;       // ... and its size

    explicit FakeServer(SizingSettings settings) : s(settings) { sizer.observe(now_ms, 0, 0, s); }

    void step() {
        ++now_ms;
        if (in_flight_until >= 0 && now_ms >= in_flight_until) {
            remaining += double(in_flight_size);
            in_flight_until = -1;
        }
        double want = double(rate) / 1000.0;
        if (want > remaining) {
            if (remaining < 1 && want > 0)
                ++waits; // a backend found no id this millisecond
            want = remaining;
        }
        remaining -= want;
        served += uint64_t(want);
        bool low = remaining < double(sizer.reserve_target(s));
        if (low || now_ms - last_look_ms >= 1000) {
            last_look_ms = now_ms;
            sizer.observe(now_ms, served, waits, s);
            if (remaining < double(sizer.reserve_target(s)) && in_flight_until < 0) {
                in_flight_size = sizer.block_size();
                in_flight_until = now_ms + round_trip_ms;
                reserved_at.push_back(now_ms);
                sizes.push_back(in_flight_size);
            }
        }
    }
    void run_ms(int64_t ms) {
        for (int64_t i = 0; i < ms; ++i)
            step();
    }
    // Blocks reserved in [from, to).
    int64_t blocks_between(int64_t from, int64_t to) const {
        int64_t n = 0;
        for (int64_t t : reserved_at)
            n += t >= from && t < to;
        return n;
    }
    // The most blocks reserved within any second of [from, to).
    int64_t most_in_a_second(int64_t from, int64_t to) const {
        int64_t most = 0;
        for (int64_t t : reserved_at)
            if (t >= from && t + 1000 <= to)
                most = std::max(most, blocks_between(t, t + 1000));
        return most;
    }
};

} // namespace

TEST(block_sizing_block_for_rate_steps_and_caps) {
    SizingSettings s = settings();
    CHECK_EQ(s.cap, int64_t(67108864)); // 2^32 / 64
    CHECK_EQ(block_for_rate(s, 0), int64_t(10000));
    CHECK_EQ(block_for_rate(s, 40000), int64_t(10000)); // R * base: still the base
    CHECK_EQ(block_for_rate(s, 40001), int64_t(20000));
    CHECK_EQ(block_for_rate(s, 10000000), int64_t(2560000)); // the least 10000 * 2^k >= 2,500,000
    CHECK_EQ(block_for_rate(s, INT64_MAX), s.cap);
    Layout wide;
    wide.timestamp_bits = 40; // 2^23 ids a second: 1/64 of it is 131072
    SizingSettings w = settings(10000, 5000, 4, wide);
    CHECK_EQ(w.cap, int64_t(131072));
    CHECK_EQ(block_for_rate(w, 100000000), int64_t(131072));
    // A base block larger than the share is its own cap: never below it.
    SizingSettings big = settings(200000, 100000, 4, wide);
    CHECK_EQ(big.cap, int64_t(200000));
    CHECK_EQ(block_for_rate(big, 100000000), int64_t(200000));
    // crid.max_blocks_per_second outside its range is clamped; 0 is off.
    CHECK_EQ(settings(10000, 5000, -1).max_rate, int64_t(0));
    CHECK_EQ(settings(10000, 5000, 1000000).max_rate, max_max_blocks_per_second);
    CHECK_EQ(block_for_rate(settings(10000, 5000, 0), 10000000), int64_t(10000));
}

TEST(block_sizing_low_demand_keeps_the_base_block) {
    FakeServer f(settings());
    f.rate = 30000; // below R * base = 40,000 ids a second
    f.run_ms(20000);
    CHECK_EQ(f.sizer.block_size(), int64_t(10000));
    for (int64_t size : f.sizes)
        CHECK_EQ(size, int64_t(10000));
    CHECK(f.most_in_a_second(1002000, f.now_ms) <= 4);
}

TEST(block_sizing_grows_under_a_high_rate_and_bounds_reservations) {
    FakeServer f(settings());
    f.rate = 10000000; // 10 M ids a second: 1,000 blocks of the base a second
    const int64_t start = f.now_ms;
    f.run_ms(3000);
    const uint64_t waits_after_start = f.waits;
    f.run_ms(17000);
    CHECK_EQ(f.sizer.block_size(), block_for_rate(f.s, 10000000));
    // The reserve stays ahead of demand: once sized, no backend waits.
    CHECK_EQ(f.waits, waits_after_start);
    // After the first seconds, at most R = 4 blocks in any second.
    CHECK(f.most_in_a_second(start + 3000, f.now_ms) <= 4);
    // The start: one block of the base, then blocks of the size the rate
    // needs, the first of them filling the extra reserve that the waits
    // of the start (no block yet) grew.
    CHECK_EQ(f.sizes[0], int64_t(10000));
    CHECK_EQ(f.sizes[1], block_for_rate(f.s, 10000000));
    CHECK(f.blocks_between(start, start + 3000) <= 1 + 4 * 3 + f.s.max_extra_blocks);
    CHECK(f.blocks_between(start, f.now_ms) < 4 * 20 + 16);
    // Without sizing the same ids take 20,000 blocks of 10,000.
    CHECK(f.served > uint64_t(190000000));
}

TEST(block_sizing_a_jump_of_demand_costs_a_few_blocks) {
    FakeServer f(settings());
    f.rate = 100000;
    f.run_ms(10000);
    CHECK_EQ(f.sizer.block_size(), int64_t(40000));
    const int64_t jump = f.now_ms;
    f.rate = 100000 * 64;
    f.run_ms(10000);
    // A few blocks too small before the new size, and the four extra blocks
    // of the reserve that the backends' waits of the jump added.
    CHECK(f.most_in_a_second(jump - 1000, jump + 2000) <= 4 + 3 + 4);
    CHECK(f.most_in_a_second(jump + 3000, f.now_ms) <= 4);
    CHECK_EQ(f.sizer.block_size(), block_for_rate(f.s, 100000 * 64));
}

TEST(block_sizing_shrinks_when_demand_falls_and_not_on_a_dip) {
    FakeServer f(settings());
    f.rate = 5000000;
    f.run_ms(10000);
    const int64_t grown = f.sizer.block_size();
    CHECK(grown > 10000);
    // A dip of one second keeps the size.
    f.rate = 0;
    f.run_ms(1000);
    f.rate = 5000000;
    f.run_ms(3000);
    CHECK_EQ(f.sizer.block_size(), grown);
    // A lasting fall: back to the base once the last shrink_after_ms saw no
    // demand (and the rate window has emptied).
    f.rate = 0;
    f.run_ms(BlockSizer::shrink_after_ms - 1000);
    CHECK_EQ(f.sizer.block_size(), grown);
    f.run_ms(BlockSizer::rate_window_ms * 2 + 2000);
    CHECK_EQ(f.sizer.block_size(), int64_t(10000));
    // A fall to a lower, still high demand: the size that demand needs.
    f.rate = 5000000;
    f.run_ms(5000);
    f.rate = 400000;
    f.run_ms(10000);
    CHECK_EQ(f.sizer.block_size(), block_for_rate(f.s, 400000));
}

TEST(block_sizing_never_passes_the_cap) {
    Layout wide;
    wide.timestamp_bits = 40;
    FakeServer f(settings(10000, 5000, 4, wide));
    f.rate = 50000000; // far beyond what R blocks of the cap hold
    f.run_ms(5000);
    for (int64_t size : f.sizes)
        CHECK(size <= 131072);
    CHECK_EQ(f.sizer.block_size(), int64_t(131072));
    // At the cap, demand is served with more blocks: R no longer binds.
    CHECK(f.served > uint64_t(4 * 5 * 131072));
}

TEST(block_sizing_the_reserve_follows_waits_and_the_block) {
    SizingSettings s = settings();
    BlockSizer z;
    int64_t now = 1000000;
    z.observe(now, 0, 0, s);
    CHECK_EQ(z.reserve_target(s), int64_t(5000)); // crid.threshold
    z.observe(now += 10, 10, 1, s);               // a backend waited
    CHECK_EQ(z.extra_blocks(), int64_t(4));
    CHECK_EQ(z.reserve_target(s), int64_t(5000 + 4 * 10000));
    for (int i = 0; i < 20; ++i)
        z.observe(now += 10, 20, uint64_t(2 + i), s);
    CHECK_EQ(z.extra_blocks(), s.max_extra_blocks); // at most the ring allows
    // Quiet: halved after each shrink_after_ms without a wait.
    z.observe(now += BlockSizer::shrink_after_ms, 20, 21, s);
    CHECK_EQ(z.extra_blocks(), s.max_extra_blocks / 2);
    z.observe(now += BlockSizer::shrink_after_ms, 20, 21, s);
    CHECK_EQ(z.extra_blocks(), s.max_extra_blocks / 4);
    // The threshold is the same share of a grown block.
    SizingSettings none = settings(10000, 0, 4);
    CHECK_EQ(z.reserve_target(none), int64_t(7 * 10000));
}

TEST(block_sizing_a_reload_of_the_block_size_starts_again) {
    FakeServer f(settings());
    f.rate = 2000000;
    f.run_ms(5000);
    CHECK_EQ(f.sizer.block_size(), int64_t(640000));
    f.s = settings(1000, 500);
    f.run_ms(5000);
    CHECK_EQ(f.sizer.block_size(), block_for_rate(f.s, 2000000));
    CHECK_EQ(f.sizer.block_size() % 1000, int64_t(0));
    CHECK(f.most_in_a_second(f.now_ms - 3000, f.now_ms) <= 4);
}

// Off: blocks of crid.block_size whatever the rate; the reserve still
// grows when backends wait.
TEST(block_sizing_off_keeps_every_block_at_the_base) {
    FakeServer f(settings(10000, 5000, 0));
    f.rate = 10000000;
    f.run_ms(3000);
    for (int64_t size : f.sizes)
        CHECK_EQ(size, int64_t(10000));
    CHECK(f.sizer.extra_blocks() > 0);
}

// A served counter that goes back (a new life of the server's shared
// memory) restarts the measurement instead of reading a huge rate.
TEST(block_sizing_a_counter_that_goes_back_restarts_the_rate) {
    SizingSettings s = settings();
    BlockSizer z;
    int64_t now = 1000000;
    for (int i = 0; i < 30; ++i)
        z.observe(now += 100, uint64_t(i) * 100000, 0, s);
    CHECK(z.rate() > 900000);
    z.observe(now += 100, 5, 0, s);
    z.observe(now += 1000, 10, 0, s);
    CHECK(z.rate() < 100);
}
