// Base62 text of branded 64-bit ids and of UUIDs: known values (worked out
// independently of this code), fixed width and order, round trips, and every
// way a text or prefix can be wrong.
#include "check.hpp"

#include "../../src/core/base62.hpp"

#include <random>
#include <string>

using namespace crid::core;

namespace {

std::string text(const id_text::Text &t) { return std::string(t.view()); }

Uuid uuid_of(uint64_t high, uint64_t low) {
    Uuid u;
    store_be64(u, 0, high);
    store_be64(u, 8, low);
    return u;
}

} // namespace

TEST(base62_ids_have_known_values_and_fixed_width) {
    CHECK_EQ(text(base62::encode_id(0, "")), "00000000000");
    CHECK_EQ(text(base62::encode_id(61, "")), "0000000000z");
    CHECK_EQ(text(base62::encode_id(62, "")), "00000000010");
    CHECK_EQ(text(base62::encode_id(INT64_MAX, "")), "AzL8n0Y58m7");
    CHECK_EQ(text(base62::encode_id(1645557742000, "ord")), "ord_0000SyCOaNE");
    CHECK_EQ(text(base62::encode_id(1, "sk_live2")), "sk_live2_00000000001");
}

TEST(base62_ids_round_trip_and_sort_as_numbers) {
    std::mt19937_64 rng(7);
    std::string previous;
    int64_t previous_id = -1;
    for (int i = 0; i < 20000; ++i) {
        int64_t id = int64_t(rng() >> (1 + rng() % 63));
        std::string t = text(base62::encode_id(id, "ord"));
        CHECK_EQ(t.size(), size_t(15));
        CHECK_EQ(base62::decode_id(t, "ord"), id);
        if (previous_id >= 0)
            CHECK_EQ(previous < t, previous_id < id);
        previous = t;
        previous_id = id;
    }
}

TEST(base62_id_decoding_refuses_each_kind_of_bad_text) {
    CHECK_THROWS(base62::decode_id("cus_00000000001", "ord"), invalid_text); // other brand
    CHECK_THROWS(base62::decode_id("ord00000000001", "ord"), invalid_text);  // no separator
    CHECK_THROWS(base62::decode_id("ord", "ord"), invalid_text);
    CHECK_THROWS(base62::decode_id("", "ord"), invalid_text);
    CHECK_THROWS(base62::decode_id("ord_0000000001", "ord"), invalid_text);   // 10 digits
    CHECK_THROWS(base62::decode_id("ord_000000000001", "ord"), invalid_text); // 12 digits
    CHECK_THROWS(base62::decode_id("ord_0000000000-", "ord"), invalid_text);
    CHECK_THROWS(base62::decode_id("ord_0000000000\xC3", "ord"), invalid_text);
    CHECK_THROWS(base62::decode_id("ord_AzL8n0Y58m8", "ord"), invalid_text); // 2^63
    CHECK_THROWS(base62::decode_id("zzzzzzzzzzz", ""), invalid_text);        // beyond 2^64 too
    CHECK_THROWS(base62::decode_id("ord_00000000001", ""), invalid_text);    // prefix where none is
    CHECK_EQ(base62::decode_id("AzL8n0Y58m7", ""), INT64_MAX);
    std::string m = crid::test::message_of([] { base62::decode_id("ord_0000000000-", "ord"); });
    CHECK(crid::test::contains(m, "\"-\" at position 15"));
    m = crid::test::message_of([] { base62::decode_id("cus_00000000001", "ord"); });
    CHECK(crid::test::contains(m, "does not start with \"ord_\""));
    m = crid::test::message_of([] { base62::decode_id("ord_AzL8n0Y58m8", "ord"); });
    CHECK(crid::test::contains(m, "larger than the largest bigint"));
}

