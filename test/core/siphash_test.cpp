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
