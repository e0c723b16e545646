// The codecs' decoders are total functions of their input bytes: whatever
// they are given, they return or throw crid::core::Error, nothing else (a
// smoke test of what the fuzz targets will do at length). And rejected input
// is echoed in messages safely.
#include "check.hpp"

#include "../../src/core/base32.hpp"
#include "../../src/core/base62.hpp"

#include <exception>
#include <random>
#include <string>

using namespace crid::core;

namespace {

// Runs a decoder on `input`; false when it threw anything but core::Error.
template <class F>
bool total(F decode, const std::string &input) {
    try {
        decode(input);
    } catch (const Error &) {
    } catch (...) {
        return false;
    }
    return true;
}

} // namespace

TEST(decoders_only_ever_throw_core_errors) {
    std::mt19937_64 rng(13);
    // Bytes near the alphabets (where the interesting paths are) and anywhere.
    const std::string near = "0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyzILOUilou_-ord ";
    int failures = 0;
    for (int i = 0; i < 200000; ++i) {
        std::string s(rng() % 40, '\0');
        for (char &c : s)
            c = rng() % 4 ? near[rng() % near.size()] : char(rng() % 256);
        if (rng() % 3 == 0)
            s = (rng() % 2 ? "ord_" : "user_") + s.substr(0, rng() % 27);
        failures += !total([](const std::string &t) { return base62::decode_id(t, "ord"); }, s);
        failures += !total([](const std::string &t) { return base62::decode_id(t, ""); }, s);
        failures += !total([](const std::string &t) { return base62::decode_uuid(t); }, s);
        failures += !total([](const std::string &t) { return base32::decode_ulid(t); }, s);
        failures += !total([](const std::string &t) { return base32::decode_typeid(t); }, s);
        failures += !total([](const std::string &t) { return base32::decode_typeid_as(t, "user"); }, s);
        failures += !total([&](const std::string &t) { return base62::decode_id("ord_00000000001", t); }, s);
    }
    CHECK_EQ(failures, 0);
}

TEST(rejected_input_is_quoted_clipped_and_escaped) {
    CHECK_EQ(id_text::shown("abc"), "\"abc\"");
    CHECK_EQ(id_text::shown(std::string("a\0b", 3)), "\"a\\x00b\"");
    CHECK_EQ(id_text::shown("\xC3\xA9\"\\"), "\"\xC3\xA9\\x22\\x5C\"");
    CHECK_EQ(id_text::shown(std::string(50, 'x')), "\"" + std::string(40, 'x') + "\"...");
}

// UTF-8 text is counted and shown by characters, as typed: "é" is one
// character shown as itself, not two bytes shown as \xC3\xA9.
TEST(utf8_characters_are_counted_and_shown_as_typed) {
    const std::string e_acute = "\xC3\xA9", fullwidth_3 = "\xEF\xBC\x93", emoji = "\xF0\x9F\x98\x80";
    CHECK_EQ(id_text::char_count(e_acute), size_t(1));
    CHECK_EQ(id_text::char_count("ord_00000000" + fullwidth_3 + "D7"), size_t(15));
    CHECK_EQ(id_text::char_count("a" + emoji + "b"), size_t(3));
    CHECK_EQ(id_text::shown(e_acute), "\"" + e_acute + "\"");
    CHECK_EQ(id_text::shown(fullwidth_3 + emoji), "\"" + fullwidth_3 + emoji + "\"");
    CHECK_EQ(id_text::position_of("ab" + e_acute + "cd", 4), size_t(4)); // "c" after a, b, é
    const std::string a_e_acute = "a" + e_acute;
    CHECK_EQ(id_text::char_at(a_e_acute, 1), e_acute);
    // The limit counts characters: 40 of them, 80 bytes here.
    std::string many;
    for (int i = 0; i < 50; ++i)
        many += e_acute;
    CHECK_EQ(id_text::shown(many), "\"" + many.substr(0, 80) + "\"...");
    CHECK_EQ(id_text::shown(many.substr(0, 80)), "\"" + many.substr(0, 80) + "\"");
}

// Bytes that are no well-formed UTF-8 stay one character each, shown as
// \xNN; so do ill-formed sequences (truncated, overlong, surrogates, beyond
// U+10FFFF). Invisible code points show by number.
TEST(ill_formed_utf8_and_invisible_code_points_are_escaped) {
    CHECK_EQ(id_text::shown("\xC3("), "\"\\xC3(\"");
    CHECK_EQ(id_text::char_count("\xC3("), size_t(2));
    CHECK_EQ(id_text::shown("\xC0\xAF"), "\"\\xC0\\xAF\"");                   // overlong "/"
    CHECK_EQ(id_text::shown("\xE0\x80\xAF"), "\"\\xE0\\x80\\xAF\"");          // overlong "/"
    CHECK_EQ(id_text::shown("\xED\xA0\x80"), "\"\\xED\\xA0\\x80\"");          // a surrogate
    CHECK_EQ(id_text::shown("\xF4\x90\x80\x80"), "\"\\xF4\\x90\\x80\\x80\""); // beyond U+10FFFF
    CHECK_EQ(id_text::shown("\xE2\x82"), "\"\\xE2\\x82\"");                   // truncated
    CHECK_EQ(id_text::shown("\xEF\xBF\xBF"), "\"\xEF\xBF\xBF\"");             // U+FFFF is well formed
    CHECK_EQ(id_text::shown("a\xE2\x80\xAE"
                            "b"),
             "\"a\\u202Eb\"");                               // right-to-left override
    CHECK_EQ(id_text::shown("\xC2\x85"), "\"\\u0085\"");     // a C1 control
    CHECK_EQ(id_text::shown("\xEF\xBB\xBF"), "\"\\uFEFF\""); // byte order mark
}

// Outside UTF-8 mode (a database in another encoding) every byte is one
// character and only printable ASCII shows as itself.
TEST(text_of_another_encoding_goes_byte_by_byte) {
    id_text::set_utf8(false);
    std::string shown = id_text::shown("\xC3\xA9"), count = std::to_string(id_text::char_count("\xC3\xA9"));
    std::string m = crid::test::message_of([] {
        base62::decode_id("ord_00000000\xEF\xBC\x93"
                          "D7",
                          "ord");
    });
    id_text::set_utf8(true);
    CHECK_EQ(shown, "\"\\xC3\\xA9\"");
    CHECK_EQ(count, "2");
    CHECK(crid::test::contains(m, "it has 13 characters after \"ord_\", expected 11"));
}
