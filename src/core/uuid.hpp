// A UUID as its 16 big-endian bytes, with the RFC 9562 fields every family reads.
#pragma once
#include "pure_cpp.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

namespace crid::core {

struct Uuid {
    std::array<uint8_t, 16> bytes{};

    // The version nibble (bits 48-51).
    int version() const noexcept { return bytes[6] >> 4; }
    // True for the RFC 9562 variant, bits 64-65 = 10.
    bool rfc_variant() const noexcept { return (bytes[8] & 0xC0) == 0x80; }
    // The 48 most significant bits: the Unix milliseconds of a version 7 UUID.
    uint64_t high48() const noexcept { return load_be64(0) >> 16; }
    // The 64 least significant bits (the last 8 bytes), big-endian.
    uint64_t low64() const noexcept { return load_be64(8); }
    // Bytes [first, first + 8) as a big-endian integer, in one load (the
    // high-water mark reads high48() of every server-ordered UUIDv7).
    uint64_t load_be64(int first) const noexcept {
        uint64_t v;
        std::memcpy(&v, bytes.data() + first, sizeof v);
        if constexpr (std::endian::native == std::endian::little)
            v = __builtin_bswap64(v);
        return v;
    }
    // Canonical lowercase 8-4-4-4-12 text, for error messages.
    std::string to_string() const;

    friend bool operator==(const Uuid &, const Uuid &) = default;
    friend auto operator<=>(const Uuid &, const Uuid &) = default;
};

// Writes `value` into bytes [first, first + 8) big-endian, in one store.
inline void store_be64(Uuid &u, int first, uint64_t value) noexcept {
    if constexpr (std::endian::native == std::endian::little)
        value = __builtin_bswap64(value);
    std::memcpy(u.bytes.data() + first, &value, sizeof value);
}

// Reads bytes [first, first + count) as a big-endian integer.
uint64_t get_be(const Uuid &u, int first, int count) noexcept;

} // namespace crid::core
