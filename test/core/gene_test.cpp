// Shard genes: MurmurHash3 x86_32 against vectors computed outside this code
// (a separate implementation written from the published algorithm, checked
// against the widely published "hello" and "quick brown fox" values), genes
// of keys and ids, round trips, bad bits and genes, and the hash-partitioning
// inverse against PostgreSQL's own combining step.
#include "check.hpp"

#include "../../src/core/gene.hpp"
#include "../../src/core/murmur3.hpp"

#include <cstdint>
#include <cstring>
#include <string>

using namespace crid::core;
using crid::test::contains;
using crid::test::message_of;

namespace {

uint32_t mm3(const char *utf8) { return murmur3_x86_32(utf8, std::strlen(utf8), 0); }

// PostgreSQL 15, src/include/common/hashfn.h: how partbounds.c folds a key
// column's extended hash into the row hash (starting from 0).
uint64_t hash_combine64(uint64_t a, uint64_t b) {
    a ^= b + UINT64_C(0x49a0f4dd15e5a8e3) + (a << 54) + (a >> 7);
    return a;
}

// The partition PostgreSQL picks for one key column: row hash mod modulus.
uint64_t remainder_of(uint64_t low, uint64_t modulus) { return hash_combine64(0, gene::partition_hash(low)) % modulus; }

} // namespace

TEST(murmur3_published_values) {
    CHECK_EQ(mm3(""), 0u);
    CHECK_EQ(murmur3_x86_32("", 0, 1), 0x514E28B7u);
    CHECK_EQ(mm3("hello"), 0x248bfa47u);
    CHECK_EQ(mm3("The quick brown fox jumps over the lazy dog"), 0x2e4ff723u);
}

// Every tail length (1, 2, 3 bytes after the blocks), multi-byte UTF-8 and a
// 4-byte emoji: the table of docs/genes.md.
TEST(murmur3_tails_and_utf8) {
    CHECK_EQ(mm3("a"), 0x3c2569b2u);       // 1 byte
    CHECK_EQ(mm3("ab"), 0x9bbfd75fu);      // 2
    CHECK_EQ(mm3("abc"), 0xb3dd93fau);     // 3
    CHECK_EQ(mm3("abcd"), 0x43ed676au);    // 4: one block, no tail
    CHECK_EQ(mm3("user-42"), 0xb972dad0u); // 7: a block and 3
    CHECK_EQ(mm3("Gr\xc3\xbc\xc3\x9f"
                 "e"),
             0x6ac9c100u);                                  // "Grüße", 7 bytes
    CHECK_EQ(mm3("\xe6\x9d\xb1\xe4\xba\xac"), 0x96bf1142u); // "東京", 6 bytes
    CHECK_EQ(mm3("\xf0\x9f\xa6\x80"), 0xada58aacu);         // "🦀", one 4-byte block
    CHECK_EQ(mm3("\xf0\x9f\xa6\x80 crab"), 0x4b81dae8u);    // 9: two blocks and 1
}

TEST(gene_of_text_masks_the_hash) {
    CHECK_EQ(gene::of_bytes("", 0, 4), 0);
    CHECK_EQ(gene::of_bytes("hello", 5, 4), 0x7);
    CHECK_EQ(gene::of_bytes("hello", 5, 8), 0x47);
    CHECK_EQ(gene::of_bytes("hello", 5, 31), 0x248bfa47);
    CHECK_EQ(gene::of_bytes("ab", 2, 31), int32_t(0x9bbfd75f & 0x7fffffff));
    CHECK_EQ(gene::of_bytes("\xf0\x9f\xa6\x80", 4, 16), 0x8aac);
}

TEST(gene_of_uuid_hashes_its_16_bytes) {
    Uuid zero;
    CHECK_EQ(gene::of_bytes(zero.bytes.data(), 16, 16), 0xcdf8); // murmur3 of 16 zero bytes: 0x8134cdf8
    Uuid rfc;                                                    // 017f22e2-79b0-7cc3-98c4-dc0c0c07398f (RFC 9562 A.6)
    const uint8_t b[16] = {0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3,
                           0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f};
    std::memcpy(rfc.bytes.data(), b, 16);
    CHECK_EQ(gene::of_bytes(rfc.bytes.data(), 16, 16), 0xff4b); // 0xe831ff4b
}

