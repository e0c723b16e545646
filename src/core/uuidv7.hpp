// UUID version 7 (RFC 9562 §5.7) with the §6.2 method 3 clock: 48 bits of Unix
// milliseconds, then a sub-millisecond fraction. The fraction has 16 bits: the
// top 12 are rand_a (exactly method 3), the low 4 continue into the top of
// rand_b (the RFC's "extra precision" counter), leaving 58 random bits. 65,536
// distinct values a millisecond keep the embedded time within the clock at any
// rate a server can sustain, where 4,096 would drift ahead.
#pragma once
#include "pure_cpp.hpp"
#include "uuid.hpp"

#include <cstddef>
#include <cstdint>

namespace crid::core::uuidv7 {

// A "tick" is ms << 16 | fraction16: a 64-bit integer that orders exactly like
// the UUIDs built from it, so monotonicity is one integer comparison.
inline constexpr int fraction_bits = 16;
inline constexpr uint64_t max_unix_ms = (UINT64_C(1) << 48) - 1;

// uuid_generate_v7(gene, bits) puts the gene in the low bits of rand_b, in
// place of random bits: at most 10, so at least 48 of the 58 stay random.
inline constexpr int random_bits = 58;
inline constexpr int max_gene_bits = 10;

// The tick for a wall-clock reading. Throws datetime_out_of_range outside
// 1970-01-01 .. the end of 48-bit milliseconds (year 10889) (the throw is
// tick_before_1970()). Inline: server order takes two per id.
[[noreturn]] void tick_before_1970(int64_t unix_ns);
inline uint64_t tick_from_unix_ns(int64_t unix_ns) {
    if (unix_ns < 0) [[unlikely]]
        tick_before_1970(unix_ns);
    // ms < 2^48 always holds for an int64 count of nanoseconds (2^63 ns is
    // about 2^43 ms), so only the lower bound can fail. Unsigned division by
    // a constant is a multiply.
    const uint64_t ns = uint64_t(unix_ns), ms = ns / 1000000, ns_in_ms = ns - ms * 1000000;
    return (ms << fraction_bits) | ((ns_in_ms << fraction_bits) / 1000000);
}

// The tick to use after `previous` when the clock reads `now`: the clock
// itself when it moved forward, else previous + 1 (a clock step back or a
// burst within one fraction advances the fraction instead of repeating).
// Throws when previous is the last representable tick.
uint64_t next_tick(uint64_t previous, uint64_t now);

// A version 7 UUID from a tick and 64 random bits (58 are used).
Uuid from_tick(uint64_t tick, uint64_t random) noexcept;

// A version 7 UUID for `unix_ms` whose 74 other bits are `rand_a` (12 used) and
// `rand_b` (62 used): random bytes, a hash, or zero for a range boundary.
Uuid from_parts(uint64_t unix_ms, uint64_t rand_a, uint64_t rand_b) noexcept;

// The smallest version 7 UUID of a millisecond (every other bit 0): a
// range-scan boundary, as snowflake::floor_id and crid_ids::floor_id are.
Uuid floor_id(uint64_t unix_ms) noexcept;

// The millisecond (floor) of a PostgreSQL timestamptz, checked against the
// 48 bits a version 7 UUID holds.
uint64_t unix_ms_from_pg_us(int64_t pg_us);

// The Unix milliseconds in a version 7 UUID. Throws invalid_parameter, naming
// the version found, for anything that is not version 7 of the RFC variant.
uint64_t unix_ms_of(const Uuid &u);

// The same key material, hashed into the 74 free bits of a deterministic v7.
// `type_tag` separates key types, so text '1' and bigint 1 differ.
Uuid deterministic(uint64_t unix_ms, uint8_t type_tag, const void *key, size_t key_len) noexcept;

} // namespace crid::core::uuidv7

namespace crid::core::uuid_inspect {

// PostgreSQL 18's uuid_extract_version: the version nibble, or -1 (SQL NULL)
// when the variant is not RFC 9562's.
int version_or_none(const Uuid &u) noexcept;

// PostgreSQL 18's uuid_extract_timestamp: Unix microseconds of a version 1 or
// 7 UUID; false (SQL NULL) for any other version or variant.
bool unix_us_of(const Uuid &u, int64_t &unix_us) noexcept;

} // namespace crid::core::uuid_inspect