// Messages count characters as typed: eleven characters with a fullwidth
// digit among them are eleven, and that digit is named whole, at its place.
TEST(base62_messages_count_and_name_characters_as_typed) {
    std::string m = crid::test::message_of([] {
        base62::decode_id("ord_00000000\xEF\xBC\x93"
                          "D7",
                          "ord");
    });
    CHECK_EQ(m, "invalid ord id \"ord_00000000\xEF\xBC\x93"
                "D7\": character \"\xEF\xBC\x93\" at position 13 is not a "
                "base62 digit (0-9, A-Z, a-z)");
    m = crid::test::message_of([] { base62::decode_id("ord_000000000\xC3\xA9\xC3\xA9", "ord"); });
    CHECK(crid::test::contains(m, "character \"\xC3\xA9\" at position 14"));
    m = crid::test::message_of([] { base62::decode_id("ord_0000000000\xC3\xA9\xC3\xA9", "ord"); });
    CHECK(crid::test::contains(m, "it has 12 characters after \"ord_\", expected 11"));
    m = crid::test::message_of([] { base62::decode_uuid("\xC3\xA9\xC3\xA9\xC3\xA9"); });
    CHECK(crid::test::contains(m, "it has 3 characters, expected 22"));
    m = crid::test::message_of([] { base62::encode_id(1, "\xC3\xA9"); });
    CHECK_EQ(m, "invalid id prefix \"\xC3\xA9\": character \"\xC3\xA9\" is not a-z, 0-9 or _");
    m = crid::test::message_of([] { base62::check_prefix("caf\xC3\xA9"); });
    CHECK(crid::test::contains(m, "character \"\xC3\xA9\" is not a-z, 0-9 or _"));
    std::string long_prefix;
    for (int i = 0; i < 40; ++i)
        long_prefix += "\xC3\xA9";
    m = crid::test::message_of([&] { base62::check_prefix(long_prefix); }); // 80 bytes, 40 characters
    CHECK(crid::test::contains(m, "character \"\xC3\xA9\" is not a-z"));
    m = crid::test::message_of([] { base62::check_prefix(std::string(64, 'a')); });
    CHECK(crid::test::contains(m, "it has 64 characters, at most 63 are allowed"));
}

TEST(base62_prefixes_follow_the_rules) {
    for (const char *good : {"", "a", "ord", "sk_live", "v2", "a_b_c"})
        CHECK_EQ(crid::test::message_of([&] { base62::check_prefix(good); }), "");
    for (const char *bad : {"Ord", "2fa", "_ord", "ord_", "or-d", "ord ", "\xC3\xA9t\xC3\xA9"})
        CHECK_THROWS(base62::check_prefix(bad), invalid_parameter);
    CHECK_THROWS(base62::check_prefix(std::string(64, 'a')), invalid_parameter);
    CHECK_EQ(crid::test::message_of([] { base62::check_prefix(std::string(63, 'a')); }), "");
    CHECK_THROWS(base62::encode_id(1, "Ord"), invalid_parameter);
    CHECK_THROWS(base62::decode_id("Ord_00000000001", "Ord"), invalid_parameter);
    CHECK_THROWS(base62::encode_id(-1, "ord"), numeric_out_of_range);
}

TEST(base62_uuids_have_known_values_and_round_trip) {
    CHECK_EQ(text(base62::encode_uuid(Uuid{})), std::string(22, '0'));
    CHECK_EQ(text(base62::encode_uuid(uuid_of(UINT64_MAX, UINT64_MAX))), "7n42DGM5Tflk9n8mt7Fhc7");
    CHECK_EQ(text(base62::encode_uuid(uuid_of(UINT64_C(0x017F22E279B07CC3), UINT64_C(0x98C4DC0C0C07398F)))),
             "02p5oQZoHTv0zeY5yG21K3");
    CHECK(base62::decode_uuid("7n42DGM5Tflk9n8mt7Fhc7") == uuid_of(UINT64_MAX, UINT64_MAX));
    std::mt19937_64 rng(9);
    for (int i = 0; i < 20000; ++i) {
        Uuid a = uuid_of(rng(), rng()), b = uuid_of(rng(), rng());
        std::string ta = text(base62::encode_uuid(a)), tb = text(base62::encode_uuid(b));
        CHECK(base62::decode_uuid(ta) == a);
        CHECK_EQ(ta < tb, a < b);
    }
}

TEST(base62_uuid_decoding_refuses_each_kind_of_bad_text) {
    CHECK_THROWS(base62::decode_uuid(""), invalid_text);
    CHECK_THROWS(base62::decode_uuid("7n42DGM5Tflk9n8mt7Fhc"), invalid_text);
    CHECK_THROWS(base62::decode_uuid("7n42DGM5Tflk9n8mt7Fhc77"), invalid_text);
    CHECK_THROWS(base62::decode_uuid("7n42DGM5Tflk9n8mt7Fhc8"), invalid_text); // 2^128
    CHECK_THROWS(base62::decode_uuid("zzzzzzzzzzzzzzzzzzzzzz"), invalid_text);
    CHECK_THROWS(base62::decode_uuid("7n42DGM5Tflk9n8mt7Fh_7"), invalid_text);
    CHECK_THROWS(base62::decode_uuid(std::string_view("0000000000\0"
                                                      "00000000000",
                                                      22)),
                 invalid_text);
    std::string m = crid::test::message_of([] { base62::decode_uuid("7n42DGM5Tflk9n8mt7Fhc8"); });
    CHECK(crid::test::contains(m, "larger than the largest uuid"));
    m = crid::test::message_of([] { base62::decode_uuid("abc"); });
    CHECK(crid::test::contains(m, "it has 3 characters, expected 22"));
}