TEST(gene_of_bigint_is_the_low_bits_in_twos_complement) {
    CHECK_EQ(gene::of_key(42, 4, "gene_of"), 10);
    CHECK_EQ(gene::of_key(-1, 4, "gene_of"), 15);
    CHECK_EQ(gene::of_key(-16, 4, "gene_of"), 0);
    CHECK_EQ(gene::of_key(INT64_MIN, 31, "gene_of"), 0);
    CHECK_EQ(gene::of_key(INT64_MAX, 31, "gene_of"), 0x7fffffff);
    CHECK_EQ(gene::of_key(INT64_C(0x123456789), 1, "gene_of"), 1);
}

TEST(id_with_gene_round_trips) {
    for (int bits : {1, 4, 10, 16, 31})
        for (int64_t id : {INT64_C(0), INT64_C(1), INT64_C(123817284304109568), INT64_MAX, INT64_C(-5), INT64_MIN}) {
            int64_t gene = INT64_C(0x5a5a5a5a) & ((INT64_C(1) << bits) - 1);
            int64_t with = gene::with_gene(id, gene, bits);
            CHECK_EQ(gene::of_key(with, bits, "id_gene"), gene);
            CHECK_EQ(with >> bits, id >> bits); // the rest of the id is untouched
        }
    Uuid u;
    for (int i = 0; i < 16; ++i)
        u.bytes[size_t(i)] = uint8_t(0xA0 + i);
    Uuid with = gene::with_gene(u, 0x1234, 16);
    CHECK_EQ(gene::of_uuid_id(with, 16), 0x1234);
    CHECK_EQ(int(with.bytes[14]), 0x12);
    CHECK_EQ(int(with.bytes[15]), 0x34);
    for (int i = 0; i < 14; ++i)
        CHECK_EQ(int(with.bytes[size_t(i)]), 0xA0 + i);
    CHECK_EQ(gene::of_uuid_id(u, 8), 0xAF);
}

TEST(bad_bits_and_genes_name_value_and_limit) {
    CHECK_THROWS(gene::of_key(1, 0, "gene_of"), invalid_parameter);
    CHECK_THROWS(gene::of_key(1, 32, "gene_of"), invalid_parameter);
    CHECK_THROWS(gene::of_key(1, -3, "gene_of"), invalid_parameter);
    CHECK_THROWS(gene::of_bytes("x", 1, 0), invalid_parameter);
    CHECK_THROWS(gene::with_gene(1, 16, 4), numeric_out_of_range);
    CHECK_THROWS(gene::with_gene(1, -1, 4), numeric_out_of_range);
    CHECK_THROWS(gene::with_gene(Uuid{}, 2, 1), numeric_out_of_range);
    std::string m = message_of([] { gene::of_key(1, 32, "gene_of"); });
    CHECK(contains(m, "gene_of: gene bits 32 is outside 1 to 31"));
    m = message_of([] { gene::with_gene(7, 16, 4); });
    CHECK(contains(m, "id_with_gene: gene 16 does not fit 4 gene bits (0 to 15)"));
    m = message_of([] { gene::field(11, "uuid_generate_v7", 10, "48 random bits stay"); });
    CHECK(contains(m, "uuid_generate_v7: gene bits 11 is outside 1 to 10"));
}

// What PostgreSQL computes from partition_hash(): the id itself, so MODULUS
// 2^k puts every id in the REMAINDER of its low k bits, for every k.
TEST(partition_hash_makes_postgres_route_by_gene) {
    const uint64_t samples[] = {0,
                                1,
                                2,
                                15,
                                16,
                                0x5a5a5a5a,
                                UINT64_C(123817284304109568),
                                ~UINT64_C(0),
                                UINT64_C(0x8000000000000000),
                                UINT64_C(0x49a0f4dd15e5a8e3)};
    for (uint64_t low : samples) {
        CHECK_EQ(hash_combine64(0, gene::partition_hash(low)), low);
        for (int k = 0; k <= 16; ++k)
            CHECK_EQ(remainder_of(low, UINT64_C(1) << k), low & ((UINT64_C(1) << k) - 1));
    }
    // A negative bigint routes by its two's complement low bits, as gene_of says.
    CHECK_EQ(remainder_of(uint64_t(INT64_C(-3)), 16), uint64_t(gene::of_key(-3, 4, "gene_of")));
}
