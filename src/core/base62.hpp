// Fixed-width base62 text for ids: branded 64-bit ids (id_encode/id_decode,
// "ord_0AbCdEfGhIj") and 128-bit UUIDs (uuid_to_base62/base62_to_uuid).
//
// Alphabet, digit values 0 to 61 in this order:
//
//   0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz
//
// which is ASCII order, and every encoding has a fixed width (11 digits for
// 0 .. 2^63 - 1, 22 for 128 bits, leading zeros kept), so comparing the texts
// byte by byte (COLLATE "C") orders them exactly as the numbers.
//
// Brand prefixes: empty, or 1 to 63 characters of [a-z0-9_] that start with a
// letter and do not end with '_'. The text is prefix + '_' + digits, or the
// digits alone for the empty prefix.
#pragma once
#include "pure_cpp.hpp"
#include "id_text.hpp"
#include "uuid.hpp"

#include <cstdint>
#include <string_view>

namespace crid::core::base62 {

inline constexpr std::string_view alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
inline constexpr size_t id_digits = 11;   // 62^11 > 2^63
inline constexpr size_t uuid_digits = 22; // 62^22 > 2^128

// Throws invalid_parameter naming the rule a brand prefix breaks.
void check_prefix(std::string_view prefix);

// prefix_ + 11 digits. Throws numeric_out_of_range for a negative id and
// invalid_parameter for a bad prefix.
id_text::Text encode_id(int64_t id, std::string_view prefix);

// The id of a branded text. Throws invalid_parameter for a bad prefix
// argument and invalid_text when the text does not start with prefix_, has
// the wrong length, a character outside the alphabet, or exceeds 2^63 - 1.
int64_t decode_id(std::string_view text, std::string_view prefix);

// 22 digits of the UUID as a 128-bit big-endian number.
id_text::Text encode_uuid(const Uuid &u) noexcept;

// Throws invalid_text for the wrong length, a character outside the
// alphabet, or a value of 2^128 or more.
Uuid decode_uuid(std::string_view text);

} // namespace crid::core::base62
