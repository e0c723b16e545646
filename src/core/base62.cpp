#include "base62.hpp"

#include "error.hpp"

#include <array>
#include <string>

namespace crid::core::base62 {

using id_text::shown;
using id_text::Text;
using id_text::uint128;

namespace {

constexpr uint64_t base = 62;
// 62^10, the largest power of 62 below 2^64: 128-bit values are converted in
// chunks of ten digits, two 128-bit divisions instead of twenty-two.
constexpr uint64_t chunk = UINT64_C(839299365868340224);
constexpr size_t chunk_digits = 10;

constexpr std::array<int8_t, 256> digit_values = id_text::decode_table(alphabet);

[[noreturn]] void invalid(const std::string &what, std::string_view input, const std::string &why) {
    throw Error(ErrorKind::invalid_text, "invalid " + what + " " + shown(input) + ": " + why);
}

// Writes `count` digits of v (v < 62^count) to out, most significant first.
void put_digits(char *out, size_t count, uint64_t v) noexcept {
    for (size_t i = count; i-- > 0;) {
        out[i] = alphabet[v % base];
        v /= base;
    }
}

// The value of `count` digits at text[first..]; every byte must be a digit
// (the caller checked), and count <= 10 keeps the value below 2^64.
uint64_t get_digits(std::string_view text, size_t first, size_t count) noexcept {
    uint64_t v = 0;
    for (size_t i = first; i < first + count; ++i)
        v = v * base + uint64_t(digit_values[static_cast<unsigned char>(text[i])]);
    return v;
}

// Throws unless every byte of `digits` (at byte `offset` of `input`) is in
// the alphabet, naming the first character that is not and its position.
void check_alphabet(const std::string &what, std::string_view input, std::string_view digits, size_t offset) {
    for (size_t i = 0; i < digits.size(); ++i)
        if (digit_values[static_cast<unsigned char>(digits[i])] < 0)
            invalid(what, input,
                    "character " + shown(id_text::char_at(digits, i)) + " at position " +
                        std::to_string(id_text::position_of(input, offset + i)) +
                        " is not a base62 digit (0-9, A-Z, a-z)");
}

// "N characters", counted as typed.
std::string characters(std::string_view s) { return std::to_string(id_text::char_count(s)) + " characters"; }

bool is_lower(char c) noexcept { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

} // namespace

void check_prefix(std::string_view p) {
    auto bad = [&](const std::string &why) {
        throw Error(ErrorKind::invalid_parameter, "invalid id prefix " + shown(p) + ": " + why,
                    "A prefix is empty or 1 to 63 characters of a-z, 0-9 and _, starting with a letter and not "
                    "ending with _, such as \"ord\" or \"sk_live\".");
    };
    if (p.empty())
        return;
    if (id_text::char_count(p) > 63)
        bad("it has " + characters(p) + ", at most 63 are allowed");
    for (size_t i = 0; i < p.size(); ++i)
        if (!is_lower(p[i]) && !is_digit(p[i]) && p[i] != '_')
            bad("character " + shown(id_text::char_at(p, i)) + " is not a-z, 0-9 or _");
    if (!is_lower(p.front()))
        bad("it must start with a letter a-z");
    if (p.back() == '_')
        bad("it must not end with _ (the separator follows it)");
}

Text encode_id(int64_t id, std::string_view prefix) {
    check_prefix(prefix);
    if (id < 0)
        throw Error(ErrorKind::numeric_out_of_range,
                    "id " + std::to_string(id) + " is negative: branded ids encode 0 to 9223372036854775807");
    Text out;
    if (!prefix.empty()) {
        out.append(prefix);
        out.push_back('_');
    }
    // 11 digits: the top one, then ten that fit one 64-bit chunk.
    put_digits(out.data + out.size, 1, uint64_t(id) / chunk);
    put_digits(out.data + out.size + 1, chunk_digits, uint64_t(id) % chunk);
    out.size += id_digits;
    return out;
}

int64_t decode_id(std::string_view text, std::string_view prefix) {
    check_prefix(prefix);
    std::string what = prefix.empty() ? "base62 id" : std::string(prefix) + " id";
    size_t head = prefix.empty() ? 0 : prefix.size() + 1;
    if (!prefix.empty() &&
        (text.size() < head || text.substr(0, prefix.size()) != prefix || text[prefix.size()] != '_'))
        invalid(what, text, "it does not start with \"" + std::string(prefix) + "_\"");
    std::string_view digits = text.substr(head);
    // Counted as typed; a character outside the alphabet is named below.
    if (id_text::char_count(digits) != id_digits)
        invalid(what, text,
                "it has " + characters(digits) + (prefix.empty() ? "" : " after \"" + std::string(prefix) + "_\"") +
                    ", expected " + std::to_string(id_digits));
    check_alphabet(what, text, digits, head);
    uint64_t top = get_digits(digits, 0, 1), rest = get_digits(digits, 1, chunk_digits);
    uint64_t value;
    if (__builtin_mul_overflow(top, chunk, &value) || __builtin_add_overflow(value, rest, &value) ||
        value > uint64_t(INT64_MAX))
        invalid(what, text, "it is larger than the largest bigint, 9223372036854775807");
    return int64_t(value);
}

Text encode_uuid(const Uuid &u) noexcept {
    uint128 v = id_text::to_uint128(u);
    uint64_t low = static_cast<uint64_t>(v % chunk);
    v /= chunk;
    uint64_t mid = static_cast<uint64_t>(v % chunk);
    uint64_t high = static_cast<uint64_t>(v / chunk); // < 62^2, as 2^128 < 62^22
    Text out;
    put_digits(out.data, 2, high);
    put_digits(out.data + 2, chunk_digits, mid);
    put_digits(out.data + 2 + chunk_digits, chunk_digits, low);
    out.size = uuid_digits;
    return out;
}

Uuid decode_uuid(std::string_view text) {
    const std::string what = "base62 uuid";
    if (id_text::char_count(text) != uuid_digits)
        invalid(what, text, "it has " + characters(text) + ", expected " + std::to_string(uuid_digits));
    check_alphabet(what, text, text, 0);
    uint128 v = get_digits(text, 0, 2);
    v = v * chunk + get_digits(text, 2, chunk_digits); // < 62^12: no overflow yet
    uint64_t low = get_digits(text, 2 + chunk_digits, chunk_digits);
    static const uint128 max = ~uint128(0);
    if (v > (max - low) / chunk)
        invalid(what, text, "it is larger than the largest uuid, ffffffff-ffff-ffff-ffff-ffffffffffff");
    return id_text::from_uint128(v * chunk + low);
}

} // namespace crid::core::base62
