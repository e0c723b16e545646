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
    CHECK_EQ(id_text::shown("\xC3\xA9\"\\"), "\"\\xC3\\xA9\\x22\\x5C\"");
    CHECK_EQ(id_text::shown(std::string(50, 'x')), "\"" + std::string(40, 'x') + "\"...");
}
