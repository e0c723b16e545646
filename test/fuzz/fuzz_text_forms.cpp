// The text forms of ids (base62, ULID, TypeID, Sqids) over arbitrary bytes: every
// decoder returns a value or throws a core error, and what decodes encodes
// back to text that decodes to the same value (ULID text may differ in case
// and in Crockford's I/L/O readings, so its round trip is checked on the
// value). The first bytes also split the input into a prefix and a text.
#include "fuzz.hpp"

#include "../../src/core/base32.hpp"
#include "../../src/core/base62.hpp"
#include "../../src/core/sqids.hpp"

#include <string_view>
#include <vector>

namespace b32 = crid::core::base32;
namespace b62 = crid::core::base62;
using crid::fuzz::accepted;
using crid::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string_view all = crid::fuzz::text_of(data, size);
    // A prefix of the first (byte 0 mod 16) bytes after byte 0, the rest as text.
    size_t cut = size == 0 ? 0 : std::min<size_t>(size - 1, data[0] % 16);
    std::string_view prefix = size == 0 ? all : all.substr(1, cut), text = size == 0 ? all : all.substr(1 + cut);

    for (std::string_view input : {all, text}) {
        crid::core::Uuid u;
        if (accepted([&] { u = b62::decode_uuid(input); }))
            require(b62::decode_uuid(b62::encode_uuid(u).view()) == u, "base62 uuid round trip");
        if (accepted([&] { u = b32::decode_ulid(input); }))
            require(b32::decode_ulid(b32::encode_ulid(u).view()) == u, "ULID round trip");
        b32::TypeId t;
        if (accepted([&] { t = b32::decode_typeid(input); })) {
            auto again = b32::encode_typeid(t.prefix, t.uuid);
            require(again.view() == input, "TypeID text is canonical");
        }
        (void)accepted([&] { (void)b32::decode_typeid_as(input, prefix); });
        int64_t id = 0;
        if (accepted([&] { id = b62::decode_id(input, prefix); }))
            require(b62::decode_id(b62::encode_id(id, prefix).view(), prefix) == id, "branded id round trip");
        // Sqids, as a face's text is read: only encode's own spelling of
        // two numbers decodes, and it encodes back to itself.
        static const crid::core::sqids::Codec sqids(crid::core::sqids::default_alphabet, 0, {});
        std::vector<uint64_t> numbers;
        if (accepted([&] { numbers = sqids.decode_exact(input, 2); }))
            require(sqids.encode(numbers) == input, "Sqids text is canonical");
        // Any prefix as an alphabet: a codec or a core error.
        (void)accepted([&] { (void)crid::core::sqids::Codec(prefix, 0, {}).encode(numbers); });
    }
    // Encoding any id under any prefix either works or is a core error.
    (void)accepted([&] { (void)b62::encode_id(int64_t(crid::fuzz::word_at(data, size, 0)), prefix); });
    (void)accepted([&] { (void)b32::encode_typeid(prefix, crid::core::Uuid{}); });
    return 0;
}
