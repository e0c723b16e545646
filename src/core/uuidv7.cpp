#include "uuidv7.hpp"

#include "error.hpp"
#include "siphash.hpp"
#include "time_units.hpp"

#include <string>

namespace crid::core::uuidv7 {

namespace {

constexpr uint64_t fraction_mask = (UINT64_C(1) << fraction_bits) - 1;

[[noreturn]] void out_of_range(const std::string &what) {
    throw Error(
        ErrorKind::datetime_out_of_range,
        what + " is outside the range of UUID version 7 (1970-01-01 00:00:00 UTC to 10889-08-02 05:31:50.655 UTC)");
}

} // namespace

void tick_before_1970(int64_t unix_ns) { out_of_range("clock reading " + std::to_string(unix_ns) + " ns"); }

uint64_t next_tick(uint64_t previous, uint64_t now) {
    if (now > previous)
        return now;
    if (previous == UINT64_MAX)
        out_of_range("the next UUID after the last millisecond");
    return previous + 1;
}

Uuid from_parts(uint64_t unix_ms, uint64_t rand_a, uint64_t rand_b) noexcept {
    // Two big-endian 64-bit halves: on the hot path this is two byte swaps
    // instead of sixteen byte stores.
    uint64_t high = (unix_ms << 16) | 0x7000 | (rand_a & 0x0FFF);
    uint64_t low = (UINT64_C(0x8) << 60) | (rand_b & ((UINT64_C(1) << 62) - 1));
    Uuid u;
    store_be64(u, 0, high);
    store_be64(u, 8, low);
    return u;
}

Uuid from_tick(uint64_t tick, uint64_t random) noexcept {
    uint64_t ms = tick >> fraction_bits;
    uint64_t fraction = tick & fraction_mask;
    uint64_t rand_a = fraction >> 4;
    uint64_t counter4 = fraction & 0xF;
    uint64_t rand_b = (counter4 << 58) | (random & ((UINT64_C(1) << 58) - 1));
    return from_parts(ms, rand_a, rand_b);
}

Uuid floor_id(uint64_t unix_ms) noexcept { return from_parts(unix_ms, 0, 0); }

uint64_t unix_ms_from_pg_us(int64_t pg_us) {
    int64_t ms = unix_ms_from_pg_us_floor(pg_us);
    if (ms < 0 || uint64_t(ms) > max_unix_ms)
        out_of_range("timestamp " + describe_pg_us(pg_us));
    return uint64_t(ms);
}

uint64_t unix_ms_of(const Uuid &u) {
    if (u.version() != 7 || !u.rfc_variant()) {
        std::string found = u.rfc_variant() ? "version " + std::to_string(u.version()) : "not of the RFC 9562 variant";
        throw Error(ErrorKind::invalid_parameter, "uuid " + u.to_string() + " is " + found + ", not a version 7 UUID",
                    "Only UUIDs from uuid_generate_v7() or another RFC 9562 version 7 generator carry a time here; "
                    "uuid_extract_timestamp() also reads version 1 and returns NULL for the rest.");
    }
    return u.high48();
}

Uuid deterministic(uint64_t unix_ms, uint8_t type_tag, const void *key, size_t key_len) noexcept {
    // Two independent 64-bit keyed hashes give the 74 bits; the keys are fixed
    // so the same input yields the same UUID on every server and release.
    static constexpr SipKey key_a{UINT64_C(0x6372696476377631), UINT64_C(0x2d64657465726d61)};
    static constexpr SipKey key_b{UINT64_C(0x6372696476377632), UINT64_C(0x2d696e6973746963)};
    uint64_t a = siphash24(key_a, type_tag, key, key_len);
    uint64_t b = siphash24(key_b, type_tag, key, key_len);
    return from_parts(unix_ms, a >> 52, b);
}

} // namespace crid::core::uuidv7

namespace crid::core::uuid_inspect {

namespace {
// 100 ns intervals between the Gregorian reform (1582-10-15) and 1970-01-01.
constexpr int64_t gregorian_to_unix_100ns = INT64_C(0x01B21DD213814000);
} // namespace

int version_or_none(const Uuid &u) noexcept { return u.rfc_variant() ? u.version() : -1; }

bool unix_us_of(const Uuid &u, int64_t &unix_us) noexcept {
    if (!u.rfc_variant())
        return false;
    if (u.version() == 7) {
        unix_us = int64_t(u.high48()) * us_per_ms;
        return true;
    }
    if (u.version() == 1) {
        // time_low (32) | time_mid (16) | version (4) + time_high (12)
        uint64_t t = (get_be(u, 6, 2) & 0x0FFF) << 48 | get_be(u, 4, 2) << 32 | get_be(u, 0, 4);
        unix_us = floor_div(int64_t(t) - gregorian_to_unix_100ns, 10);
        return true;
    }
    return false;
}

} // namespace crid::core::uuid_inspect
