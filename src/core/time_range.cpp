#include "time_range.hpp"

#include "error.hpp"
#include "time_units.hpp"
#include "uuidv7.hpp"

#include <algorithm>
#include <string>

namespace crid::core::time_range {

namespace {

constexpr int64_t ceil_div(int64_t a, int64_t b) noexcept { return -floor_div(-a, b); }

// The Unix millisecond that contains pg_us, and the first whole millisecond
// at or after it. No overflow even at ±infinity (INT64_MIN / INT64_MAX).
int64_t floor_ms(int64_t pg_us) noexcept { return unix_ms_from_pg_us_floor(pg_us); }
int64_t ceil_ms(int64_t pg_us) noexcept { return floor_ms(pg_us) + (floor_mod(pg_us, us_per_ms) != 0 ? 1 : 0); }

// Decoded times are whole milliseconds t; these turn each end into a bound on
// t, then into a bound on the unit whose start is t.
int64_t lowest_unit(const Grid &g, End e) noexcept {
    if (e.kind == End::Kind::unbounded)
        return 0;
    // t >= x  <=>  t >= ceil(x);   t > x  <=>  t >= floor(x) + 1
    int64_t ms = e.kind == End::Kind::inclusive ? ceil_ms(e.pg_us) : floor_ms(e.pg_us) + 1;
    return ceil_div(ms - g.epoch_unix_ms, g.unit_ms);
}

int64_t highest_unit(const Grid &g, End e) noexcept {
    if (e.kind == End::Kind::unbounded)
        return g.max_unit;
    // t <= x  <=>  t <= floor(x);  t < x  <=>  t <= ceil(x) - 1
    int64_t ms = e.kind == End::Kind::inclusive ? floor_ms(e.pg_us) : ceil_ms(e.pg_us) - 1;
    return floor_div(ms - g.epoch_unix_ms, g.unit_ms);
}

} // namespace

std::optional<Units> units_between(const Grid &g, End lower, End upper) noexcept {
    int64_t first = std::max<int64_t>(lowest_unit(g, lower), 0);
    int64_t last = std::min(highest_unit(g, upper), g.max_unit);
    if (first > last)
        return std::nullopt;
    return Units{first, last};
}

Op op_named(std::string_view op) {
    if (op == "<")
        return Op::lt;
    if (op == "<=")
        return Op::le;
    if (op == ">=")
        return Op::ge;
    if (op == ">")
        return Op::gt;
    throw Error(ErrorKind::invalid_parameter,
                "comparison \"" + std::string(op.substr(0, 8)) + "\" is not one of <, <=, >=, >");
}

std::optional<Units> units_where(const Grid &g, Op op, int64_t pg_us) noexcept {
    End at_inclusive{End::Kind::inclusive, pg_us}, at_exclusive{End::Kind::exclusive, pg_us}, none{};
    switch (op) {
    case Op::lt:
        return units_between(g, none, at_exclusive);
    case Op::le:
        return units_between(g, none, at_inclusive);
    case Op::ge:
        return units_between(g, at_inclusive, none);
    case Op::gt:
        break;
    }
    return units_between(g, at_exclusive, none);
}

namespace uuid_v7 {

Grid grid() noexcept { return Grid{0, 1, int64_t(uuidv7::max_unix_ms)}; }

Uuid first_id(int64_t unit) noexcept { return uuidv7::from_parts(uint64_t(unit), 0, 0); }

Uuid last_id(int64_t unit) noexcept { return uuidv7::from_parts(uint64_t(unit), UINT64_MAX, UINT64_MAX); }

bool id_in(const Uuid &id, const std::optional<Units> &span) noexcept {
    return id.version() == 7 && id.rfc_variant() && contains(span, int64_t(id.high48()));
}

} // namespace uuid_v7

namespace snowflake {

namespace sf = core::snowflake;

Grid grid(const sf::Layout &l) noexcept {
    int64_t epoch = sf::unit_start_unix_ms(l, 0);
    return Grid{epoch, sf::unit_start_unix_ms(l, 1) - epoch, sf::max_time_units(l)};
}

void check_sorted_by_time(const sf::Layout &l) {
    if (l.use_sign_bit)
        throw Error(ErrorKind::invalid_parameter,
                    "snowflake layout " + l.name +
                        " lets the time use the sign bit, so bigint order is not time order: its ids cannot be "
                        "range-scanned by time",
                    "snowflake_in() and snowflake_to_timestamptz() still work on such ids, row by row.");
}

int64_t first_id(const sf::Layout &l, int64_t unit) { return sf::floor_id(l, sf::unit_start_unix_ms(l, unit)); }

// Without the sign bit the fields fill bits 0-62 (or the low bits= of
// them), so the last unit ends at the layout's largest id.
int64_t last_id(const sf::Layout &l, int64_t unit) {
    return unit >= sf::max_time_units(l) ? sf::max_id(l) : first_id(l, unit + 1) - 1;
}

bool id_in(const sf::Layout &l, int64_t id, const std::optional<Units> &span) {
    if ((id < 0 && !l.use_sign_bit) || (l.width != 0 && id > sf::max_id(l)))
        return false;
    return contains(span, sf::unpack(l, id).time_units);
}

} // namespace snowflake

namespace crid_ids {

namespace ids = core::crid_ids;

Grid grid(const ids::Layout &l) { return Grid{ids::unix_ms_of_ts(l, 0), ms_per_s, ids::max_ts(l)}; }

int64_t first_id(const ids::Layout &l, int64_t unit) { return ids::floor_id(l, ids::unix_ms_of_ts(l, unit)); }

int64_t last_id(const ids::Layout &l, int64_t unit) {
    return unit >= ids::max_ts(l) ? INT64_MAX : first_id(l, unit + 1) - 1;
}

bool id_in(const ids::Layout &l, int64_t id, const std::optional<Units> &span) {
    return id >= 0 && contains(span, ids::unpack(l, id).ts);
}

} // namespace crid_ids

} // namespace crid::core::time_range
