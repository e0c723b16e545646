// Small text helpers every parser of the core shares (layout specs, node
// lists, text codecs), so each is written once.
#pragma once
#include "pure_cpp.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace crid::core::text {

// True for the ASCII whitespace a setting or spec may carry around its items.
constexpr bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The text without surrounding whitespace.
constexpr std::string_view trim(std::string_view s) noexcept {
    while (!s.empty() && is_space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_space(s.back()))
        s.remove_suffix(1);
    return s;
}

// ASCII lower case (keys, names and words are case-insensitive).
inline std::string lower(std::string_view s) {
    std::string out(s);
    for (char &c : out)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return out;
}

// True for a non-empty run of decimal digits (no sign, no spaces).
constexpr bool all_digits(std::string_view s) noexcept {
    if (s.empty())
        return false;
    for (char c : s)
        if (c < '0' || c > '9')
            return false;
    return true;
}

// The size in bytes of the UTF-8 character that starts at s[i] (i < s.size()):
// 2 to 4 for a well-formed multi-byte sequence (shortest form, no surrogate,
// at most U+10FFFF), else 1, so ASCII and every byte that starts no
// well-formed sequence count as one character each.
constexpr size_t utf8_char_size(std::string_view s, size_t i) noexcept {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char b = byte(i);
    size_t n = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 1;
    if (n == 1 || s.size() - i < n)
        return 1;
    // The second byte's range depends on the first (RFC 3629, section 4).
    unsigned char lo = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80;
    unsigned char hi = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
    if (byte(i + 1) < lo || byte(i + 1) > hi)
        return 1;
    for (size_t k = 2; k < n; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
            return 1;
    return n;
}

// The code point of a well-formed UTF-8 character of `size` bytes at s[i].
constexpr uint32_t utf8_code_point(std::string_view s, size_t i, size_t size) noexcept {
    auto byte = [&](size_t k) { return uint32_t(static_cast<unsigned char>(s[k])); };
    if (size == 1)
        return byte(i);
    uint32_t cp = byte(i) & (0xFFu >> (size + 1));
    for (size_t k = 1; k < size; ++k)
        cp = cp << 6 | (byte(i + k) & 0x3F);
    return cp;
}

} // namespace crid::core::text
