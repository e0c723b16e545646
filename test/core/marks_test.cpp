// The mark files: what is written reads back, 0.1.0's crid_high_water still
// reads, and every kind of damage is refused with invalid_text.
#include "check.hpp"

#include "../../src/core/marks.hpp"

#include <cstdio>

using namespace crid::core;
using namespace crid::core::marks;
using crid::test::contains;
using crid::test::message_of;

namespace {
const HighWater sample_high_water{INT64_C(1767225600123),
                                  "epoch=2026-01-01,unit=1ms,time=41,node=10,sequence=12,gene=0"};
const RegistryMark sample_registry{INT64_C(1767225601), INT64_C(40000)};
} // namespace

TEST(marks_round_trip) {
    CHECK(parse_high_water(format(sample_high_water)) == sample_high_water);
    CHECK(parse_registry_mark(format(sample_registry)) == sample_registry);
    CHECK(contains(format(sample_high_water), "crid_high_water 2\nunix_ms 1767225600123\n"));
}

TEST(marks_read_the_0_1_high_water_format) {
    HighWater old = parse_high_water("1767225600123\nepoch=2026-01-01,unit=1ms,time=41,node=10,sequence=12,gene=0\n");
    CHECK(old == sample_high_water);
    CHECK_THROWS(parse_high_water("1767225600123\n"), invalid_text);
    CHECK_THROWS(parse_high_water("12x\nlayout\n"), invalid_text);
    CHECK_THROWS(parse_high_water("1 layout extra\n"), invalid_text);
    CHECK_THROWS(parse_high_water("99999999999999999999 layout\n"), invalid_text);
    CHECK_THROWS(parse_high_water(""), invalid_text);
}

TEST(marks_refuse_every_kind_of_damage) {
    const std::string good = format(sample_high_water);
    // Every truncation: a write cut short anywhere.
    for (size_t n = 0; n < good.size(); ++n)
        CHECK_THROWS(parse_high_water(good.substr(0, n)), invalid_text);
    // Every single flipped bit.
    for (size_t i = 0; i < good.size(); ++i)
        for (int bit = 0; bit < 8; ++bit) {
            std::string bad = good;
            bad[i] = char(bad[i] ^ (1 << bit));
            bool refused = false;
            try {
                (void)parse_high_water(bad);
            } catch (const Error &e) {
                refused = e.kind() == ErrorKind::invalid_text;
            }
            if (!refused)
                crid::test::fail(__FILE__, __LINE__, "a flipped bit at byte " + std::to_string(i) + " was accepted");
        }
    CHECK_THROWS(parse_high_water(good + "x"), invalid_text);
    CHECK_THROWS(parse_registry_mark(good), invalid_text);
    CHECK_THROWS(parse_registry_mark(std::string(4096, '\0')), invalid_text);
    CHECK(contains(message_of([] { parse_registry_mark("crid_registry_mark 1\nunix_s 1\n"); }), "no checksum line"));
}

TEST(marks_refuse_well_checksummed_nonsense) {
    // A file with a valid checksum but the wrong content: hand-made.
    auto with_sum = [](std::string body) {
        char sum[32];
        std::snprintf(sum, sizeof sum, "checksum %016llx\n", static_cast<unsigned long long>(checksum(body)));
        return body + sum;
    };
    CHECK(contains(message_of([&] { parse_registry_mark(with_sum("crid_registry_mark 1\nunix_s 5\n")); }),
                   "no sequence line"));
    CHECK(contains(
        message_of([&] { parse_registry_mark(with_sum("crid_registry_mark 1\nunix_s 5\nunix_s 6\nsequence 1\n")); }),
        "2 unix_s lines"));
    CHECK(contains(
        message_of([&] { parse_registry_mark(with_sum("crid_registry_mark 1\nunix_s 5\nsequence 1\ncolour red\n")); }),
        "unknown line"));
    CHECK(contains(message_of([&] { parse_registry_mark(with_sum("crid_registry_mark 1\nunix_s -5\nsequence 1\n")); }),
                   "unix_s is not a number"));
    CHECK_THROWS(parse_registry_mark(with_sum("crid_registry_mark 1\nunix_s 5\nsequence\n")), invalid_text);
    CHECK_THROWS(parse_registry_mark(with_sum("crid_registry_mark 1\nunix_s 5\nsequence 1\r\n")), invalid_text);
}
