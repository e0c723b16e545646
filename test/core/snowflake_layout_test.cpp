// Snowflake layouts: the presets against ids their owners published, pack and
// unpack at the field limits, validation, the custom spec syntax, and the
// time boundaries (floor_id / unix_ms_of).
#include "check.hpp"

#include "../../src/core/snowflake_layout.hpp"
#include "../../src/core/time_units.hpp"

#include <cstdint>
#include <ostream>
#include <random>
#include <string>

using namespace crid::core;
using namespace crid::core::snowflake;

namespace crid::core::snowflake {
// Lets CHECK_EQ print Fields.
inline std::ostream &operator<<(std::ostream &out, const Fields &f) {
    return out << "{time " << f.time_units << ", node " << f.node << ", sequence " << f.sequence << ", gene " << f.gene
               << "}";
}
} // namespace crid::core::snowflake

using crid::test::contains;
using crid::test::message_of;

namespace {

// True when two layouts lay out ids identically (their names may differ):
// describe() spells every field but the name.
bool same_layout(const Layout &a, const Layout &b) { return describe(a) == describe(b); }

const char *const presets[] = {"twitter", "discord", "instagram", "sonyflake", "sonyflake2", "pgedge", "crid"};

} // namespace

// Twitter's developer docs ("Tweet object", developer.x.com/overview/api/tweets)
// show tweet 1050118621198921728 with "created_at": "Wed Oct 10 20:19:24 +0000 2018".
TEST(twitter_published_tweet_decodes_to_its_created_at_second) {
    Layout t = layout_named("twitter");
    int64_t id = INT64_C(1050118621198921728);
    int64_t ms = unix_ms_of(t, id);
    CHECK_EQ(ms / 1000, INT64_C(1539202764)); // 2018-10-10 20:19:24 UTC
    CHECK_EQ(describe_unix_ms(ms).substr(0, 19), std::string("2018-10-10 20:19:24"));
    Fields f = unpack(t, id);
    CHECK_EQ(pack(t, f), id);
    CHECK(floor_id(t, 1539202764000) <= id);
    CHECK(floor_id(t, 1539202765000) > id);
}

// Discord's developer docs (Reference, "Snowflakes"): 175928847299117063 is
// 41944705796 ms after the Discord epoch (2016-04-30 11:18:25.796 UTC),
// internal worker 1, internal process 0, increment 7.
TEST(discord_documented_snowflake) {
    Layout d = layout_named("discord");
    int64_t id = INT64_C(175928847299117063);
    Fields f = unpack(d, id);
    CHECK_EQ(f.time_units, INT64_C(41944705796));
    CHECK_EQ(f.node, (1 << 5) | 0); // worker << 5 | process
    CHECK_EQ(f.sequence, 7);
    CHECK_EQ(f.gene, 0);
    CHECK_EQ(unix_ms_of(d, id), INT64_C(1462015105796));
    CHECK_EQ(describe_unix_ms(unix_ms_of(d, id)), std::string("2016-04-30 11:18:25.796+00"));
    CHECK_EQ(pack(d, Fields{.time_units = 41944705796, .node = 32, .sequence = 7}), id);
}

// Instagram's engineering blog ("Sharding & IDs at Instagram"): 1387263000 ms
// since their epoch, shard 1341, sequence 5001 % 1024 = 905.
TEST(instagram_blog_example) {
    Layout ig = layout_named("instagram");
    int64_t expected = (INT64_C(1387263000) << 23) | (INT64_C(1341) << 10) | 905;
    CHECK_EQ(expected, INT64_C(11637205501278089));
    CHECK_EQ(pack(ig, Fields{.time_units = 1387263000, .node = 1341, .sequence = 905}), expected);
    Fields f = unpack(ig, expected);
    CHECK_EQ(f.time_units, 1387263000);
    CHECK_EQ(f.node, 1341);
    CHECK_EQ(f.sequence, 905);
    // Their PL/pgSQL's epoch.
    CHECK_EQ(unix_ms_of(ig, expected), INT64_C(1314220021721) + 1387263000);
}

// No published numeric Sonyflake id was found; this checks the composition
// sony/sonyflake documents (elapsed 10 ms units << 24 | sequence << 16 |
// machine id, start 2014-09-01 00:00:00 UTC).
TEST(sonyflake_layout_matches_its_documented_composition) {
    Layout s = layout_named("sonyflake");
    CHECK_EQ(s.epoch_unix_ms, INT64_C(1409529600000));
    CHECK_EQ(s.unit_ms, 10);
    CHECK(s.sequence_above_node);
    int64_t id = pack(s, Fields{.time_units = 100, .node = 0xABCD, .sequence = 0x12});
    CHECK_EQ(id, (INT64_C(100) << 24) | (INT64_C(0x12) << 16) | 0xABCD);
    CHECK_EQ(unix_ms_of(s, id), INT64_C(1409529601000)); // one second after the start
    CHECK_EQ(floor_id(s, 1409529601009), INT64_C(100) << 24);
    CHECK_EQ(floor_id(s, 1409529601010), INT64_C(101) << 24);
    // 39 bits of 10 ms last about 174 years, as its README says.
    CHECK_EQ((last_unix_ms(s) - s.epoch_unix_ms) / (INT64_C(365) * 86400000), 174);
}

