// ULID and TypeID text: the vectors their specifications publish
// (github.com/ulid/spec README; github.com/jetify-com/typeid spec/valid.yml
// and spec/invalid.yml, spec version 0.3.0), case and ambiguity rules, and
// round trips that keep UUID order.
#include "check.hpp"
#include "uuid_hex.hpp"

#include "../../src/core/base32.hpp"

#include <random>
#include <string>

using namespace crid::core;

namespace {

std::string text(const id_text::Text &t) { return std::string(t.view()); }

Uuid parse(const char *hex) { return crid::test::uuid_from_hex(hex); }

Uuid at_unix_ms(uint64_t ms) {
    Uuid u;
    store_be64(u, 0, ms << 16);
    return u;
}

} // namespace

TEST(ulid_spec_examples) {
    // "ulid(1469918176385) // 01ARYZ6S41..." and decodeTime of it.
    CHECK_EQ(text(base32::encode_ulid(at_unix_ms(UINT64_C(1469918176385)))).substr(0, 10), "01ARYZ6S41");
    CHECK_EQ(base32::decode_ulid("01ARYZ6S41TSV4RRFFQ69G5FAV").high48(), UINT64_C(1469918176385));
    // The spec's sample ULID survives a round trip.
    CHECK_EQ(text(base32::encode_ulid(base32::decode_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAV"))),
             "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    // The largest ULID: all 128 bits set, time 2^48 - 1.
    Uuid max = base32::decode_ulid("7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    CHECK(max == parse("ffffffff-ffff-ffff-ffff-ffffffffffff"));
    CHECK_EQ(max.high48(), UINT64_C(281474976710655));
    // Monotonic example: ...VRZ then ...VS0 is one more.
    Uuid a = base32::decode_ulid("01BX5ZZKBKACTAV9WEVGEMMVRZ");
    Uuid b = base32::decode_ulid("01BX5ZZKBKACTAV9WEVGEMMVS0");
    CHECK_EQ(a.low64() + 1, b.low64());
    CHECK(a.high48() == b.high48());
}

TEST(ulid_input_is_case_insensitive_with_crockford_substitutions) {
    Uuid u = base32::decode_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAV");
    CHECK(base32::decode_ulid("01arz3ndektsv4rrffq69g5fav") == u);
    CHECK(base32::decode_ulid("0IARZ3NDEKTSV4RRFFQ69G5FAV") == u); // I -> 1
    CHECK(base32::decode_ulid("0lARZ3NDEKTSV4RRFFQ69G5FAV") == u); // l -> 1
    CHECK(base32::decode_ulid("O1ARZ3NDEKTSV4RRFFQ69G5FAV") == u); // O -> 0
    CHECK_THROWS(base32::decode_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAU"), invalid_text);
    CHECK_THROWS(base32::decode_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAu"), invalid_text);
    std::string m = crid::test::message_of([] { base32::decode_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAU"); });
    CHECK(crid::test::contains(m, "\"U\" at position 26"));
}

TEST(ulid_decoding_refuses_length_alphabet_and_overflow) {
    CHECK_THROWS(base32::decode_ulid(""), invalid_text);
    CHECK_THROWS(base32::decode_ulid("01ARZ3NDEKTSV4RRFFQ69G5FA"), invalid_text);
    CHECK_THROWS(base32::decode_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAVV"), invalid_text);
    CHECK_THROWS(base32::decode_ulid("01ARZ3NDEK-SV4RRFFQ69G5FAV"), invalid_text);
    CHECK_THROWS(base32::decode_ulid("01ARZ3NDEKTSV4RRFFQ69G5FA\xFF"), invalid_text);
    CHECK_THROWS(base32::decode_ulid("80000000000000000000000000"), invalid_text);
    CHECK_THROWS(base32::decode_ulid("ZZZZZZZZZZZZZZZZZZZZZZZZZZ"), invalid_text);
    std::string m = crid::test::message_of([] { base32::decode_ulid("80000000000000000000000000"); });
    CHECK(crid::test::contains(m, "above 7"));
}

TEST(typeid_spec_valid_vectors) {
    struct Vector {
        const char *text, *prefix, *uuid;
    };
    const Vector valid[] = {
        {"00000000000000000000000000", "", "00000000-0000-0000-0000-000000000000"},
        {"00000000000000000000000001", "", "00000000-0000-0000-0000-000000000001"},
        {"0000000000000000000000000a", "", "00000000-0000-0000-0000-00000000000a"},
        {"0000000000000000000000000g", "", "00000000-0000-0000-0000-000000000010"},
        {"00000000000000000000000010", "", "00000000-0000-0000-0000-000000000020"},
        {"7zzzzzzzzzzzzzzzzzzzzzzzzz", "", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
        {"prefix_0123456789abcdefghjkmnpqrs", "prefix", "0110c853-1d09-52d8-d73e-1194e95b5f19"},
        {"prefix_01h455vb4pex5vsknk084sn02q", "prefix", "01890a5d-ac96-774b-bcce-b302099a8057"},
        {"pre_fix_00000000000000000000000000", "pre_fix", "00000000-0000-0000-0000-000000000000"},
    };
    for (const Vector &v : valid) {
        base32::TypeId t = base32::decode_typeid(v.text);
        CHECK_EQ(std::string(t.prefix), v.prefix);
        CHECK(t.uuid == parse(v.uuid));
        CHECK_EQ(text(base32::encode_typeid(v.prefix, parse(v.uuid))), v.text);
        CHECK(base32::decode_typeid_as(v.text, v.prefix) == parse(v.uuid));
    }
    // The spec README's examples of prefixes: the longest is 63 letters.
    std::string longest = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk";
    for (std::string p : {std::string("user"), std::string("my_type"), std::string("a_b_c"), std::string("my__type"),
                          std::string("a"), longest}) {
        std::string id = p + "_01h5fskfsk4fpeqwnsyz5hj55t";
        CHECK_EQ(std::string(base32::decode_typeid(id).prefix), p);
        CHECK_EQ(text(base32::encode_typeid(p, base32::decode_typeid(id).uuid)), id);
    }
}

TEST(typeid_spec_invalid_vectors) {
    const char *invalid[] = {
        "PREFIX_00000000000000000000000000",
        "12345_00000000000000000000000000",
        "pre.fix_00000000000000000000000000",
        ("pr\xC3\xA9"
         "fix_00000000000000000000000000"),
        "  prefix_00000000000000000000000000",
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000",
        "_00000000000000000000000000",
        "_",
        "prefix_1234567890123456789012345",
        "prefix_123456789012345678901234567",
        "prefix_1234567890123456789012345 ",
        "prefix_0123456789ABCDEFGHJKMNPQRS",
        "prefix_123456789-123456789-123456",
        "prefix_ooooooiiiiiiuuuuuuulllllll",
        "prefix_i23456789ol23456789oi23456",
        "prefix_123456789-0123456789-0123456",
        "prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz",
        "_prefix_00000000000000000000000000",
        "prefix__00000000000000000000000000",
        "",
        "prefix_",
    };
    for (const char *t : invalid) {
        std::string m = crid::test::message_of([&] { base32::decode_typeid(t); });
        if (m.empty())
            crid::test::fail(__FILE__, __LINE__, std::string("accepted invalid TypeID ") + t);
        CHECK_THROWS(base32::decode_typeid(t), invalid_text);
    }
}

// Messages count characters as typed and name a character whole.
TEST(base32_messages_count_and_name_characters_as_typed) {
    std::string m = crid::test::message_of([] { base32::decode_ulid("01ARZ3NDEKTSV4RRFFQ69G5FA\xC3\x9C"); });
    CHECK(crid::test::contains(m, "character \"\xC3\x9C\" at position 26 is not a Crockford base32 symbol"));
    m = crid::test::message_of([] { base32::decode_ulid("01ARZ3NDEKTSV4RRFFQ69G5F\xC3\x9C"); });
    CHECK(crid::test::contains(m, "it has 25 characters, expected 26"));
    m = crid::test::message_of([] { base32::decode_typeid("\xC3\xBCser_00000000000000000000000000"); });
    CHECK(crid::test::contains(m, "prefix \"\xC3\xBCser\": character \"\xC3\xBC\" is not a-z or _"));
    m = crid::test::message_of([] { base32::decode_typeid("user_0000000000000000000000000\xC3\xBC"); });
    CHECK(crid::test::contains(m, "character \"\xC3\xBC\" at position 31 is not a lowercase TypeID symbol"));
    m = crid::test::message_of([] { base32::encode_typeid("\xC3\xBC", Uuid{}); });
    CHECK_EQ(m, "invalid TypeID prefix \"\xC3\xBC\": character \"\xC3\xBC\" is not a-z or _");
}

TEST(typeid_prefix_rules_and_expected_prefix) {
    CHECK_THROWS(base32::encode_typeid("User", Uuid{}), invalid_parameter);
    CHECK_THROWS(base32::encode_typeid("user_", Uuid{}), invalid_parameter);
    CHECK_THROWS(base32::encode_typeid("us3r", Uuid{}), invalid_parameter);
    CHECK_THROWS(base32::encode_typeid(std::string(64, 'a'), Uuid{}), invalid_parameter);
    CHECK_EQ(text(base32::encode_typeid("", Uuid{})), "00000000000000000000000000");
    CHECK_THROWS(base32::decode_typeid_as("user_00000000000000000000000000", "post"), invalid_text);
    CHECK_THROWS(base32::decode_typeid_as("00000000000000000000000000", "post"), invalid_text);
    CHECK_THROWS(base32::decode_typeid_as("user_00000000000000000000000000", "Post"), invalid_parameter);
    std::string m = crid::test::message_of([] { base32::decode_typeid_as("user_00000000000000000000000000", "post"); });
    CHECK(crid::test::contains(m, "its prefix is \"user\", expected \"post\""));
}

TEST(ulid_and_typeid_agree_and_keep_uuid_order) {
    std::mt19937_64 rng(11);
    for (int i = 0; i < 20000; ++i) {
        Uuid a, b;
        store_be64(a, 0, rng());
        store_be64(a, 8, rng());
        store_be64(b, 0, rng());
        store_be64(b, 8, rng());
        std::string ua = text(base32::encode_ulid(a)), ub = text(base32::encode_ulid(b));
        CHECK(base32::decode_ulid(ua) == a);
        CHECK_EQ(ua < ub, a < b);
        std::string lower = ua;
        for (char &c : lower)
            c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        CHECK_EQ(text(base32::encode_typeid("", a)), lower);
        CHECK(base32::decode_typeid(lower).uuid == a);
    }
}
