// Time arithmetic shared by every family: units, epochs and floor division, so
// no file converts microseconds to milliseconds its own way.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <string>

namespace crid::core {

inline constexpr int64_t ns_per_us = 1000;
inline constexpr int64_t us_per_ms = 1000;
inline constexpr int64_t ns_per_ms = 1000 * 1000;
inline constexpr int64_t ms_per_s = 1000;

// PostgreSQL counts timestamptz in microseconds from 2000-01-01 00:00:00 UTC.
inline constexpr int64_t pg_epoch_unix_us = INT64_C(946684800) * 1000 * 1000;

// Rounds toward minus infinity: a time before an epoch must still land in the
// millisecond that contains it, not the one after.
constexpr int64_t floor_div(int64_t a, int64_t b) noexcept {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The remainder that goes with floor_div, in [0, b) for b > 0; computed from
// % so it cannot overflow near INT64_MIN.
constexpr int64_t floor_mod(int64_t a, int64_t b) noexcept {
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// The Unix millisecond that contains a PostgreSQL timestamptz. Converting to
// milliseconds before moving the epoch cannot overflow, even at the ends of
// the timestamptz range.
constexpr int64_t unix_ms_from_pg_us_floor(int64_t pg_us) noexcept {
    return floor_div(pg_us, us_per_ms) + pg_epoch_unix_us / us_per_ms;
}

// A PostgreSQL timestamptz for a Unix millisecond (in range for any 48-bit ms).
constexpr int64_t pg_us_from_unix_ms(int64_t unix_ms) noexcept {
    return (unix_ms - pg_epoch_unix_us / us_per_ms) * us_per_ms;
}

// A timestamptz as UTC text "YYYY-MM-DD HH:MM:SS.ffffff+00" for messages,
// without PostgreSQL's formatter (the core must not call it).
std::string describe_pg_us(int64_t pg_us);

// A Unix millisecond as "YYYY-MM-DD HH:MM:SS.fff+00" for messages (a bare
// number beyond what describe_pg_us can convert).
std::string describe_unix_ms(int64_t unix_ms);

} // namespace crid::core