// Sonyflake v2 (sony/sonyflake/v2, its Settings left zero): StartTime
// 2025-01-01 00:00:00 UTC, TimeUnit 10 ms, BitsSequence 8, BitsMachineID 16,
// time 63 - 8 - 16 = 39 bits, composed elapsed << (8 + 16) | sequence << 16 |
// machine. The same widths and order as v1; only the start differs, so a v2 id
// read as v1 decodes about ten years early.
TEST(sonyflake2_layout_matches_its_documented_defaults) {
    Layout s = layout_named("sonyflake2");
    CHECK_EQ(describe_unix_ms(s.epoch_unix_ms), std::string("2025-01-01 00:00:00.000+00"));
    CHECK_EQ(s.unit_ms, 10);
    CHECK_EQ(s.time_bits, 39);
    CHECK_EQ(s.sequence_bits, 8);
    CHECK_EQ(s.node_bits, 16);
    CHECK(s.sequence_above_node);
    int64_t id = pack(s, Fields{.time_units = 100, .node = 0xABCD, .sequence = 0x12});
    CHECK_EQ(id, (INT64_C(100) << 24) | (INT64_C(0x12) << 16) | 0xABCD);
    CHECK_EQ(unix_ms_of(s, id), INT64_C(1735689601000)); // one second after the start
    CHECK_EQ(unix_ms_of(s, id) - unix_ms_of(layout_named("sonyflake"), id),
             INT64_C(1735689600000) - INT64_C(1409529600000));
}

// pgEdge's snowflake extension (snowflake.c of 2.x): milliseconds since
// 2023-01-01 (SNOWFLAKE_EPOCH_OFFSET 1672531200 s) << 22 | node (10 bits) << 12
// | counter (12 bits).
TEST(pgedge_layout_matches_its_documented_composition) {
    Layout p = layout_named("pgedge");
    CHECK_EQ(describe_unix_ms(p.epoch_unix_ms), std::string("2023-01-01 00:00:00.000+00"));
    CHECK_EQ(p.unit_ms, 1);
    CHECK(!p.sequence_above_node);
    CHECK(!p.use_sign_bit);
    int64_t ms = INT64_C(1700000000123) - INT64_C(1672531200000);
    int64_t id = (ms << 22) | (INT64_C(3) << 12) | 7;
    Fields f = unpack(p, id);
    CHECK_EQ(f.time_units, ms);
    CHECK_EQ(f.node, 3);
    CHECK_EQ(f.sequence, 7);
    CHECK_EQ(unix_ms_of(p, id), INT64_C(1700000000123));
    CHECK_EQ(pack(p, f), id);
    CHECK(same_layout(p, server_layout(INT64_C(1672531200000), 10, 12, 0)));
}

TEST(preset_constants) {
    Layout t = layout_named("twitter");
    CHECK_EQ(t.epoch_unix_ms, INT64_C(1288834974657));
    CHECK_EQ(describe_unix_ms(t.epoch_unix_ms), std::string("2010-11-04 01:42:54.657+00"));
    CHECK_EQ(t.time_bits, 41);
    CHECK(!t.use_sign_bit);
    Layout d = layout_named("discord");
    CHECK_EQ(describe_unix_ms(d.epoch_unix_ms), std::string("2015-01-01 00:00:00.000+00"));
    CHECK_EQ(d.time_bits + d.node_bits + d.sequence_bits, 64);
    CHECK(d.use_sign_bit);
    Layout c = layout_named("crid");
    CHECK_EQ(describe_unix_ms(c.epoch_unix_ms), std::string("2026-01-01 00:00:00.000+00"));
    CHECK(same_layout(c, layout_named("default")));
    CHECK_EQ(layout_named("default").name, std::string("crid"));
    CHECK(same_layout(c, server_layout(INT64_C(1767225600000), 10, 12, 0)));
}

