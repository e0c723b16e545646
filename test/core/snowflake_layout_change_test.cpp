// Accepting a changed snowflake layout: the first unit of the new layout
// whose ids exceed every old id, checked against ids actually packed.
#include "check.hpp"

#include "../../src/core/snowflake_layout_change.hpp"

using namespace crid::core::snowflake;

namespace {
constexpr int64_t epoch = INT64_C(1767225600000); // 2026-01-01
constexpr int64_t mark = epoch + INT64_C(86400000) * 200;

// The largest id the old layout can have issued up to the mark.
int64_t max_old_id(const Layout &l) {
    int64_t unit = (mark - l.epoch_unix_ms) / l.unit_ms;
    return pack(l, Fields{.time_units = unit, .node = max_node(l), .sequence = max_sequence(l), .gene = max_gene(l)});
}
} // namespace

TEST(layout_change_same_layout_continues_after_the_mark) {
    Layout l = server_layout(epoch, 10, 12, 0);
    LayoutChange c = first_unit_above(l, mark, l);
    CHECK(c.possible);
    CHECK_EQ(c.first_unix_ms, mark + 1);
}

TEST(layout_change_first_unit_is_the_least_above_every_old_id) {
    Layout old_layout = server_layout(epoch, 10, 12, 0);
    for (int seq : {8, 10, 11, 12, 13, 14, 16}) {
        Layout new_layout = server_layout(epoch, 10, seq, 0);
        LayoutChange c = first_unit_above(old_layout, mark, new_layout);
        CHECK(c.possible);
        int64_t first_new = pack(new_layout, Fields{.time_units = c.first_unit});
        CHECK(first_new > max_old_id(old_layout));
        int64_t before = pack(new_layout, Fields{.time_units = c.first_unit - 1, .node = 0, .sequence = 0});
        CHECK(before <= max_old_id(old_layout));
        // A wider field is safe from an earlier time, a narrower one only later.
        if (seq > 12)
            CHECK(c.first_unix_ms <= mark);
        if (seq < 12)
            CHECK(c.first_unix_ms > mark + INT64_C(86400000) * 100);
    }
}

TEST(layout_change_impossible_when_the_new_time_field_ends_first) {
    // 32 time bits of ms end after 49.7 days: old ids there reach 2^63 - 1.
    Layout old_layout = server_layout(epoch, 16, 15, 0);
    Layout new_layout = server_layout(epoch, 10, 12, 0);
    CHECK(!first_unit_above(old_layout, last_unix_ms(old_layout), new_layout).possible);
    CHECK(first_unit_above(old_layout, epoch + INT64_C(86400000), new_layout).possible);
    CHECK(first_unit_above(old_layout, epoch - 1, new_layout).possible); // nothing minted yet
    CHECK_EQ(first_unit_above(old_layout, epoch - 1, new_layout).first_unit, int64_t(0));
}
