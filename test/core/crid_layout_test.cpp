// crid layout: the Go library's known id, pack/unpack at the field limits,
// settings validation, seconds since the epoch and their bounds, floor_id,
// the registry arithmetic of crid_allocate and the eviction horizon.
#include "check.hpp"

#include "../../src/core/crid_layout.hpp"

#include <cstdint>
#include <ostream>
#include <string>

using namespace crid::core;
using namespace crid::core::crid_ids;

namespace crid::core::crid_ids {
// Lets CHECK_EQ print Parts and Block.
inline std::ostream &operator<<(std::ostream &out, const Parts &p) {
    return out << "{ts " << p.ts << ", seq " << p.seq << "}";
}
inline std::ostream &operator<<(std::ostream &out, const Block &b) {
    return out << "{first_id " << b.first_id << ", size " << b.size << "}";
}
} // namespace crid::core::crid_ids

using crid::test::contains;
using crid::test::message_of;

namespace {

constexpr int64_t epoch = INT64_C(1767225600000); // 2026-01-01 00:00:00 UTC

} // namespace

// The Go library's parser test (from-cero/crid parser_test.go): ts 500, seq 7
// with the default format is (500 << 32) | 7, at 2026-01-01 00:08:20 UTC.
TEST(crid_go_library_known_id) {
    Layout l;
    CHECK_EQ(l.epoch_unix_ms, epoch);
    CHECK_EQ(l.timestamp_bits, 31);
    CHECK_EQ(l.sequence_bits(), 32);
    int64_t id = (INT64_C(500) << 32) | 7;
    CHECK_EQ(pack(l, 500, 7), id);
    CHECK_EQ(unpack(l, id), (Parts{500, 7}));
    CHECK_EQ(unix_ms_of_ts(l, unpack(l, id).ts), epoch + 500000);
    CHECK_EQ(default_block_size, 10000);
    CHECK_EQ(default_threshold, 5000);
}

TEST(crid_pack_unpack_round_trips_at_the_limits) {
    for (int bits : {28, 31, 35, 40}) {
        Layout l = validate(Layout{.epoch_unix_ms = epoch, .timestamp_bits = bits});
        const int64_t mt = max_ts(l), ms = sequence_space(l) - 1;
        CHECK_EQ(mt, (INT64_C(1) << bits) - 1);
        CHECK_EQ(ms, (INT64_C(1) << (63 - bits)) - 1);
        for (int64_t ts : {int64_t(0), int64_t(1), mt / 2, mt})
            for (int64_t seq : {int64_t(0), int64_t(1), ms / 3, ms}) {
                int64_t id = pack(l, ts, seq);
                CHECK(id >= 0);
                CHECK_EQ(unpack(l, id), (Parts{ts, seq}));
            }
        CHECK_EQ(pack(l, 0, 0), 0);
        CHECK_EQ(pack(l, mt, ms), INT64_MAX);
        CHECK_EQ(unpack(l, INT64_MAX), (Parts{mt, ms}));
        CHECK_THROWS(pack(l, mt + 1, 0), numeric_out_of_range);
        CHECK_THROWS(pack(l, -1, 0), numeric_out_of_range);
        CHECK_THROWS(pack(l, 0, ms + 1), numeric_out_of_range);
        CHECK_THROWS(pack(l, 0, -1), numeric_out_of_range);
    }
    Layout l;
    CHECK(contains(message_of([&] { pack(l, 0, INT64_C(1) << 32); }), "sequence 4294967296"));
    CHECK(contains(message_of([&] { pack(l, 0, INT64_C(1) << 32); }), "4294967295"));
    CHECK(contains(message_of([&] { pack(l, INT64_C(1) << 31, 0); }), "timestamp 2147483648"));
    CHECK_THROWS(unpack(l, -1), numeric_out_of_range);
    CHECK_THROWS(unpack(l, INT64_MIN), numeric_out_of_range);
}

// Ids order by second first, then by sequence.
TEST(crid_ids_order_by_second_then_sequence) {
    Layout l;
    CHECK(pack(l, 10, INT64_C(4294967295)) < pack(l, 11, 0));
    CHECK(pack(l, 10, 5) < pack(l, 10, 6));
}