// The javascript preset: every id at most 2^53 - 1 (Number.MAX_SAFE_INTEGER)
// for 2^30 seconds, at least 34 years, from 2026-01-01; 128 nodes of 65,536
// ids a second each.
TEST(javascript_preset_stays_below_2_to_the_53) {
    Layout j = layout_named("javascript");
    constexpr int64_t max_safe = (INT64_C(1) << 53) - 1;
    CHECK_EQ(j.name, std::string("javascript"));
    CHECK_EQ(id_width(j), 53);
    CHECK_EQ(max_id(j), max_safe);
    CHECK_EQ(j.unit_ms, 1000);
    CHECK_EQ(describe_unix_ms(j.epoch_unix_ms), std::string("2026-01-01 00:00:00.000+00"));
    CHECK(max_node(j) + 1 >= 128);
    CHECK(max_sequence(j) + 1 >= 65536); // per unit of one second
    // 34 Julian years of seconds fit the time field.
    CHECK(max_time_units(j) + 1 >= INT64_C(34) * 36525 * 864);
    CHECK_EQ(describe_unix_ms(last_unix_ms(j)), std::string("2060-01-10 13:37:03.999+00"));
    Fields max{max_time_units(j), max_node(j), max_sequence(j), 0};
    CHECK_EQ(pack(j, max), max_safe);
    CHECK_EQ(unpack(j, max_safe), max);
    CHECK_EQ(floor_id(j, last_unix_ms(j)), max_safe - (INT64_C(1) << 23) + 1);
    CHECK_EQ(floor_id(j, j.epoch_unix_ms + 999), 0);
    CHECK_EQ(floor_id(j, j.epoch_unix_ms + 1000), INT64_C(1) << 23);
    // An id above 2^53 - 1 is of another layout.
    CHECK_THROWS(unpack(j, max_safe + 1), numeric_out_of_range);
    CHECK(contains(message_of([&] { unpack(j, max_safe + 1); }), "ids 0 to 9007199254740991"));
    CHECK_THROWS(pack_at(j, last_unix_ms(j) + 1, Fields{}), datetime_out_of_range);
    // Spelled out, and round-tripped through describe().
    CHECK_EQ(describe(j), std::string("epoch=2026-01-01,unit=1000ms,time=30,node=7,sequence=16,gene=0,sign=false,"
                                      "order=time,node,sequence,bits=53"));
    CHECK(same_layout(layout_named(describe(j)), j));
    CHECK(same_layout(layout_named("epoch=2026-01-01,unit=1s,node=7,sequence=16,bits=53"), j));
    CHECK_EQ(layout_named("epoch=2026-01-01,unit=1s,node=4,sequence=16,gene=3,bits=53").time_bits, 30);
    CHECK_EQ(layout_named("twitter").width, 0);
    CHECK(same_layout(layout_named("epoch=2020-01-01,node=10,sequence=12,bits=63"),
                      layout_named("epoch=2020-01-01,node=10,sequence=12")));
}

TEST(bits_narrows_ids_and_is_checked) {
    CHECK(contains(message_of([] { layout_named("epoch=2026-01-01,unit=1s,node=7,sequence=16,bits=32"); }),
                   "bits=32 is outside 33 to 63"));
    CHECK(contains(message_of([] { layout_named("epoch=2026-01-01,unit=1s,node=7,sequence=16,bits=64"); }),
                   "bits=64 is outside 33 to 63"));
    CHECK(contains(message_of([] { layout_named("epoch=2026-01-01,node=7,sequence=16,bits=53,sign=true"); }),
                   "cannot go with sign=true"));
    // The widths must add up to bits=.
    CHECK(contains(message_of([] { layout_named("epoch=2026-01-01,unit=1s,time=30,node=7,sequence=16,bits=54"); }),
                   "not 54"));
    // 30 bits of milliseconds last 12 days: refused; 30 bits of seconds are not.
    CHECK(contains(message_of([] { layout_named("epoch=2026-01-01,unit=1ms,node=7,sequence=16,bits=53"); }),
                   "time field has 30 bits"));
    CHECK(contains(message_of([] { layout_named("epoch=2026-01-01,unit=1s,time=15,node=16,sequence=22"); }),
                   "time field has 15 bits"));
    // 22 bits of 1,024 ms span exactly 2^32 ms: enough; 21 bits are not.
    CHECK_EQ(layout_named("epoch=2026-01-01,unit=1024,time=22,node=10,sequence=12,bits=44").time_bits, 22);
    CHECK_THROWS(layout_named("epoch=2026-01-01,unit=1024,time=21,node=10,sequence=12,bits=43"), invalid_parameter);
}

TEST(preset_names_are_case_insensitive_and_trimmed) {
    CHECK_EQ(layout_named("Twitter").name, std::string("twitter"));
    CHECK_EQ(layout_named("  SONYFLAKE ").name, std::string("sonyflake"));
    CHECK_EQ(layout_named("DeFault").name, std::string("crid"));
}

TEST(unknown_or_empty_names_list_the_presets) {
    CHECK_THROWS(layout_named("snowflake"), invalid_parameter);
    CHECK_THROWS(layout_named(""), invalid_parameter);
    CHECK_THROWS(layout_named("   "), invalid_parameter);
    try {
        layout_named("mastodon");
        CHECK(false);
    } catch (const Error &e) {
        CHECK(contains(e.what(), "mastodon"));
        CHECK(contains(e.hint(), "twitter, discord, instagram, sonyflake, sonyflake2, pgedge"));
    }
}

