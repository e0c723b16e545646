// UUIDv7 core: RFC 9562 vectors, tick arithmetic, monotonicity under a fake
// clock and under threads, and the bounds of the 48-bit millisecond field.
#include "check.hpp"
#include "uuid_hex.hpp"

#include "../../src/core/clock.hpp"
#include "../../src/core/monotonic_word.hpp"
#include "../../src/core/time_units.hpp"
#include "../../src/core/uuidv7.hpp"

#include <set>
#include <thread>

using namespace crid::core;

namespace {

Uuid parse(const char *text) { return crid::test::uuid_from_hex(text); }

// 2022-02-22 19:22:22 UTC, the instant of both RFC 9562 appendix examples.
constexpr int64_t rfc_example_unix_ms = INT64_C(1645557742000);

} // namespace

TEST(rfc9562_appendix_v7_decodes_to_documented_time) {
    Uuid u = parse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F"); // RFC 9562 A.6
    CHECK_EQ(u.version(), 7);
    CHECK(u.rfc_variant());
    CHECK_EQ(uuidv7::unix_ms_of(u), uint64_t(rfc_example_unix_ms));
    int64_t us = 0;
    CHECK(uuid_inspect::unix_us_of(u, us));
    CHECK_EQ(us, rfc_example_unix_ms * 1000);
}

TEST(rfc9562_appendix_v1_decodes_to_documented_time) {
    Uuid u = parse("C232AB00-9414-11EC-B3C8-9F6BDECED846"); // RFC 9562 A.1
    CHECK_EQ(u.version(), 1);
    int64_t us = 0;
    CHECK(uuid_inspect::unix_us_of(u, us));
    CHECK_EQ(us, rfc_example_unix_ms * 1000);
    CHECK_THROWS(uuidv7::unix_ms_of(u), invalid_parameter);
}

TEST(non_v7_and_wrong_variant_are_refused_with_the_version_named) {
    Uuid v4 = parse("f47ac10b-58cc-4372-a567-0e02b2c3d479");
    try {
        uuidv7::unix_ms_of(v4);
        CHECK(false);
    } catch (const Error &e) {
        CHECK(std::string(e.what()).find("version 4") != std::string::npos);
    }
    Uuid ncs = parse("017F22E2-79B0-7CC3-18C4-DC0C0C07398F"); // v7 bits, variant 0
    CHECK_THROWS(uuidv7::unix_ms_of(ncs), invalid_parameter);
    CHECK_EQ(uuid_inspect::version_or_none(ncs), -1);
    int64_t us;
    CHECK(!uuid_inspect::unix_us_of(ncs, us));
    CHECK(!uuid_inspect::unix_us_of(v4, us));
    CHECK_EQ(uuid_inspect::version_or_none(v4), 4);
}

TEST(from_tick_lays_out_version_variant_fraction_and_random) {
    uint64_t tick = (uint64_t(rfc_example_unix_ms) << 16) | 0xABCD;
    Uuid u = uuidv7::from_tick(tick, ~UINT64_C(0));
    CHECK_EQ(u.version(), 7);
    CHECK(u.rfc_variant());
    CHECK_EQ(u.high48(), uint64_t(rfc_example_unix_ms));
    CHECK_EQ(get_be(u, 6, 2) & 0x0FFF, 0xABCu);                               // rand_a = top 12 fraction bits
    CHECK_EQ((u.low64() >> 58) & 0xF, 0xDu);                                  // next 4 fraction bits
    CHECK_EQ(u.low64() & ((UINT64_C(1) << 58) - 1), (UINT64_C(1) << 58) - 1); // 58 random bits
    // The same tick with zero randomness differs only in those 58 bits.
    Uuid z = uuidv7::from_tick(tick, 0);
    CHECK_EQ(z.low64() & ((UINT64_C(1) << 58) - 1), 0u);
}

TEST(tick_order_is_uuid_order) {
    uint64_t ticks[] = {
        0, 1, 15, 16, 0xFFFF, 0x10000, (uint64_t(rfc_example_unix_ms) << 16) + 5, UINT64_MAX - 1, UINT64_MAX};
    for (size_t i = 1; i < std::size(ticks); ++i)
        CHECK(uuidv7::from_tick(ticks[i - 1], ~UINT64_C(0)) < uuidv7::from_tick(ticks[i], 0));
}

TEST(tick_from_clock_is_method3_fraction) {
    int64_t ns = rfc_example_unix_ms * ns_per_ms + 500000; // half a millisecond
    uint64_t t = uuidv7::tick_from_unix_ns(ns);
    CHECK_EQ(t >> 16, uint64_t(rfc_example_unix_ms));
    CHECK_EQ((t & 0xFFFF) >> 4, 2048u); // 0.5 * 4096
    CHECK_EQ(uuidv7::tick_from_unix_ns(0), 0u);
    CHECK_EQ(uuidv7::tick_from_unix_ns(999999) & 0xFFFF, 65535u);
    CHECK_THROWS(uuidv7::tick_from_unix_ns(-1), datetime_out_of_range);
}