TEST(crid_validate_names_the_setting_and_limits) {
    CHECK_EQ(validate(Layout{}).timestamp_bits, 31);
    CHECK_THROWS(validate(Layout{.epoch_unix_ms = epoch, .timestamp_bits = 27}), invalid_parameter);
    CHECK_THROWS(validate(Layout{.epoch_unix_ms = epoch, .timestamp_bits = 41}), invalid_parameter);
    CHECK_THROWS(validate(Layout{.epoch_unix_ms = epoch, .timestamp_bits = -5}), invalid_parameter);
    std::string m = message_of([] { validate(Layout{.epoch_unix_ms = epoch, .timestamp_bits = 63}); });
    CHECK(contains(m, "crid.timestamp_bits is 63"));
    CHECK(contains(m, "28 to 40"));
    CHECK_THROWS(validate(Layout{.epoch_unix_ms = -1000, .timestamp_bits = 31}), invalid_parameter);
    CHECK_THROWS(validate(Layout{.epoch_unix_ms = INT64_C(253402300800000), .timestamp_bits = 31}), invalid_parameter);
    CHECK(contains(message_of([] { validate(Layout{.epoch_unix_ms = epoch + 250, .timestamp_bits = 31}); }),
                   "crid.epoch 2026-01-01 00:00:00.250+00 is not a whole second"));
    CHECK_EQ(validate(Layout{.epoch_unix_ms = 0, .timestamp_bits = 28}).epoch_unix_ms, 0);
}

TEST(crid_ts_of_unix_ms_floors_to_the_second) {
    Layout l;
    CHECK_EQ(ts_of_unix_ms(l, epoch), 0);
    CHECK_EQ(ts_of_unix_ms(l, epoch + 999), 0);
    CHECK_EQ(ts_of_unix_ms(l, epoch + 1000), 1);
    CHECK_EQ(ts_of_unix_ms(l, epoch + 500000), 500);
    CHECK_EQ(unix_ms_of_ts(l, 500), epoch + 500000);
    CHECK_THROWS(unix_ms_of_ts(l, -1), numeric_out_of_range);
    CHECK_THROWS(unix_ms_of_ts(l, max_ts(l) + 1), numeric_out_of_range);
}

TEST(crid_ts_before_the_epoch_is_refused) {
    Layout l;
    CHECK_THROWS(ts_of_unix_ms(l, epoch - 1), datetime_out_of_range);
    CHECK_THROWS(ts_of_unix_ms(l, INT64_MIN), datetime_out_of_range);
    std::string m = message_of([&] { ts_of_unix_ms(l, epoch - 1); });
    CHECK(contains(m, "2025-12-31 23:59:59.999+00"));
    CHECK(contains(m, "before the crid epoch 2026-01-01 00:00:00.000+00"));
}

// 31 bits of seconds from 2026 end in 2094; the next second overflows.
TEST(crid_ts_overflow_past_the_last_second) {
    Layout l;
    const int64_t last_ms = epoch + max_ts(l) * 1000 + 999;
    CHECK_EQ(ts_of_unix_ms(l, last_ms), max_ts(l));
    CHECK_THROWS(ts_of_unix_ms(l, last_ms + 1), datetime_out_of_range);
    CHECK_THROWS(ts_of_unix_ms(l, INT64_MAX), datetime_out_of_range);
    std::string m = message_of([&] { ts_of_unix_ms(l, last_ms + 1); });
    CHECK(contains(m, "timestamp field overflow"));
    CHECK(contains(m, "2094-01-19 03:14:07.999+00")); // 2026-01-01 + 2^31 - 1 s
    CHECK_THROWS(floor_id(l, last_ms + 1), datetime_out_of_range);
}

TEST(crid_floor_id_bounds_every_id_of_its_second) {
    Layout l;
    CHECK_EQ(floor_id(l, epoch), 0);
    CHECK_EQ(floor_id(l, epoch + 1500), pack(l, 1, 0));
    CHECK_EQ(floor_id(l, epoch + 1000), floor_id(l, epoch + 1999));
    int64_t a = floor_id(l, epoch + 41000), b = floor_id(l, epoch + 42000);
    CHECK(a < b);
    CHECK(pack(l, 41, INT64_C(4294967295)) < b);
    CHECK(pack(l, 41, 0) >= a);
    CHECK_THROWS(floor_id(l, epoch - 1), datetime_out_of_range);
}

TEST(crid_allocation_arguments) {
    Layout l;
    check_allocation(l, 0, 1);
    check_allocation(l, max_ts(l), sequence_space(l));
    CHECK_THROWS(check_allocation(l, 0, 0), invalid_parameter);
    CHECK_THROWS(check_allocation(l, 0, -10), invalid_parameter);
    CHECK_THROWS(check_allocation(l, 0, sequence_space(l) + 1), invalid_parameter);
    CHECK_THROWS(check_allocation(l, -1, 10000), numeric_out_of_range);
    CHECK_THROWS(check_allocation(l, max_ts(l) + 1, 10000), numeric_out_of_range);
    CHECK(contains(message_of([&] { check_allocation(l, 0, 0); }), "block size 0 is outside 1 to 4294967296"));
}