TEST(every_preset_round_trips_at_zero_and_at_max_values) {
    for (const char *name : presets) {
        Layout l = layout_named(name);
        Fields zero{};
        CHECK_EQ(unpack(l, pack(l, zero)), zero);
        Fields max{max_time_units(l), max_node(l), max_sequence(l), max_gene(l)};
        int64_t id = pack(l, max);
        CHECK_EQ(unpack(l, id), max);
        // All bits set: the largest bigint, or -1 when the layout uses bit 63.
        CHECK_EQ(id, l.use_sign_bit ? INT64_C(-1) : INT64_MAX);
        Fields mid{max_time_units(l) / 3, max_node(l) / 2, max_sequence(l) / 5, 0};
        CHECK_EQ(unpack(l, pack(l, mid)), mid);
    }
}

TEST(fields_do_not_bleed_into_each_other) {
    for (const char *name : presets) {
        Layout l = layout_named(name);
        int64_t t = pack(l, Fields{.time_units = 1});
        int64_t n = pack(l, Fields{.node = 1});
        int64_t s = pack(l, Fields{.sequence = 1});
        CHECK(t > 0 && n > 0 && s > 0);
        CHECK_EQ(t & n, 0);
        CHECK_EQ(t & s, 0);
        CHECK_EQ(n & s, 0);
        // Time is always the most significant field.
        CHECK(t > pack(l, Fields{.node = max_node(l), .sequence = max_sequence(l)}));
    }
}

TEST(gene_is_the_lowest_field) {
    Layout l = server_layout(INT64_C(1767225600000), 8, 12, 4);
    CHECK_EQ(l.time_bits, 39);
    CHECK_EQ(pack(l, Fields{.gene = 5}), 5);
    CHECK_EQ(pack(l, Fields{.sequence = 1}), 1 << 4);
    CHECK_EQ(pack(l, Fields{.node = 1}), 1 << 16);
    CHECK_EQ(pack(l, Fields{.time_units = 1}), INT64_C(1) << 24);
    Layout sony_gene = layout_named("epoch=2014-09-01,unit=10ms,node=16,sequence=8,gene=3,order=time,sequence,node");
    CHECK_EQ(pack(sony_gene, Fields{.node = 1}), 1 << 3);
    CHECK_EQ(pack(sony_gene, Fields{.sequence = 1}), 1 << 19);
    CHECK_EQ(unpack(sony_gene, pack(sony_gene, Fields{7, 65535, 255, 7})), (Fields{7, 65535, 255, 7}));
}

TEST(pack_names_the_field_out_of_range) {
    Layout t = layout_named("twitter");
    CHECK_THROWS(pack(t, Fields{.node = 1024}), numeric_out_of_range);
    CHECK_THROWS(pack(t, Fields{.node = -1}), numeric_out_of_range);
    CHECK_THROWS(pack(t, Fields{.sequence = 4096}), numeric_out_of_range);
    CHECK_THROWS(pack(t, Fields{.gene = 1}), numeric_out_of_range);
    CHECK_THROWS(pack(t, Fields{.time_units = INT64_C(1) << 41}), numeric_out_of_range);
    CHECK_THROWS(pack(t, Fields{.time_units = -1}), numeric_out_of_range);
    std::string m = message_of([&] { pack(t, Fields{.node = 1024}); });
    CHECK(contains(m, "node 1024"));
    CHECK(contains(m, "0 to 1023"));
    CHECK(contains(m, "twitter"));
}

// pack() places fields in range with its own shifts: they must be where
// id_bits() puts them, in both orders, with and without the sign bit and a
// gene, at the fields' limits and in between.
TEST(pack_places_fields_where_id_bits_does) {
    std::mt19937_64 rng(20261201);
    auto check_layout = [&](const Layout &l) {
        const BitLayout bits = id_bits(l);
        const int64_t max[] = {max_time_units(l), max_node(l), max_sequence(l), max_gene(l)};
        for (int i = 0; i < 200; ++i) {
            int64_t v[4];
            for (int k = 0; k < 4; ++k) {
                uint64_t r = rng();
                v[k] = i == 0 ? 0 : i == 1 ? max[k] : max[k] == 0 ? 0 : int64_t(r % (uint64_t(max[k]) + 1));
            }
            const Fields f{.time_units = v[0], .node = v[1], .sequence = v[2], .gene = v[3]};
            if (pack(l, f) != int64_t(bits.pack_unchecked(v))) {
                CHECK_EQ(pack(l, f), int64_t(bits.pack_unchecked(v)));
                return;
            }
        }
    };
    for (const char *name : presets)
        check_layout(layout_named(name));
    for (int i = 0; i < 300; ++i) {
        const int node = int(rng() % 17), sequence = 1 + int(rng() % 22), gene = int(rng() % 17);
        const bool sign = rng() % 2, sony = rng() % 2;
        const int total = sign ? 64 : 63;
        if (total - node - sequence - gene < 32)
            continue;
        check_layout(layout_named("epoch=2020-01-01,node=" + std::to_string(node) +
                                  ",sequence=" + std::to_string(sequence) + ",gene=" + std::to_string(gene) +
                                  (sign ? ",sign=true" : "") + (sony ? ",order=time,sequence,node" : "")));
    }
}