TEST(next_tick_follows_clock_and_never_repeats) {
    CHECK_EQ(uuidv7::next_tick(10, 20), 20u);   // clock ahead: use it
    CHECK_EQ(uuidv7::next_tick(20, 20), 21u);   // same fraction: advance
    CHECK_EQ(uuidv7::next_tick(500, 20), 501u); // clock stepped back: advance
    CHECK_THROWS(uuidv7::next_tick(UINT64_MAX, 5), datetime_out_of_range);
}

TEST(fake_clock_stepping_back_stays_strictly_increasing) {
    LocalWord w;
    int64_t clock_ns = rfc_example_unix_ms * ns_per_ms;
    uint64_t last = 0;
    for (int i = 0; i < 100000; ++i) {
        if (i == 50000)
            clock_ns -= 2 * ns_per_ms * 1000; // a two-second step back
        clock_ns += (i % 3 == 0) ? 7 : 0;     // bursts within one fraction
        uint64_t now = uuidv7::tick_from_unix_ns(clock_ns);
        uint64_t t = advance(w, [now](uint64_t p) { return uuidv7::next_tick(p, now); });
        CHECK(t > last);
        last = t;
    }
}

TEST(burst_at_one_instant_runs_ahead_by_a_bounded_amount) {
    // 1,000,000 ids at one frozen clock reading advance 1e6 / 65536 ≈ 15 ms,
    // where a 12-bit fraction would have run 244 ms ahead.
    LocalWord w;
    uint64_t now = uuidv7::tick_from_unix_ns(rfc_example_unix_ms * ns_per_ms);
    uint64_t t = 0;
    for (int i = 0; i < 1000000; ++i)
        t = advance(w, [now](uint64_t p) { return uuidv7::next_tick(p, now); });
    CHECK((t >> 16) - uint64_t(rfc_example_unix_ms) <= 16);
}

TEST(threads_sharing_one_word_never_collide) {
    ThreadWord w;
    constexpr int per_thread = 200000;
    std::vector<std::vector<uint64_t>> seen(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                uint64_t now = uuidv7::tick_from_unix_ns(wall_clock_ns());
                uint64_t v = advance(w, [now](uint64_t p) { return uuidv7::next_tick(p, now); });
                if (!seen[t].empty() && v <= seen[t].back())
                    std::abort();
                seen[t].push_back(v);
            }
        });
    for (auto &th : threads)
        th.join();
    std::set<uint64_t> all;
    for (auto &s : seen)
        all.insert(s.begin(), s.end());
    CHECK_EQ(all.size(), size_t(4 * per_thread));
}

TEST(ms_range_of_timestamps) {
    // 1970-01-01 is the first millisecond, 10889-08-02 05:31:50.655 the last.
    int64_t first_pg_us = -pg_epoch_unix_us;
    CHECK_EQ(uuidv7::unix_ms_from_pg_us(first_pg_us), 0u);
    CHECK_THROWS(uuidv7::unix_ms_from_pg_us(first_pg_us - 1), datetime_out_of_range);
    int64_t last_pg_us = pg_us_from_unix_ms(int64_t(uuidv7::max_unix_ms)) + 999;
    CHECK_EQ(uuidv7::unix_ms_from_pg_us(last_pg_us), uuidv7::max_unix_ms);
    CHECK_THROWS(uuidv7::unix_ms_from_pg_us(last_pg_us + 1), datetime_out_of_range);
    CHECK_THROWS(uuidv7::unix_ms_from_pg_us(INT64_MAX), datetime_out_of_range);
    CHECK_THROWS(uuidv7::unix_ms_from_pg_us(INT64_MIN), datetime_out_of_range);
    CHECK_EQ(describe_pg_us(last_pg_us), std::string("10889-08-02 05:31:50.655999+00"));
}

TEST(deterministic_is_stable_and_key_sensitive) {
    const char a[] = "order-1", b[] = "order-2";
    Uuid x = uuidv7::deterministic(1000, 1, a, 7);
    CHECK(x == uuidv7::deterministic(1000, 1, a, 7));
    CHECK(!(x == uuidv7::deterministic(1000, 1, b, 7)));
    CHECK(!(x == uuidv7::deterministic(1000, 2, a, 7))); // another key type
    CHECK_EQ(x.version(), 7);
    CHECK(x.rfc_variant());
    CHECK_EQ(uuidv7::unix_ms_of(x), 1000u);
}

// The floor of a millisecond sorts before every UUID of it and after every
// UUID of the millisecond before, whatever their fraction and random bits.
TEST(floor_id_bounds_its_millisecond) {
    const uint64_t ms = 1645557742000;
    Uuid floor = uuidv7::floor_id(ms);
    CHECK(floor == parse("017f22e2-79b0-7000-8000-000000000000"));
    CHECK_EQ(uuidv7::unix_ms_of(floor), ms);
    CHECK(floor <= uuidv7::from_tick(ms << uuidv7::fraction_bits, 0));
    CHECK(floor < uuidv7::from_tick(ms << uuidv7::fraction_bits, 1));
    CHECK(uuidv7::from_tick(((ms - 1) << uuidv7::fraction_bits) | 0xFFFF, ~UINT64_C(0)) < floor);
}
