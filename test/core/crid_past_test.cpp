// crid ids for past times: crid_reserve's checks at the limits of n and of
// the layout's seconds, the full-second and evicted-second refusals (naming
// the second and the limit), and crid_pack against the Go library's id.
#include "check.hpp"

#include "../../src/core/crid_past.hpp"

#include <cstdint>
#include <string>

using namespace crid::core;
using namespace crid::core::crid_ids;

using crid::test::contains;
using crid::test::message_of;

namespace {

constexpr int64_t epoch = INT64_C(1767225600000); // 2026-01-01 00:00:00 UTC

} // namespace

TEST(crid_reserve_ts_limits) {
    Layout l;
    const int64_t space = INT64_C(1) << 32;
    CHECK_EQ(reserve_ts(l, epoch, 1), 0);
    CHECK_EQ(reserve_ts(l, epoch + 500 * 1000 + 999, space), 500);
    CHECK_THROWS(reserve_ts(l, epoch, 0), numeric_out_of_range);
    CHECK_THROWS(reserve_ts(l, epoch, -1), numeric_out_of_range);
    CHECK_THROWS(reserve_ts(l, epoch, space + 1), numeric_out_of_range);
    CHECK(contains(message_of([&] { reserve_ts(l, epoch, space + 1); }), "4294967296"));
    CHECK_THROWS(reserve_ts(l, epoch - 1, 1), datetime_out_of_range);
    int64_t last_ms = epoch + max_ts(l) * 1000 + 999;
    CHECK_EQ(reserve_ts(l, last_ms, 1), max_ts(l));
    CHECK_THROWS(reserve_ts(l, last_ms + 1, 1), datetime_out_of_range);
}

TEST(crid_reserved_end_names_the_second_and_the_limit) {
    Layout l;
    l.timestamp_bits = 40; // 2^23 sequences a second
    const int64_t space = INT64_C(1) << 23;
    check_reserved_end(l, 5, 10, space); // the block ends exactly at the limit
    CHECK_THROWS(check_reserved_end(l, 5, 10, space + 1), numeric_out_of_range);
    std::string m = message_of([&] { check_reserved_end(l, 5, 10, space + 1); });
    CHECK(contains(m, "2026-01-01 00:00:05"));
    CHECK(contains(m, "has 9 of its 8388608 sequences left, fewer than n = 10"));
    // Arguments no reservation returns (a hand-made call) still give a message.
    CHECK_THROWS(check_reserved_end(l, INT64_MIN, INT64_MIN, INT64_MAX), numeric_out_of_range);
    CHECK(contains(message_of([&] { check_reserved_end(l, -1, 1, INT64_MAX); }), "registry ts -1"));
}

TEST(crid_not_evicted) {
    Layout l;
    check_not_evicted(l, "crid_reserve", 100, 100); // the first second kept
    check_not_evicted(l, "crid_reserve", 5, 0);     // nothing evicted
    CHECK_THROWS(check_not_evicted(l, "crid_reserve", 99, 100), prerequisite_state);
    std::string m = message_of([&] { check_not_evicted(l, "crid_allocate", 99, 100); });
    CHECK(contains(m, "crid_allocate: second 2026-01-01 00:01:39"));
    CHECK(contains(m, "(registry ts 100)"));
    CHECK(contains(message_of([&] { check_not_evicted(l, "f", INT64_MIN, INT64_MAX); }),
                   "registry ts -9223372036854775808"));
}

TEST(crid_pack_at) {
    Layout l;
    // The Go library's parser test: ts 500, seq 7 is (500 << 32) | 7.
    CHECK_EQ(pack_at(l, epoch + 500 * 1000 + 123, 7), (INT64_C(500) << 32) | 7);
    CHECK_EQ(pack_at(l, epoch, (INT64_C(1) << 32) - 1), (INT64_C(1) << 32) - 1);
    CHECK_THROWS(pack_at(l, epoch, INT64_C(1) << 32), numeric_out_of_range);
    CHECK_THROWS(pack_at(l, epoch, -1), numeric_out_of_range);
    CHECK_THROWS(pack_at(l, epoch - 1, 0), datetime_out_of_range);
}