TEST(negative_ids_only_fit_sign_bit_layouts) {
    CHECK_THROWS(unpack(layout_named("twitter"), -1), numeric_out_of_range);
    CHECK_THROWS(unix_ms_of(layout_named("crid"), INT64_MIN), numeric_out_of_range);
    CHECK(contains(message_of([] { unpack(layout_named("sonyflake"), -42); }), "-42"));
    Fields f = unpack(layout_named("discord"), INT64_MIN);
    CHECK_EQ(f.time_units, INT64_C(1) << 41);
    CHECK_EQ(f.node, 0);
}

TEST(validation_names_field_value_and_limit) {
    // Every layout reaches the code as a spec or as settings; spelling a
    // layout and reading it back runs every check on it.
    auto validate = [](const Layout &l) { return layout_named(describe(l)); };
    Layout good = layout_named("twitter");
    auto with = [&](auto change) {
        Layout l = good;
        change(l);
        return l;
    };
    CHECK_THROWS(validate(with([](Layout &l) { l.node_bits = 17, l.time_bits = 34; })), invalid_parameter);
    CHECK_THROWS(validate(with([](Layout &l) { l.sequence_bits = 0, l.time_bits = 53; })), invalid_parameter);
    CHECK_THROWS(validate(with([](Layout &l) { l.sequence_bits = 23, l.time_bits = 30; })), invalid_parameter);
    CHECK_THROWS(validate(with([](Layout &l) { l.gene_bits = 17; })), invalid_parameter);
    CHECK_THROWS(validate(with([](Layout &l) { l.gene_bits = -1; })), invalid_parameter);
    CHECK_THROWS(validate(with([](Layout &l) { l.time_bits = 31, l.node_bits = 16, l.gene_bits = 4; })),
                 invalid_parameter);
    CHECK_THROWS(validate(with([](Layout &l) { l.time_bits = 40; })), invalid_parameter);
    CHECK_THROWS(validate(with([](Layout &l) { l.use_sign_bit = true; })), invalid_parameter);
    CHECK_THROWS(validate(with([](Layout &l) { l.unit_ms = 0; })), invalid_parameter);
    CHECK_THROWS(validate(with([](Layout &l) { l.epoch_unix_ms = -1; })), invalid_parameter);
    CHECK(contains(message_of([&] { validate(with([](Layout &l) { l.node_bits = 17; })); }), "node field has 17 bits"));
    CHECK(contains(message_of([&] { validate(with([](Layout &l) { l.node_bits = 17; })); }), "0 to 16"));
    std::string sum = message_of([&] { validate(with([](Layout &l) { l.time_bits = 40; })); });
    CHECK(contains(sum, "62 bits"));
    CHECK(contains(sum, "not 63"));
    CHECK(contains(message_of([&] { validate(with([](Layout &l) { l.epoch_unix_ms = INT64_C(253402300800000); })); }),
                   "1970-01-01 00:00:00 UTC to 9999-12-31"));
    // A time field whose end does not fit 64-bit milliseconds.
    CHECK_THROWS(layout_named("epoch=0,unit=3ms,time=62,node=0,sequence=1"), invalid_parameter);
    CHECK_THROWS(layout_named("epoch=1,unit=2ms,time=62,node=0,sequence=1"), invalid_parameter);
    CHECK_EQ(last_unix_ms(layout_named("epoch=0,unit=2ms,time=62,node=0,sequence=1")), INT64_MAX);
    CHECK_THROWS(validate(with([](Layout &l) { l.unit_ms = INT64_MAX; })), invalid_parameter);
    CHECK_THROWS(layout_named("epoch=2020-01-01,node=10,sequence=12,unit=999999999999999999"), invalid_parameter);
    CHECK(same_layout(validate(good), good));
}

TEST(server_layout_derives_time_bits) {
    Layout l = server_layout(0, 10, 12, 0);
    CHECK_EQ(l.time_bits, 41);
    CHECK_EQ(l.name, std::string("server"));
    CHECK_EQ(server_layout(0, 0, 22, 0).time_bits, 41);
    CHECK_EQ(server_layout(0, 16, 15, 0).time_bits, 32);
    CHECK_THROWS(server_layout(0, 16, 16, 0), invalid_parameter); // 31 bits of time
    CHECK_THROWS(server_layout(0, 17, 12, 0), invalid_parameter);
    CHECK_THROWS(server_layout(0, 10, 0, 0), invalid_parameter);
    CHECK_THROWS(server_layout(-5, 10, 12, 0), invalid_parameter);
    CHECK_THROWS(server_layout(0, 2147483647, 12, 0), invalid_parameter);
    CHECK_THROWS(server_layout(0, 10, -2147483647 - 1, 0), invalid_parameter);
    std::string m = message_of([] { server_layout(0, 16, 22, 16); });
    CHECK(contains(m, "sequence field has 22") || contains(m, "time field has 9"));
    try {
        server_layout(0, 16, 16, 0);
        CHECK(false);
    } catch (const Error &e) {
        CHECK(contains(e.what(), "time field has 31 bits"));
        CHECK(contains(e.hint(), "node (16), sequence (16) and gene (0)"));
    }
}

