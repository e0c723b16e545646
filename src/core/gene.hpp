// Shard genes: the low `bits` bits of an id name the shard its owner lives
// on, so an id alone routes a lookup, and gene_of(key) gives the gene of the
// key (user, tenant) the id belongs with.
//
//   gene_of(key bigint, bits)     key & (2^bits - 1), two's complement for
//                                 negative keys (-1 has every gene bit set)
//   gene_of(key text|uuid, bits)  MurmurHash3 x86_32, seed 0, of the UTF-8
//                                 bytes (the 16 bytes of a uuid), masked
//   id_gene(id, bits)             the low bits of a bigint, or of a uuid's
//                                 last byte and those before it
//   id_with_gene(id, gene, bits)  the id with those bits replaced
//
// Genes are SQL integers, so `bits` is 1 to 31 here; the generators allow
// fewer (the bits they can spare). partition_hash() is the extended hash
// that makes PostgreSQL's own hash partitioning send gene g to REMAINDER g of
// MODULUS 2^k.
#pragma once
#include "pure_cpp.hpp"

#include "bit_layout.hpp"
#include "uuid.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace crid::core::gene {

// Genes are non-negative SQL integers.
inline constexpr int max_bits = 31;

// The gene field of `bits` low bits. Throws invalid_parameter, naming the
// function, the value and the limit, for bits outside 1 .. max (a generator
// passes the bits it can spare and `why` it cannot spare more).
BitField field(int bits, std::string_view function, int max = max_bits, std::string_view why = {});

// Throws numeric_out_of_range, naming the function, the gene and the limit,
// for a gene that does not fit the field.
void check_gene(const BitField &field, int64_t gene, std::string_view function);

// gene_of(key bigint, bits), and id_gene(id bigint, bits): the low bits.
int32_t of_key(int64_t key, int bits, std::string_view function);

// gene_of(key text|uuid, bits): MurmurHash3 x86_32 (seed 0) of the bytes, masked.
int32_t of_bytes(const void *data, size_t len, int bits);

// id_gene(id uuid, bits): the low bits of the uuid's last 8 bytes, big-endian.
int32_t of_uuid_id(const Uuid &id, int bits);

// id_with_gene(id bigint|uuid, gene, bits): the low bits replaced by the gene.
int64_t with_gene(int64_t id, int64_t gene, int bits);
Uuid with_gene(const Uuid &id, int64_t gene, int bits);

// The uuid with a checked gene in `field` (a field of its last 8 bytes).
Uuid put(const Uuid &id, const BitField &field, uint64_t gene) noexcept;

// The value an extended hash support function returns for an id whose low 64
// bits (two's complement for a bigint, the last 8 bytes of a uuid) are `low`,
// so that PostgreSQL's hash partitioning computes `low` itself. PostgreSQL
// (partbounds.c, compute_partition_hash_value) starts from 0 and folds each
// key column's extended hash h in with hash_combine64(a, h) =
// a ^ (h + 0x49a0f4dd15e5a8e3 + (a << 54) + (a >> 7)); with one column and
// a = 0 that is h + 0x49a0f4dd15e5a8e3 (mod 2^64), and the partition is that
// value mod MODULUS. Returning low - 0x49a0f4dd15e5a8e3 makes the row hash
// `low`, so MODULUS 2^k picks REMAINDER low mod 2^k: the id's low k bits, its
// gene. The partitioning seed is ignored (so the function is the same for
// every seed), and the standard 32-bit support function returns the low 32
// bits of this value, as PostgreSQL requires of the pair at seed 0.
constexpr uint64_t partition_hash(uint64_t low) noexcept { return low - UINT64_C(0x49a0f4dd15e5a8e3); }

} // namespace crid::core::gene
