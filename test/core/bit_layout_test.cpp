// The one bit-field layout every family uses: positions in logical and in
// reordered layouts, pack/unpack round trips up to 64 bits, checked packing
// that names field, value and limit, clamping floor/ceiling, and fields wider
// than any family's documented limit.
#include "check.hpp"

#include "../../src/core/bit_layout.hpp"
#include "../../src/core/snowflake_generator.hpp"

#include <cstdint>
#include <string>

using namespace crid::core;
using crid::test::contains;
using crid::test::message_of;

TEST(fields_sit_below_each_other_in_the_order_given) {
    BitLayout l({{"time", 41}, {"node", 10}, {"sequence", 12}});
    CHECK_EQ(l.size(), 3);
    CHECK_EQ(l.total_bits(), 63);
    CHECK_EQ(l.field(0).shift, 22);
    CHECK_EQ(l.field(1).shift, 12);
    CHECK_EQ(l.field(2).shift, 0);
    CHECK_EQ(l.leading().name, std::string_view("time"));
    const int64_t v[] = {5, 3, 7};
    CHECK_EQ(l.pack_unchecked(v), (UINT64_C(5) << 22) | (UINT64_C(3) << 12) | 7);
}

TEST(an_order_places_fields_without_changing_the_logical_order) {
    // Sonyflake: time | sequence | node, values still passed as time, node, sequence.
    BitLayout l({{"time", 39}, {"node", 16}, {"sequence", 8}}, {0, 2, 1});
    CHECK_EQ(l.field(1).shift, 0);
    CHECK_EQ(l.field(2).shift, 16);
    CHECK_EQ(l.field(0).shift, 24);
    const int64_t v[] = {100, 0xABCD, 0x12};
    uint64_t word = l.pack_unchecked(v);
    CHECK_EQ(word, (UINT64_C(100) << 24) | (UINT64_C(0x12) << 16) | 0xABCD);
    int64_t back[3];
    l.unpack(word, back);
    CHECK_EQ(back[0], 100);
    CHECK_EQ(back[1], 0xABCD);
    CHECK_EQ(back[2], 0x12);
}

TEST(sixty_four_bits_round_trip) {
    BitLayout l({{"high", 42}, {"middle", 10}, {"low", 12}});
    const int64_t max[] = {int64_t(max_of_width(42)), 1023, 4095};
    CHECK_EQ(l.pack_unchecked(max), ~UINT64_C(0));
    int64_t back[3];
    l.unpack(~UINT64_C(0), back);
    CHECK_EQ(back[0], max[0]);
    CHECK_EQ(back[2], 4095);
    BitLayout whole({{"all", 64}});
    CHECK_EQ(whole.field(0).max(), ~UINT64_C(0));
    CHECK_EQ(whole.field(0).get(UINT64_C(0x8000000000000001)), UINT64_C(0x8000000000000001));
}

TEST(zero_width_fields_hold_only_zero) {
    BitLayout l({{"time", 41}, {"node", 0}, {"sequence", 22}, {"gene", 0}});
    CHECK_EQ(l.field(1).max(), UINT64_C(0));
    CHECK_EQ(l.field(3).get(~UINT64_C(0)), UINT64_C(0));
    CHECK_EQ(l.field(3).put(42, 7), UINT64_C(42));
    CHECK(l.field(1).holds(0));
    CHECK(!l.field(1).holds(1));
    // A zero-width field at the top of a full word must not shift by 64.
    BitLayout top({{"nothing", 0}, {"all", 64}});
    CHECK_EQ(top.field(0).get(~UINT64_C(0)), UINT64_C(0));
}

TEST(put_replaces_only_its_own_bits) {
    BitField gene{.name = "gene", .width = 4, .shift = 0};
    CHECK_EQ(gene.put(0xFFF0, 5), UINT64_C(0xFFF5));
    CHECK_EQ(gene.put(0xFFFF, 0), UINT64_C(0xFFF0));
    CHECK_EQ(gene.put(0, 0x35), UINT64_C(0x5)); // bits beyond the width are dropped
    BitField node{.name = "node", .width = 10, .shift = 12};
    CHECK_EQ(node.put(~UINT64_C(0), 0), ~(UINT64_C(1023) << 12));
}