TEST(custom_spec_full_and_derived) {
    Layout l = layout_named("epoch=2020-01-01,unit=1ms,time=41,node=10,sequence=12,gene=0");
    CHECK_EQ(l.epoch_unix_ms, INT64_C(1577836800000));
    CHECK_EQ(l.time_bits, 41);
    CHECK_EQ(l.name, std::string("custom"));
    Layout derived = layout_named("epoch=2020-01-01,node=10,sequence=12");
    CHECK(same_layout(l, derived));
    Layout gene = layout_named("epoch=2020-01-01,node=8,sequence=12,gene=4");
    CHECK_EQ(gene.time_bits, 39);
    Layout signed64 = layout_named("epoch=2015-01-01,node=10,sequence=12,sign=true");
    CHECK(same_layout(signed64, layout_named("discord")));
}

TEST(custom_spec_is_case_and_space_tolerant) {
    Layout l = layout_named(" Epoch = 2014-09-01 , UNIT=10MS, node=16 ,sequence=8, order = Time, Sequence , Node ");
    CHECK(same_layout(l, layout_named("sonyflake")));
    CHECK(
        layout_named("epoch=2014-09-01,unit=10,node=16,sequence=8,order=time,sequence,node,gene").sequence_above_node);
    CHECK(!layout_named("order=time,node,sequence,epoch=2020-01-01,node=10,sequence=12").sequence_above_node);
}

TEST(custom_spec_epoch_forms) {
    auto epoch = [](const char *e) {
        return layout_named(std::string("epoch=") + e + ",node=10,sequence=12").epoch_unix_ms;
    };
    CHECK_EQ(epoch("1288834974657"), INT64_C(1288834974657));
    CHECK_EQ(epoch("2010-11-04T01:42:54.657Z"), INT64_C(1288834974657));
    CHECK_EQ(epoch("2010-11-04t01:42:54.657z"), INT64_C(1288834974657));
    CHECK_EQ(epoch("2010-11-04 01:42:54.657Z"), INT64_C(1288834974657));
    CHECK_EQ(epoch("2010-11-04T01:42:54.6Z"), INT64_C(1288834974600));
    CHECK_EQ(epoch("2010-11-04T01:42:54Z"), INT64_C(1288834974000));
    CHECK_EQ(epoch("1970-01-01"), 0);
    CHECK_EQ(epoch("0"), 0);
    CHECK_EQ(epoch("2000-02-29"), INT64_C(951782400000));
    CHECK_EQ(epoch("2014-09-01T00:00:00Z"), INT64_C(1409529600000));
    CHECK_EQ(epoch("9999-12-31"), INT64_C(253402214400000));
}

TEST(custom_spec_units) {
    auto unit = [](const char *u) {
        return layout_named(std::string("epoch=2020-01-01,node=10,sequence=12,unit=") + u).unit_ms;
    };
    CHECK_EQ(unit("1ms"), 1);
    CHECK_EQ(unit("10ms"), 10);
    CHECK_EQ(unit("10"), 10);
    CHECK_EQ(unit("1s"), 1000);
    CHECK_EQ(unit("2S"), 2000);
}

