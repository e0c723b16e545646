// SipHash-2-4 against the reference vectors of Aumasson and Bernstein's paper
// (key 00 01 .. 0f, message 00 01 .. len-1).
#include "check.hpp"

#include "../../src/core/siphash.hpp"

using namespace crid::core;

TEST(siphash24_reference_vectors) {
    const SipKey key{UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908)};
    uint8_t msg[64];
    for (int i = 0; i < 64; ++i)
        msg[i] = uint8_t(i);
    CHECK_EQ(siphash24(key, msg, 0), UINT64_C(0x726fdb47dd0e0e31));
    CHECK_EQ(siphash24(key, msg, 1), UINT64_C(0x74f839c593dc67fd));
    CHECK_EQ(siphash24(key, msg, 15), UINT64_C(0xa129ca6149be45e5)); // the paper's worked example
    // The prefixed form is the same hash of the concatenation.
    CHECK_EQ(siphash24(key, msg[0], msg + 1, 14), UINT64_C(0xa129ca6149be45e5));
}

// The word-at-a-time path and the byte stream (the prefixed form) agree on
// every length, and the one-word form of the permutation is SipHash of 4 bytes.
TEST(siphash24_paths_agree) {
    const SipKey key{UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908)};
    uint8_t msg[64];
    for (int i = 0; i < 64; ++i)
        msg[i] = uint8_t(i * 37 + 11);
    for (size_t len = 1; len < 64; ++len)
        CHECK_EQ(siphash24(key, msg, len), siphash24(key, msg[0], msg + 1, len - 1));
    for (uint32_t v : {0u, 1u, 0x80000000u, 0xdeadbeefu, 0xffffffffu}) {
        uint8_t le[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
        CHECK_EQ(siphash24_u32(SipState(key), v), siphash24(key, le, 4));
    }
}