// Settings wrong only together are clamped, never refused.
TEST(crid_usable_settings_clamp_combinations) {
    Layout l;
    ReservationSettings ok = usable_settings(l, 10000, 5000);
    CHECK(ok.block_size == 10000 && ok.threshold == 5000 && !ok.block_size_clamped && !ok.threshold_clamped);
    ReservationSettings low = usable_settings(l, 1000, 5000);
    CHECK(low.block_size == 1000 && low.threshold == 1000 && !low.block_size_clamped && low.threshold_clamped);
    CHECK_EQ(usable_settings(l, 1000, 0).threshold, int64_t(0));
    Layout wide;
    wide.timestamp_bits = 40; // 2^23 ids a second
    ReservationSettings big = usable_settings(wide, INT64_C(2147483647), INT64_C(2147483647));
    CHECK(big.block_size == sequence_space(wide) && big.block_size_clamped);
    CHECK(big.threshold == sequence_space(wide) && big.threshold_clamped);
    CHECK(usable_settings(l, 0, -1).block_size == 1 && usable_settings(l, 0, -1).threshold == 0);
}

// The upsert returns the new next_seq; the block ends there.
TEST(crid_block_of_allocation_follows_the_registry) {
    Layout l;
    CHECK_EQ(block_of_allocation(l, 7, 10000, 10000), (Block{pack(l, 7, 0), 10000}));
    CHECK_EQ(block_of_allocation(l, 7, 10000, 20000), (Block{pack(l, 7, 10000), 10000}));
    CHECK_EQ(block_of_allocation(l, 7, 10000, sequence_space(l)),
             (Block{pack(l, 7, sequence_space(l) - 10000), 10000}));
    CHECK_THROWS(block_of_allocation(l, 7, 10000, 9999), internal);
    CHECK_THROWS(block_of_allocation(l, 7, 0, 0), invalid_parameter);
}

TEST(crid_sequence_overflow_of_a_second) {
    Layout l = validate(Layout{.epoch_unix_ms = epoch, .timestamp_bits = 40}); // 8388608 a second
    check_block_end(l, 3, sequence_space(l));
    CHECK_THROWS(check_block_end(l, 3, sequence_space(l) + 1), numeric_out_of_range);
    CHECK_THROWS(block_of_allocation(l, 3, 10000, sequence_space(l) + 5000), numeric_out_of_range);
    std::string m = message_of([&] { check_block_end(l, 3, INT64_C(8390000)); });
    CHECK(contains(m, "sequence overflow for second 3"));
    CHECK(contains(m, "8390000"));
    CHECK(contains(m, "8388608"));
}

TEST(crid_evict_horizon_keeps_recent_seconds) {
    Layout l;
    CHECK_EQ(evict_horizon_ts(l, epoch + 10000500, 3600), 10000 - 3600);
    CHECK_EQ(evict_horizon_ts(l, epoch + 10000500, 0), 10000);
    CHECK_EQ(evict_horizon_ts(l, epoch + 1000, 3600), 0);
    CHECK_EQ(evict_horizon_ts(l, epoch - 5000, 0), 0);
    CHECK_THROWS(evict_horizon_ts(l, epoch, -1), invalid_parameter);
    // Rows wholly before `before` go, unless that passes the horizon.
    CHECK_EQ(evict_bound_ts(l, epoch + 5000999, epoch + 10000000, 3600), 5000);
    CHECK_EQ(evict_bound_ts(l, epoch + 6400000, epoch + 10000000, 3600), 6400);
    CHECK_THROWS(evict_bound_ts(l, epoch + 6401000, epoch + 10000000, 3600), invalid_parameter);
    CHECK_EQ(evict_bound_ts(l, epoch - 1, epoch + 10000000, 3600), 0);
    CHECK_EQ(evict_bound_ts(l, epoch, epoch, 3600), 0);
    CHECK(contains(message_of([&] { evict_bound_ts(l, epoch + 9999000, epoch + 10000000, 3600); }), "too recent"));
}

// crid_next(gene, bits): bits 1 to 16, 2^bits within a block, the gene within bits.
TEST(crid_gene_field_limits) {
    BitField f = gene_field(4, 15, 10000);
    CHECK_EQ(f.width, 4);
    CHECK_EQ(f.shift, 0);
    CHECK_EQ(gene_field(13, 0, 10000).max(), UINT64_C(8191));
    CHECK_EQ(gene_field(16, 65535, 65536).width, 16);
    CHECK_THROWS(gene_field(0, 0, 10000), invalid_parameter);
    CHECK_THROWS(gene_field(17, 0, INT64_C(1) << 20), invalid_parameter);
    CHECK_THROWS(gene_field(14, 0, 10000), invalid_parameter);
    CHECK_THROWS(gene_field(4, 16, 10000), numeric_out_of_range);
    CHECK_THROWS(gene_field(4, -1, 10000), numeric_out_of_range);
    CHECK(contains(message_of([] { gene_field(14, 0, 10000); }), "16384"));
    CHECK(contains(message_of([] { gene_field(14, 0, 10000); }), "crid.block_size (10000)"));
    CHECK(contains(message_of([] { gene_field(17, 0, 1 << 20); }), "gene bits 17 is outside 1 to 16"));
}