TEST(bad_custom_specs_name_the_key_and_value) {
    struct Case {
        const char *spec;
        const char *says;
    };
    const Case cases[] = {
        {"epoch=2020-01-01,node=10,sequence=12,colour=blue", "unknown key \"colour\""},
        {"epoch=2020-01-01,node=10,sequence=12,node=9", "node appears twice"},
        {"epoch=2020-01-01,node=ten,sequence=12", "node=ten"},
        {"epoch=2020-01-01,node=-1,sequence=12", "node=-1"},
        {"epoch=2020-01-01,node=+1,sequence=12", "node=+1"},
        {"epoch=2020-01-01,node=99,sequence=12", "node=99"},
        {"epoch=2020-01-01,node=10,sequence=12,time=99999999999999999999", "time=99999999999999999999"},
        {"node=10,sequence=12", "epoch is missing"},
        {"epoch=2020-01-01,sequence=12", "node is missing"},
        {"epoch=2020-01-01,node=10", "sequence is missing"},
        {"epoch=2020-01-01,node=10,sequence=12,time=40", "not 63"},
        {"epoch=2020-01-01,node=17,sequence=12", "node field has 17 bits"},
        {"epoch=2020-01-01,node=10,sequence=12,unit=0ms", "0 ms"},
        {"epoch=2020-01-01,node=10,sequence=12,unit=1min", "unit=1min"},
        {"epoch=2020-01-01,node=10,sequence=12,unit=ms", "unit=ms"},
        {"epoch=2020-01-01,node=10,sequence=12,sign=yes", "sign=yes"},
        {"epoch=2020-01-01,node=10,sequence=12,order=node,time,sequence", "order=node,time,sequence"},
        {"epoch=2020-01-01,node=10,sequence=12,order=time,node", "order=time,node"},
        {"epoch=2021-02-29,node=10,sequence=12", "epoch=2021-02-29"},
        {"epoch=2020-13-01,node=10,sequence=12", "epoch=2020-13-01"},
        {"epoch=2020-1-1,node=10,sequence=12", "epoch=2020-1-1"},
        {"epoch=2020-01-01T24:00:00Z,node=10,sequence=12", "epoch=2020-01-01T24:00:00Z"},
        {"epoch=2020-01-01T10:00:00,node=10,sequence=12", "must end in Z"},
        {"epoch=2020-01-01T10:00:00+02:00,node=10,sequence=12", "must end in Z"},
        {"epoch=2020-01-01T10:00:00.1234Z,node=10,sequence=12", "fraction"},
        {"epoch=1969-12-31,node=10,sequence=12", "1970"},
        {"epoch=yesterday,node=10,sequence=12", "epoch=yesterday"},
        {"epoch=2020-01-01,,node=10,sequence=12", "empty"},
        {"epoch=2020-01-01,node=10,sequence=12,", "empty"},
        {"epoch=,node=10,sequence=12", "epoch has no value"},
        {"=5,epoch=2020-01-01,node=10,sequence=12", "no key"},
        {"twitter,gene=2", "\"twitter\" is not a key=value item"},
        {"epoch=2020-01-01,node=10,sequence=12,time", "\"time\" is not a key=value item"},
    };
    for (const Case &c : cases) {
        std::string m;
        bool right_kind = false;
        try {
            layout_named(c.spec);
        } catch (const Error &e) {
            m = e.what();
            right_kind = e.kind() == ErrorKind::invalid_parameter;
        }
        if (!right_kind || !contains(m, c.says))
            crid::test::fail(__FILE__, __LINE__, std::string(c.spec) + " -> \"" + m + "\", wanted \"" + c.says + "\"");
        else if (!contains(m, "invalid snowflake layout"))
            crid::test::fail(__FILE__, __LINE__, std::string(c.spec) + " -> \"" + m + "\" does not quote the spec");
    }
}

TEST(long_bad_specs_are_clipped_in_messages) {
    std::string spec = "epoch=2020-01-01,node=10,sequence=12,x" + std::string(5000, 'y') + "=1";
    std::string m = message_of([&] { layout_named(spec); });
    CHECK(!m.empty());
    CHECK(m.size() < 600);
}

TEST(describe_is_canonical_and_round_trips) {
    CHECK_EQ(describe(layout_named("twitter")),
             std::string("epoch=2010-11-04T01:42:54.657Z,unit=1ms,time=41,node=10,sequence=12,gene=0,sign=false,"
                         "order=time,node,sequence"));
    CHECK_EQ(describe(layout_named("sonyflake")),
             std::string("epoch=2014-09-01,unit=10ms,time=39,node=16,sequence=8,gene=0,sign=false,"
                         "order=time,sequence,node"));
    CHECK_EQ(describe(layout_named("epoch=2020-01-01T10:00:00Z,node=10,sequence=12")).substr(0, 27),
             std::string("epoch=2020-01-01T10:00:00Z,"));
    const char *customs[] = {
        "epoch=2020-01-01T10:00:00.5Z,unit=1s,node=0,sequence=22",
        "epoch=1,node=16,sequence=1,gene=14,unit=7",
        "epoch=2020-01-01,node=3,sequence=5,gene=2,sign=true",
    };
    for (const char *name : presets) {
        Layout l = layout_named(name);
        Layout back = layout_named(describe(l));
        CHECK(same_layout(l, back));
        CHECK_EQ(describe(back), describe(l));
    }
    for (const char *spec : customs) {
        Layout l = layout_named(spec);
        CHECK(same_layout(l, layout_named(describe(l))));
    }
}

TEST(floor_id_and_unix_ms_of_agree) {
    for (const char *name : presets) {
        Layout l = layout_named(name);
        const int64_t times[] = {l.epoch_unix_ms,
                                 l.epoch_unix_ms + 1,
                                 l.epoch_unix_ms + 9,
                                 l.epoch_unix_ms + 10,
                                 l.epoch_unix_ms + 123456789,
                                 INT64_C(1767225600123),
                                 last_unix_ms(l) - 10,
                                 last_unix_ms(l)};
        for (int64_t ms : times) {
            if (ms < l.epoch_unix_ms)
                continue;
            int64_t lo = floor_id(l, ms);
            int64_t unit_start = unix_ms_of(l, lo);
            CHECK(unit_start <= ms);
            CHECK(ms < unit_start + l.unit_ms);
            CHECK_EQ(unpack(l, lo), (Fields{unpack(l, lo).time_units, 0, 0, 0}));
            // Every id of the same unit is at or above the boundary.
            Fields top{unpack(l, lo).time_units, max_node(l), max_sequence(l), max_gene(l)};
            CHECK_EQ(unix_ms_of(l, pack(l, top)), unit_start);
            if (!l.use_sign_bit || lo >= 0)
                CHECK(pack(l, top) >= lo);
        }
        CHECK_EQ(floor_id(l, l.epoch_unix_ms), 0);
    }
}

