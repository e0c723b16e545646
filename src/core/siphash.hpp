// SipHash-2-4 (Aumasson & Bernstein): the keyed hash behind deterministic ids.
// Chosen because it is fast on short keys, well studied, and has published
// test vectors that the unit tests check.
#pragma once
#include "pure_cpp.hpp"

#include <cstddef>
#include <cstdint>

namespace crid::core {

struct SipKey {
    uint64_t k0, k1; // little-endian halves of the 16-byte key
};

// SipHash's state, keyed. Inline, and copyable: the 63-bit permutation keeps
// one per round, keyed once, and hashes every row from a copy.
struct SipState {
    uint64_t v0, v1, v2, v3;

    SipState() noexcept : v0(0), v1(0), v2(0), v3(0) {}
    explicit SipState(const SipKey &k) noexcept
        : v0(k.k0 ^ UINT64_C(0x736f6d6570736575)), v1(k.k1 ^ UINT64_C(0x646f72616e646f6d)),
          v2(k.k0 ^ UINT64_C(0x6c7967656e657261)), v3(k.k1 ^ UINT64_C(0x7465646279746573)) {}

    static constexpr uint64_t rotl(uint64_t x, int b) noexcept { return (x << b) | (x >> (64 - b)); }

    // One SipRound, laid out as in the paper's figure.
    // clang-format off
    void round() noexcept {
        v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
        v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
        v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
        v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
    }
    // clang-format on

    void compress(uint64_t m) noexcept {
        v3 ^= m;
        round();
        round();
        v0 ^= m;
    }

    uint64_t finish(uint64_t last) noexcept {
        compress(last);
        v2 ^= 0xff;
        round();
        round();
        round();
        round();
        return v0 ^ v1 ^ v2 ^ v3;
    }
};

// SipHash-2-4 of the 4 bytes of `value`, little-endian, under the key
// `keyed` was made with (the round function of the 63-bit permutation: one
// compression, no byte stream).
inline uint64_t siphash24_u32(const SipState &keyed, uint32_t value) noexcept {
    SipState s = keyed;
    return s.finish(uint64_t(value) | (uint64_t(4) << 56));
}

// SipHash-2-4 of `len` bytes.
uint64_t siphash24(const SipKey &key, const void *data, size_t len) noexcept;

// SipHash-2-4 of one prefix byte followed by `len` bytes (domain separation
// without copying the input).
uint64_t siphash24(const SipKey &key, uint8_t prefix, const void *data, size_t len) noexcept;

} // namespace crid::core
