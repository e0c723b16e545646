#include "id_text.hpp"

#include "text.hpp"

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

namespace {

bool utf8_mode = true;

// Code points that print as nothing or reorder what follows them: shown by
// number, so a message says what the input really holds.
bool invisible(uint32_t cp) noexcept {
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0xAD || cp == 0x61C || cp == 0x180E || (cp >= 0x200B && cp <= 0x200F) ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF ||
           (cp >= 0xFFF9 && cp <= 0xFFFB);
}

} // namespace

void set_utf8(bool utf8) noexcept { utf8_mode = utf8; }
bool utf8() noexcept { return utf8_mode; }

size_t char_size(std::string_view s, size_t i) noexcept { return utf8_mode ? text::utf8_char_size(s, i) : 1; }

size_t char_count(std::string_view s) noexcept {
    size_t n = 0;
    for (size_t i = 0; i < s.size(); i += char_size(s, i))
        ++n;
    return n;
}

std::string shown(std::string_view input) {
    constexpr size_t limit = 40;
    std::string out = "\"";
    size_t i = 0, chars = 0;
    for (; i < input.size() && chars < limit; ++chars) {
        size_t n = char_size(input, i);
        char hex[16];
        if (n > 1) {
            uint32_t cp = text::utf8_code_point(input, i, n);
            if (invisible(cp)) {
                std::snprintf(hex, sizeof hex, "\\u%04X", unsigned(cp));
                out += hex;
            } else {
                out.append(input.substr(i, n));
            }
        } else {
            unsigned char c = static_cast<unsigned char>(input[i]);
            if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
                out.push_back(char(c));
            } else {
                std::snprintf(hex, sizeof hex, "\\x%02X", unsigned(c));
                out += hex;
            }
        }
        i += n;
    }
    out += i < input.size() ? "\"..." : "\"";
    return out;
}

} // namespace crid::core::id_text