TEST(floor_id_outside_the_range_names_it) {
    Layout t = layout_named("twitter");
    CHECK_THROWS(floor_id(t, t.epoch_unix_ms - 1), datetime_out_of_range);
    CHECK_THROWS(floor_id(t, last_unix_ms(t) + 1), datetime_out_of_range);
    CHECK_THROWS(floor_id(t, INT64_MIN), datetime_out_of_range);
    CHECK_THROWS(floor_id(t, INT64_MAX), datetime_out_of_range);
    std::string m = message_of([&] { floor_id(t, 0); });
    CHECK(contains(m, "1970-01-01 00:00:00.000+00"));
    CHECK(contains(m, "2010-11-04 01:42:54.657+00"));
    CHECK(contains(m, "twitter"));
    // Twitter's 41 bits of ms end in 2080.
    CHECK_EQ(describe_unix_ms(last_unix_ms(t)).substr(0, 4), std::string("2080"));
}

// pack_at() gives back the ids their owners published from the time and the
// other fields alone: the id a backfill packs is the id the generator minted.
TEST(pack_at_rebuilds_published_ids) {
    Layout d = layout_named("discord");
    // 2016-04-30 11:18:25.796 UTC, worker 1, process 0, increment 7.
    CHECK_EQ(pack_at(d, INT64_C(1462015105796), Fields{0, 1 << 5, 7, 0}), INT64_C(175928847299117063));
    Layout t = layout_named("twitter");
    int64_t tweet = INT64_C(1050118621198921728);
    Fields f = unpack(t, tweet);
    CHECK_EQ(pack_at(t, unix_ms_of(t, tweet), f), tweet);
    // The time_units of `rest` plays no part.
    f.time_units = 12345;
    CHECK_EQ(pack_at(t, unix_ms_of(t, tweet), f), tweet);
}

// Any millisecond of a unit packs to that unit: Sonyflake counts 10 ms.
TEST(pack_at_floors_to_the_unit) {
    Layout s = layout_named("sonyflake");
    const int64_t start = s.epoch_unix_ms + 1230;
    for (int64_t ms = start; ms < start + 10; ++ms)
        CHECK_EQ(pack_at(s, ms, Fields{0, 65535, 255, 0}), pack(s, Fields{123, 65535, 255, 0}));
    CHECK_EQ(unpack(s, pack_at(s, start + 10, Fields{0, 1, 2, 0})), (Fields{124, 1, 2, 0}));
    Layout c = layout_named("crid");
    CHECK_EQ(pack_at(c, c.epoch_unix_ms, Fields{}), 0);
    CHECK_EQ(pack_at(c, last_unix_ms(c), Fields{0, 1023, 4095, 0}), INT64_MAX);
}

TEST(pack_at_names_the_field_and_its_limit) {
    Layout c = layout_named("crid");
    const int64_t ms = c.epoch_unix_ms + 1000;
    CHECK_THROWS(pack_at(c, c.epoch_unix_ms - 1, Fields{}), datetime_out_of_range);
    CHECK_THROWS(pack_at(c, last_unix_ms(c) + 1, Fields{}), datetime_out_of_range);
    CHECK_THROWS(pack_at(c, INT64_MIN, Fields{}), datetime_out_of_range);
    CHECK(contains(message_of([&] { pack_at(c, c.epoch_unix_ms - 1, Fields{}); }), "2026-01-01 00:00:00.000+00"));
    std::string m = message_of([&] { pack_at(c, ms, Fields{0, 0, 4096, 0}); });
    CHECK(contains(m, "sequence 4096"));
    CHECK(contains(m, "0 to 4095"));
    m = message_of([&] { pack_at(c, ms, Fields{0, 1024, 0, 0}); });
    CHECK(contains(m, "node 1024"));
    CHECK(contains(m, "0 to 1023"));
    m = message_of([&] { pack_at(c, ms, Fields{0, 0, 0, 1}); });
    CHECK(contains(m, "gene 1"));
    CHECK(contains(m, "0 to 0"));
    CHECK_THROWS(pack_at(c, ms, Fields{0, -1, 0, 0}), numeric_out_of_range);
    CHECK_THROWS(pack_at(c, ms, Fields{0, 0, -1, 0}), numeric_out_of_range);
    CHECK_THROWS(pack_at(c, ms, Fields{0, 0, 0, -1}), numeric_out_of_range);
    CHECK_THROWS(pack_at(c, ms, Fields{0, INT64_MAX, INT64_MIN, 0}), numeric_out_of_range);
}

TEST(describe_unix_ms_formats_and_survives_extremes) {
    CHECK_EQ(describe_unix_ms(0), std::string("1970-01-01 00:00:00.000+00"));
    CHECK_EQ(describe_unix_ms(-1), std::string("1969-12-31 23:59:59.999+00"));
    CHECK(!describe_unix_ms(INT64_MAX).empty());
    CHECK(!describe_unix_ms(INT64_MIN).empty());
}
