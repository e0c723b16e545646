// What the text codecs (base62, ULID, TypeID) share: 128-bit arithmetic
// through Boost.Multiprecision, a fixed-capacity text buffer so encoding
// allocates nothing, and the quoting of rejected input in error messages.
//
// Every decoder of the codecs is a total function of its input bytes: it
// returns a value or throws crid::core::Error (kind invalid_text, SQLSTATE
// 22P02, or invalid_parameter for a bad prefix argument) and nothing else,
// whatever the bytes, so fuzz targets can call them directly.
#pragma once
#include "pure_cpp.hpp"
#include "uuid.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace crid::core::id_text {

// Unchecked fixed-width unsigned 128-bit integer: arithmetic is modulo 2^128,
// allocates nothing and throws nothing (the codecs never divide by zero).
using uint128 = boost::multiprecision::uint128_t;

// A UUID's 16 bytes as one big-endian number, and back.
uint128 to_uint128(const Uuid &u) noexcept;
Uuid from_uint128(const uint128 &v) noexcept;

// Encoded text of bounded size, returned by value: no heap allocation on the
// encoding path. 96 bytes hold the longest form (a 63-character TypeID prefix,
// the separator and 26 characters).
struct Text {
    char data[96];
    size_t size = 0;
    std::string_view view() const noexcept { return {data, size}; }
    void append(std::string_view s) noexcept;
    void push_back(char c) noexcept { data[size++] = c; }
};

// The value of each byte in an alphabet (its position), -1 for bytes outside it.
constexpr std::array<int8_t, 256> decode_table(std::string_view alphabet) {
    std::array<int8_t, 256> t{};
    t.fill(-1);
    for (size_t i = 0; i < alphabet.size(); ++i)
        t[static_cast<unsigned char>(alphabet[i])] = int8_t(i);
    return t;
}

// Messages count and show input as the user typed it: by UTF-8 characters
// when the text is UTF-8 (the database's encoding is), else byte by byte
// (another server encoding, whose characters the core does not know). Set by
// the caller before decoding; UTF-8 by default.
void set_utf8(bool utf8) noexcept;
bool utf8() noexcept;

// The size in bytes of the character at s[i] (1 outside UTF-8 mode, and for a
// byte that starts no well-formed UTF-8 sequence).
size_t char_size(std::string_view s, size_t i) noexcept;

// How many characters s holds.
size_t char_count(std::string_view s) noexcept;

// The character at byte offset i, and its 1-based position (as SQL counts).
inline std::string_view char_at(std::string_view s, size_t i) noexcept { return s.substr(i, char_size(s, i)); }
inline size_t position_of(std::string_view s, size_t i) noexcept { return char_count(s.substr(0, i)) + 1; }

// Input echoed in a message: quoted, at most 40 characters. Characters that
// print as themselves stay as typed; ASCII controls, '"' and '\\' and every
// byte outside a well-formed UTF-8 character (or outside ASCII, when not in
// UTF-8 mode) show as \xNN, invisible code points (C1 controls, bidirectional
// and zero-width marks) as \uNNNN.
std::string shown(std::string_view input);

} // namespace crid::core::id_text
