#include "time_units.hpp"

#include <cstdio>

namespace crid::core {

namespace {

// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
// civil_from_days), valid far beyond the timestamptz range.
void civil_from_days(int64_t z, int64_t &y, unsigned &m, unsigned &d) noexcept {
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = unsigned(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = int64_t(yoe) + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y += (m <= 2);
}

} // namespace

std::string describe_pg_us(int64_t pg_us) {
    constexpr int64_t us_per_day = INT64_C(86400) * 1000 * 1000;
    // Shift to days since 1970 without overflowing near the int64 ends.
    int64_t day = floor_div(pg_us, us_per_day) + 10957;
    int64_t us_of_day = floor_mod(pg_us, us_per_day);
    int64_t y;
    unsigned m, d;
    civil_from_days(day, y, m, d);
    int64_t s = us_of_day / 1000000;
    char buf[80];
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u %02lld:%02lld:%02lld.%06lld+00",
                  static_cast<long long>(y <= 0 ? 1 - y : y), m, d, static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60),
                  static_cast<long long>(us_of_day % 1000000));
    std::string out(buf);
    if (y <= 0)
        out += " BC";
    return out;
}

std::string describe_unix_ms(int64_t unix_ms) {
    // Beyond this the microsecond arithmetic of describe_pg_us would overflow.
    constexpr int64_t limit = INT64_C(9000000000000000);
    if (unix_ms < -limit || unix_ms > limit)
        return "Unix millisecond " + std::to_string(unix_ms);
    std::string s = describe_pg_us(pg_us_from_unix_ms(unix_ms));
    size_t dot = s.find('.');
    return s.substr(0, dot + 4) + s.substr(dot + 7); // drop the always-zero microseconds
}

} // namespace crid::core
