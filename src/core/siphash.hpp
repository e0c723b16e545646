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

// SipHash-2-4 of `len` bytes.
uint64_t siphash24(const SipKey &key, const void *data, size_t len) noexcept;

// SipHash-2-4 of one prefix byte followed by `len` bytes (domain separation
// without copying the input).
uint64_t siphash24(const SipKey &key, uint8_t prefix, const void *data, size_t len) noexcept;

} // namespace crid::core
