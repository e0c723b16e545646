// UUIDv47 faces against the reference implementation (stateless-me/uuidv47):
// vectors/uuidv47/uuidv47_vectors.inc was computed by its own C code
// (vectors/uuidv47/README.md says how), so equal faces mean a face made here
// decodes there, and back.
#include "check.hpp"
#include "uuid_hex.hpp"

#include "../../src/core/uuidv47.hpp"

#include <iterator>

using namespace crid::core;
using crid::test::uuid_from_hex;

namespace {

struct Vector {
    uint64_t k0, k1;
    const char *v7, *face;
};

const Vector vectors[] = {
#include "vectors/uuidv47/uuidv47_vectors.inc"
};
static_assert(std::size(vectors) == CRID_UUIDV47_VECTOR_COUNT, "every vector of the file is read");

} // namespace

TEST(uuidv47_reference_vectors_both_ways) {
    for (const Vector &v : vectors) {
        SipKey key{v.k0, v.k1};
        Uuid v7 = uuid_from_hex(v.v7), face = uuid_from_hex(v.face);
        CHECK_EQ(uuidv47_face(v7, key).to_string(), face.to_string());
        CHECK_EQ(uuidv47_id(face, key).to_string(), v7.to_string());
    }
}

// crid stores a key as 16 bytes; the reference's {k0, k1} are those bytes
// read as two little-endian words (how SipHash reads its key).
TEST(uuidv47_key_bytes_are_k0_k1_little_endian) {
    const uint8_t bytes[16] = {0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
                               0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};
    SipKey key = sip_key_from_bytes(bytes);
    CHECK_EQ(key.k0, UINT64_C(0x0123456789abcdef));
    CHECK_EQ(key.k1, UINT64_C(0xfedcba9876543210));
}

// A wrong key gives a UUIDv7 all the same, with another timestamp and the
// same random bits: nothing in a face tells the keys apart.
TEST(uuidv47_wrong_key_gives_a_wrong_v7) {
    SipKey right{1, 2}, wrong{1, 3};
    Uuid v7 = uuid_from_hex("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    Uuid back = uuidv47_id(uuidv47_face(v7, right), wrong);
    CHECK_EQ(back.version(), 7);
    CHECK(back.rfc_variant());
    CHECK(back.high48() != v7.high48());
    CHECK_EQ(back.low64(), v7.low64());
}
