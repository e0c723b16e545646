// The registry guard against a registry that went backwards, driven by the
// blocks a rebuilt registry hands out; and the worker's backoff.
#include "check.hpp"

#include "../../src/core/backoff.hpp"
#include "../../src/core/registry_guard.hpp"

using namespace crid::core;
using crid::core::crid_ids::RegistryGuard;

TEST(registry_guard_accepts_a_growing_registry) {
    RegistryGuard g;
    CHECK(g.accept(100, 0, 1000));
    CHECK(g.accept(100, 1000, 1000));
    CHECK(g.accept(100, 5000, 1000)); // other nodes took 2000 .. 5000
    CHECK(g.accept(101, 0, 1000));    // a new second starts at 0
    CHECK_EQ(g.earliest_ts(), int64_t(101));
    CHECK_EQ(g.last_end(), int64_t(1000));
}

TEST(registry_guard_refuses_a_registry_that_went_backwards) {
    RegistryGuard g;
    CHECK(g.accept(100, 0, 1000));
    CHECK(g.accept(100, 1000, 1000));
    // TRUNCATE crid_allocations: second 100 starts again at 0.
    CHECK(!g.accept(100, 0, 1000));
    CHECK(!g.accept(100, 1000, 1000)); // still overlaps what was served
    CHECK_EQ(g.earliest_ts(), int64_t(101));
    CHECK(g.accept(101, 0, 1000));
    // A block of an earlier second is never taken either.
    CHECK(!g.accept(100, 9000, 1000));
}

TEST(registry_guard_after_a_restart_starts_in_the_next_second) {
    RegistryGuard g;
    g.restore(100, 4000);
    CHECK_EQ(g.earliest_ts(), int64_t(101));
    CHECK(!g.accept(100, 0, 1000)); // the restored second itself is never reused from below
    CHECK(g.accept(101, 0, 1000));
}

TEST(registry_guard_moves_past_a_full_or_missing_second) {
    RegistryGuard g;
    CHECK(g.accept(7, 0, 10));
    g.second_full(7);
    CHECK_EQ(g.earliest_ts(), int64_t(8));
    g.second_full(3); // never backwards
    CHECK_EQ(g.earliest_ts(), int64_t(8));
    CHECK(g.accept(9, 0, 10));
    g.went_backwards();
    CHECK_EQ(g.earliest_ts(), int64_t(10));
}

TEST(backoff_doubles_up_to_its_cap) {
    constexpr Backoff b(200, 10000);
    CHECK_EQ(b.delay_ms(0), int64_t(0));
    CHECK_EQ(b.delay_ms(1), int64_t(200));
    CHECK_EQ(b.delay_ms(2), int64_t(400));
    CHECK_EQ(b.delay_ms(6), int64_t(6400));
    CHECK_EQ(b.delay_ms(7), int64_t(10000));
    CHECK_EQ(b.delay_ms(INT64_MAX), int64_t(10000));
}
