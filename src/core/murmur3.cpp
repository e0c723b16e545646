#include "murmur3.hpp"

namespace crid::core {

namespace {

constexpr uint32_t c1 = 0xcc9e2d51;
constexpr uint32_t c2 = 0x1b873593;

constexpr uint32_t rotl32(uint32_t x, int r) noexcept { return (x << r) | (x >> (32 - r)); }

// The mixing of one 32-bit block (or of the zero-padded tail) before it joins h.
constexpr uint32_t mix_block(uint32_t k) noexcept { return rotl32(k * c1, 15) * c2; }

// The final avalanche.
constexpr uint32_t fmix32(uint32_t h) noexcept {
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}

} // namespace

uint32_t murmur3_x86_32(const void *data, size_t len, uint32_t seed) noexcept {
    const auto *bytes = static_cast<const unsigned char *>(data);
    const size_t blocks = len / 4;
    uint32_t h = seed;
    for (size_t i = 0; i < blocks; ++i) {
        const unsigned char *b = bytes + 4 * i;
        uint32_t k = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
        h ^= mix_block(k);
        h = rotl32(h, 13) * 5 + 0xe6546b64;
    }
    // The 1 to 3 bytes after the last whole block, little-endian.
    const unsigned char *tail = bytes + 4 * blocks;
    uint32_t k = 0;
    switch (len & 3) {
    case 3:
        k ^= uint32_t(tail[2]) << 16;
        [[fallthrough]];
    case 2:
        k ^= uint32_t(tail[1]) << 8;
        [[fallthrough]];
    case 1:
        k ^= tail[0];
        h ^= mix_block(k);
    }
    // The reference mixes in the length as a 32-bit value.
    return fmix32(h ^ uint32_t(len));
}

} // namespace crid::core
