#include "base32.hpp"

#include "error.hpp"

#include <array>
#include <string>

namespace crid::core::base32 {

using id_text::shown;
using id_text::Text;
using id_text::uint128;

namespace {

constexpr std::string_view upper_symbols = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
constexpr std::string_view lower_symbols = "0123456789abcdefghjkmnpqrstvwxyz";
constexpr size_t max_prefix = 63;

// ULID: either case, and as Crockford's base32 decodes, I/L -> 1, O -> 0.
constexpr std::array<int8_t, 256> ulid_values = [] {
    std::array<int8_t, 256> t = id_text::decode_table(upper_symbols);
    for (size_t i = 0; i < lower_symbols.size(); ++i)
        t[static_cast<unsigned char>(lower_symbols[i])] = int8_t(i);
    for (char c : {'I', 'i', 'L', 'l'})
        t[static_cast<unsigned char>(c)] = 1;
    for (char c : {'O', 'o'})
        t[static_cast<unsigned char>(c)] = 0;
    return t;
}();

// TypeID: lowercase symbols only.
constexpr std::array<int8_t, 256> typeid_values = id_text::decode_table(lower_symbols);

// 26 symbols of v: two zero bits, then the 128 bits, 5 at a time.
void put_symbols(char *out, const Uuid &u, std::string_view table) noexcept {
    uint128 v = id_text::to_uint128(u);
    for (size_t i = symbols; i-- > 0;) {
        out[i] = table[static_cast<unsigned>(v & 31)];
        v >>= 5;
    }
}

// The UUID of 26 symbols; throws naming the first bad character or an
// overflowing first symbol. `what` names the form, `offset` is where the
// symbols start in `input` (for 1-based positions in messages).
Uuid get_symbols(const std::string &what, std::string_view input, std::string_view text, size_t offset,
                 const std::array<int8_t, 256> &values, const char *allowed, const char *largest) {
    auto invalid = [&](const std::string &why) {
        throw Error(ErrorKind::invalid_text, "invalid " + what + " " + shown(input) + ": " + why);
    };
    // Counted as typed; a character outside the alphabet is named below.
    if (id_text::char_count(text) != symbols)
        invalid("it has " + std::to_string(id_text::char_count(text)) + " characters" +
                (offset ? " after the prefix" : std::string()) + ", expected " + std::to_string(symbols));
    uint128 v = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        int d = values[static_cast<unsigned char>(text[i])];
        if (d < 0)
            invalid("character " + shown(id_text::char_at(text, i)) + " at position " +
                    std::to_string(id_text::position_of(input, offset + i)) + " is not " + allowed);
        v = (v << 5) | unsigned(d);
    }
    if (values[static_cast<unsigned char>(text[0])] > 7)
        invalid("the first symbol " + shown(text.substr(0, 1)) +
                " is above 7: 26 symbols may hold only 128 bits, the largest being " + largest);
    return id_text::from_uint128(v);
}

bool is_lower(char c) noexcept { return c >= 'a' && c <= 'z'; }

// Why `p` is no TypeID prefix, or "" when it is one.
std::string prefix_problem(std::string_view p) {
    if (p.empty())
        return "";
    if (id_text::char_count(p) > max_prefix)
        return "it has " + std::to_string(id_text::char_count(p)) + " characters, at most 63 are allowed";
    for (size_t i = 0; i < p.size(); ++i)
        if (!is_lower(p[i]) && p[i] != '_')
            return "character " + shown(id_text::char_at(p, i)) + " is not a-z or _";
    if (p.front() == '_' || p.back() == '_')
        return "it must start and end with a letter a-z";
    return "";
}

} // namespace

Text encode_ulid(const Uuid &u) noexcept {
    Text out;
    put_symbols(out.data, u, upper_symbols);
    out.size = symbols;
    return out;
}

Uuid decode_ulid(std::string_view text) {
    return get_symbols("ULID", text, text, 0, ulid_values,
                       "a Crockford base32 symbol (0-9 and A-Z without U; I and L read as 1, O as 0)",
                       "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
}

void check_typeid_prefix(std::string_view prefix) {
    std::string why = prefix_problem(prefix);
    if (!why.empty())
        throw Error(ErrorKind::invalid_parameter, "invalid TypeID prefix " + shown(prefix) + ": " + why,
                    "A TypeID prefix is empty or up to 63 characters of a-z and _, starting and ending with a "
                    "letter, such as \"user\" or \"api_key\".");
}

Text encode_typeid(std::string_view prefix, const Uuid &u) {
    check_typeid_prefix(prefix);
    Text out;
    if (!prefix.empty()) {
        out.append(prefix);
        out.push_back('_');
    }
    put_symbols(out.data + out.size, u, lower_symbols);
    out.size += symbols;
    return out;
}

TypeId decode_typeid(std::string_view text) {
    size_t sep = text.rfind('_');
    std::string_view prefix = sep == std::string_view::npos ? std::string_view() : text.substr(0, sep);
    size_t offset = sep == std::string_view::npos ? 0 : sep + 1;
    auto invalid = [&](const std::string &why) {
        throw Error(ErrorKind::invalid_text, "invalid TypeID " + shown(text) + ": " + why);
    };
    if (sep == 0)
        invalid("it starts with the separator _, which only follows a non-empty prefix");
    std::string why = prefix_problem(prefix);
    if (!why.empty())
        invalid("prefix " + shown(prefix) + ": " + why);
    Uuid u = get_symbols("TypeID", text, text.substr(offset), offset, typeid_values,
                         "a lowercase TypeID symbol (0-9 and a-z without i, l, o, u)", "7zzzzzzzzzzzzzzzzzzzzzzzzz");
    return TypeId{prefix, u};
}

Uuid decode_typeid_as(std::string_view text, std::string_view expected) {
    check_typeid_prefix(expected);
    TypeId t = decode_typeid(text);
    if (t.prefix != expected)
        throw Error(ErrorKind::invalid_text, "invalid TypeID " + shown(text) + ": its prefix is " + shown(t.prefix) +
                                                 ", expected " + shown(expected));
    return t.uuid;
}

} // namespace crid::core::base32
