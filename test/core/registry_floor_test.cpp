// The plan of a live reservation against a registry's continuity state: the
// refused seconds are skipped, a second ahead of the registry's clock waits,
// and the clock offset comes from one round trip.
#include "check.hpp"

#include "../../src/core/registry_floor.hpp"

using namespace crid::core::crid_ids;

namespace {

// A registry whose clock is at second `now_s` (+ ms) of an epoch at Unix 0,
// allowing 1000 ms of skew.
RegistryView view_at(int64_t now_s, int64_t ms = 0) {
    RegistryView v;
    v.now_unix_ms = now_s * 1000 + ms;
    v.epoch_unix_ms = 0;
    v.skew_ms = 1000;
    v.live_max = (v.now_unix_ms + v.skew_ms) / 1000;
    return v;
}

} // namespace

TEST(registry_floor_a_sound_registry_takes_the_wanted_second) {
    RegistryView v = view_at(100);
    FloorPlan p = plan_second(v, 100, 0);
    CHECK_EQ(p.ts, int64_t(100));
    CHECK_EQ(p.wait_ms, int64_t(0));
    CHECK(v.allows(100));
    CHECK(v.allows(101)); // within the skew
    CHECK(!v.allows(102));
}

TEST(registry_floor_never_goes_below_the_guard) {
    FloorPlan p = plan_second(view_at(100), 95, 100);
    CHECK_EQ(p.ts, int64_t(100));
    CHECK_EQ(p.wait_ms, int64_t(0));
}

TEST(registry_floor_skips_refused_seconds_and_waits_for_the_clock) {
    // Truncated at second 100: seconds 0 .. 102 are refused.
    RegistryView v = view_at(100, 250);
    v.refuses = true;
    v.refused_from = 0;
    v.floor = 102;
    CHECK(!v.allows(100));
    CHECK(!v.allows(50));
    FloorPlan p = plan_second(v, 100, 0);
    CHECK_EQ(p.ts, int64_t(103));
    // Second 103 is allowed from 102.000 on the registry's clock.
    CHECK_EQ(p.wait_ms, int64_t(102000 - 100250));
    // Once there it is taken at once.
    RegistryView later = view_at(102);
    later.refuses = true;
    later.refused_from = 0;
    later.floor = 102;
    CHECK(later.allows(103));
    CHECK_EQ(plan_second(later, 102, 0).ts, int64_t(103));
    CHECK_EQ(plan_second(later, 102, 0).wait_ms, int64_t(0));
}

TEST(registry_floor_old_seconds_below_the_refusal_stay_open) {
    // Failed over: the standby held seconds up to 500; 498 .. 503 are refused.
    RegistryView v = view_at(501);
    v.refuses = true;
    v.refused_from = 498;
    v.floor = 503;
    CHECK(v.allows(497)); // a backfill's past second the standby kept
    CHECK(!v.allows(498));
    CHECK(!v.allows(503));
    CHECK(!v.allows(504)); // not refused, but ahead of the clock
}

TEST(registry_floor_a_fast_clock_waits_for_the_registry) {
    // This server's clock says 105 while the registry's says 100.
    FloorPlan p = plan_second(view_at(100), 105, 0);
    CHECK_EQ(p.ts, int64_t(105));
    CHECK_EQ(p.wait_ms, int64_t(104000 - 100000));
}

TEST(registry_floor_clock_offset_from_one_round_trip) {
    // Sent at 1000, answered at 1040 on this server; the registry read 1520.
    CHECK_EQ(clock_offset_ms(1520, 1000, 1040), int64_t(500));
    CHECK_EQ(clock_offset_ms(990, 1000, 1040), int64_t(-30));
}