TEST(checked_pack_names_family_field_value_and_limit) {
    BitLayout l({{"timestamp", 31}, {"sequence", 32}});
    const int64_t too_big[] = {1, INT64_C(1) << 32};
    CHECK_THROWS(l.pack(too_big, "crid", [] { return std::string(); }), numeric_out_of_range);
    std::string m = message_of([&] { l.pack(too_big, "crid", [] { return std::string(" for this layout"); }); });
    CHECK_EQ(m, std::string("crid sequence 4294967296 is out of range for this layout (0 to 4294967295)"));
    const int64_t negative[] = {-1, 0};
    CHECK(contains(message_of([&] { l.pack(negative, "crid", [] { return std::string(); }); }),
                   "crid timestamp -1 is out of range (0 to 2147483647)"));
    // The first field out of range is the one named.
    const int64_t both[] = {-1, -1};
    CHECK(contains(message_of([&] { l.pack(both, "x", [] { return std::string(); }); }), "timestamp"));
    const int64_t fine[] = {3, 4};
    CHECK_EQ(l.pack(fine, "crid", [] { return std::string(); }), (UINT64_C(3) << 32) | 4);
}

TEST(floor_and_ceiling_bound_one_leading_value) {
    BitLayout l({{"time", 41}, {"node", 10}, {"sequence", 12}});
    CHECK_EQ(l.floor(7), UINT64_C(7) << 22);
    CHECK_EQ(l.ceiling(7), (UINT64_C(8) << 22) - 1);
    CHECK(l.floor(8) == l.ceiling(7) + 1);
    // Reordered fields: the leading field is the most significant, not the first.
    BitLayout sony({{"node", 16}, {"time", 39}, {"sequence", 8}}, {1, 2, 0});
    CHECK_EQ(sony.leading().name, std::string_view("time"));
    CHECK_EQ(sony.floor(100), UINT64_C(100) << 24);
    CHECK_EQ(sony.ceiling(100), (UINT64_C(101) << 24) - 1);
}

TEST(floor_and_ceiling_clamp_at_the_range_ends) {
    BitLayout l({{"time", 41}, {"node", 10}, {"sequence", 12}});
    const uint64_t last = max_of_width(41);
    CHECK_EQ(l.floor(-1), UINT64_C(0));
    CHECK_EQ(l.floor(INT64_MIN), UINT64_C(0));
    CHECK_EQ(l.ceiling(-5), (UINT64_C(1) << 22) - 1);
    CHECK_EQ(l.floor(INT64_MAX), last << 22);
    CHECK_EQ(l.ceiling(INT64_MAX), max_of_width(63));
    CHECK_EQ(l.ceiling(int64_t(last) + 1), max_of_width(63));
    BitLayout full({{"time", 42}, {"node", 10}, {"sequence", 12}});
    CHECK_EQ(full.ceiling(INT64_MAX), ~UINT64_C(0));
}

TEST(a_bad_description_is_a_bug_not_a_user_error) {
    CHECK_THROWS(BitLayout({{"a", 40}, {"b", 30}}), internal);
    CHECK_THROWS(BitLayout({{"a", -1}}), internal);
    CHECK_THROWS(BitLayout({{"a", 65}}), internal);
    CHECK_THROWS(BitLayout({{"a", 1}, {"b", 1}}, {0, 0}), internal);
    CHECK_THROWS(BitLayout({{"a", 1}, {"b", 1}}, {0, 2}), internal);
    CHECK_THROWS(BitLayout({{"a", 1}, {"b", 1}}, {0}), internal);
    CHECK_THROWS(BitLayout({{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}}), internal);
}

// The snowflake generator keeps its state in a BitLayout of the id's time and
// sequence, so a sequence wider than the documented 22 bits works the same;
// only the layout checks keep settings within the documented limits.
TEST(a_sequence_wider_than_22_bits_is_no_limit_of_the_code) {
    snowflake::Layout wide{.epoch_unix_ms = 0,
                           .unit_ms = 1,
                           .time_bits = 32,
                           .node_bits = 0,
                           .sequence_bits = 31,
                           .gene_bits = 0,
                           .sequence_above_node = false,
                           .use_sign_bit = false,
                           .name = "wide"};
    const int64_t max_seq = (INT64_C(1) << 31) - 1;
    uint64_t s = snowflake::encode_state(wide, 1000, max_seq - 1);
    CHECK_EQ(snowflake::state_sequence(wide, s), max_seq - 1);
    snowflake::Step step = snowflake::next(wide, snowflake::Policy{}, s, 1000);
    CHECK(step.kind == snowflake::Step::Kind::issue);
    CHECK_EQ(step.sequence, max_seq);
    CHECK_EQ(snowflake::id_from(wide, step, 0, 0), (INT64_C(1000) << 31) | max_seq);
    snowflake::Step exhausted = snowflake::next(wide, snowflake::Policy{}, step.next_state, 1000);
    CHECK(exhausted.kind == snowflake::Step::Kind::wait);
    CHECK_EQ(exhausted.wait_until_unit, 1001);
    CHECK_EQ(snowflake::unpack(wide, (INT64_C(1000) << 31) | max_seq).sequence, max_seq);
}
