#include "id_text.hpp"

#include <bit>
#include <cstdio>
#include <cstring>

namespace crid::core::id_text {

namespace {

const uint128 low64_mask = uint128(UINT64_MAX);

// Bytes [first, first + 8) big-endian, in one load.
uint64_t load_be64(const Uuid &u, int first) noexcept {
    uint64_t v;
    std::memcpy(&v, u.bytes.data() + first, sizeof v);
    if constexpr (std::endian::native == std::endian::little)
        v = __builtin_bswap64(v);
    return v;
}

} // namespace

uint128 to_uint128(const Uuid &u) noexcept {
    uint128 v = load_be64(u, 0);
    v <<= 64;
    v |= load_be64(u, 8);
    return v;
}

Uuid from_uint128(const uint128 &v) noexcept {
    Uuid u;
    store_be64(u, 0, static_cast<uint64_t>(v >> 64));
    store_be64(u, 8, static_cast<uint64_t>(v & low64_mask));
    return u;
}

void Text::append(std::string_view s) noexcept {
    std::memcpy(data + size, s.data(), s.size());
    size += s.size();
}

std::string shown(std::string_view input) {
    constexpr size_t limit = 40;
    std::string out = "\"";
    for (size_t i = 0; i < input.size() && i < limit; ++i) {
        unsigned char c = static_cast<unsigned char>(input[i]);
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            out.push_back(char(c));
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", unsigned(c));
            out += hex;
        }
    }
    out += input.size() > limit ? "\"..." : "\"";
    return out;
}

} // namespace crid::core::id_text
