// Node leases: the fence timing, the bound written into a lease row, and the
// nodes a server wants.
#include "check.hpp"

#include "../../src/core/snowflake_lease.hpp"

using namespace crid::core;

TEST(lease_timing_keeps_minting_inside_the_ttl) {
    for (int64_t ttl : {INT64_C(1000), INT64_C(3000), INT64_C(30000), INT64_C(3600000)}) {
        lease::Timing t{ttl};
        CHECK(t.window_ms() < ttl);
        CHECK(t.window_ms() >= ttl / 2);
        // Two renewals can fail before the window closes.
        CHECK(3 * t.renew_every_ms() <= ttl);
        CHECK(2 * t.renew_every_ms() < t.window_ms());
        CHECK(t.retry_ms(1) > 0);
        CHECK(t.retry_ms(100) <= ttl / 6);
    }
}

TEST(lease_bound_covers_what_the_holder_can_mint) {
    lease::Timing t{30000};
    int64_t wall = INT64_C(1800000000000);
    // The holder mints until wall + window, at most borrow ahead of its clock.
    CHECK_EQ(lease::bound_ms(t, wall, wall + 1000, 1000), wall + t.window_ms() + 1000);
    // A mark raised further (after taking the node over) stays the bound.
    CHECK_EQ(lease::bound_ms(t, wall, wall + 60000, 1000), wall + 60000);
    // With equal clocks the bound is behind the next holder's clock when the
    // lease lapses (ttl after the renewal), so it mints at once.
    CHECK(lease::bound_ms(t, wall, wall, 1000) < wall + t.ttl_ms);
}

TEST(lease_wanted_nodes) {
    NodeSet all = NodeSet::parse("");
    lease::Ranges r = lease::wanted(true, -1, all, 1023);
    CHECK_EQ(r.count, 1);
    CHECK_EQ(r.size(), INT64_C(1024));
    r = lease::wanted(false, 7, all, 1023);
    CHECK_EQ(r.size(), INT64_C(1));
    CHECK(r.contains(7));
    CHECK(!r.contains(8));
    CHECK_EQ(lease::wanted(false, -1, all, 1023).count, 0);
    CHECK_EQ(lease::wanted(false, 5000, all, 1023).count, 0);
    NodeSet some = NodeSet::parse("3-5,1000-2000,4000");
    r = lease::wanted(false, 4, some, 1023);
    CHECK_EQ(r.size(), INT64_C(3 + 24));
    CHECK(r.contains(1023));
    CHECK(!r.contains(1024));
    r = lease::wanted(true, -1, some, 1023);
    CHECK_EQ(r.count, 2);
}

TEST(lease_wanted_nodes_leave_out_the_backfill_node) {
    NodeSet all = NodeSet::parse("");
    lease::Ranges r = lease::wanted(true, -1, all, 1023, 1000);
    CHECK_EQ(r.size(), INT64_C(1023));
    CHECK(!r.contains(1000));
    CHECK(r.contains(999));
    CHECK(r.contains(1001));
    CHECK_EQ(r.count, 2);
    CHECK_EQ(lease::wanted(true, -1, all, 1023, 0).count, 1);
    CHECK(!lease::wanted(true, -1, all, 1023, 0).contains(0));
    CHECK_EQ(lease::wanted(true, -1, all, 1023, 1023).size(), INT64_C(1023));
    // A static node that is the backfill node is wanted by no one.
    CHECK_EQ(lease::wanted(false, 7, all, 1023, 7).count, 0);
    NodeSet some = NodeSet::parse("3-5,7");
    r = lease::wanted(false, -1, some, 1023, 4);
    CHECK_EQ(r.size(), INT64_C(3));
    CHECK(r.contains(3) && r.contains(5) && r.contains(7) && !r.contains(4));
}

TEST(lease_takeover_delay_outlasts_every_window_of_the_old_holder) {
    for (int64_t ttl : {INT64_C(1000), INT64_C(30000), INT64_C(3600000)}) {
        lease::Timing t{ttl};
        // The old holder mints at most window after a renewal that happened
        // before the new holder took the node; the new one waits longer.
        CHECK(t.takeover_delay_ms() > t.window_ms());
        CHECK(t.takeover_delay_ms() >= ttl);
    }
}
