// Small text helpers every parser of the core shares (layout specs, node
// lists, text codecs), so each is written once.
#pragma once
#include "pure_cpp.hpp"

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

} // namespace crid::core::text
