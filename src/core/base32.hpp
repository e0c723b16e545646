// Crockford base32 forms of a UUID: ULID (github.com/ulid/spec) and TypeID
// (github.com/jetify-com/typeid, spec 0.3.0). Both write the 128 bits as 26
// symbols of 5 bits, most significant first, after two zero bits, so the first
// symbol is at most 7 and text order is UUID order.
//
//   symbols 0-31: 0123456789ABCDEFGHJKMNPQRSTVWXYZ (ULID, uppercase)
//                 0123456789abcdefghjkmnpqrstvwxyz (TypeID, lowercase)
//
// ULID input is case-insensitive and, as Crockford's base32 decodes, I and L
// read as 1 and O as 0; U is no symbol and is refused. TypeID input is strict:
// lowercase symbols only, nothing read as something else.
//
// TypeID prefix: empty, or at most 63 characters of [a-z_] that start and end
// with a letter; the text is prefix + '_' + suffix, or the suffix alone.
#pragma once
#include "pure_cpp.hpp"
#include "id_text.hpp"
#include "uuid.hpp"

#include <string_view>

namespace crid::core::base32 {

inline constexpr size_t symbols = 26;

// 26 uppercase symbols.
id_text::Text encode_ulid(const Uuid &u) noexcept;

// Throws invalid_text for the wrong length, a character that is no symbol,
// or a first symbol above 7 (more than 128 bits).
Uuid decode_ulid(std::string_view text);

// Throws invalid_parameter naming the rule a TypeID prefix breaks.
void check_typeid_prefix(std::string_view prefix);

// prefix_ + 26 lowercase symbols. Throws invalid_parameter for a bad prefix.
id_text::Text encode_typeid(std::string_view prefix, const Uuid &u);

struct TypeId {
    std::string_view prefix; // a view into the decoded text
    Uuid uuid;
};

// Splits at the last '_'. Throws invalid_text for a prefix that breaks the
// rules, a separator without a prefix, a suffix of the wrong length, a
// character that is not a lowercase symbol, or a first symbol above 7.
TypeId decode_typeid(std::string_view text);

// decode_typeid, and the prefix must be `expected` (invalid_text otherwise;
// invalid_parameter when `expected` itself is no valid prefix).
Uuid decode_typeid_as(std::string_view text, std::string_view expected);

} // namespace crid::core::base32
