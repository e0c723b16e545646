// From a condition on an id's decoded time to a range of ids: what lets a
// B-tree on `id` answer "rows from the last hour".
//
// Every family decodes an id to the start of its time unit: a UUIDv7 to its
// millisecond, a snowflake to its unit (1 ms, 10 ms, ...) after the layout's
// epoch, a crid to its second. Unit u begins at epoch + u * unit_ms, and ids
// sort by unit first (the time field is the most significant), so the ids
// whose time satisfies `time >= x`, `time < x`, `time in [a, b)`, ... are
// exactly those between the first id of one unit and the last id of another.
// The mapping is exact: integer arithmetic on whole units, no rounding slack.
//
// Snowflake layouts with sign=true (discord, instagram) are refused: once their
// time reaches bit 63 the bigint turns negative, so bigint order is not time
// order there.
#pragma once
#include "pure_cpp.hpp"
#include "crid_layout.hpp"
#include "snowflake_layout.hpp"
#include "uuid.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace crid::core::time_range {

// One end of a range of times in PostgreSQL microseconds (±infinity is
// INT64_MIN / INT64_MAX, which lie beyond every unit).
struct End {
    enum class Kind { unbounded, inclusive, exclusive };
    Kind kind = Kind::unbounded;
    int64_t pg_us = 0;
};

// How a family lays time out: unit u in 0 .. max_unit begins at
// epoch_unix_ms + u * unit_ms.
struct Grid {
    int64_t epoch_unix_ms = 0;
    int64_t unit_ms = 1;
    int64_t max_unit = 0;
};

// Units first .. last, inclusive (first <= last).
struct Units {
    int64_t first = 0;
    int64_t last = 0;
};

// The units whose start time t satisfies lower <= t <= upper (each end as its
// kind says); nullopt when there is none.
std::optional<Units> units_between(const Grid &grid, End lower, End upper) noexcept;

// A comparison `time op at` as a range of times: "<", "<=", ">=", ">". "="
// is both ">=" and "<=". Throws invalid_parameter for any other text.
enum class Op { lt, le, ge, gt };
Op op_named(std::string_view op);
std::optional<Units> units_where(const Grid &grid, Op op, int64_t pg_us) noexcept;

// True when `unit` lies in the span.
inline bool contains(const std::optional<Units> &span, int64_t unit) noexcept {
    return span && span->first <= unit && unit <= span->last;
}

// Families: their grid and the first / last id of a unit.
namespace uuid_v7 {
Grid grid() noexcept;
Uuid first_id(int64_t unit) noexcept; // the smallest version 7 UUID of that millisecond
Uuid last_id(int64_t unit) noexcept;  // the largest one
// True for a version 7 UUID (RFC variant) whose millisecond lies in the span.
bool id_in(const Uuid &id, const std::optional<Units> &span) noexcept;
} // namespace uuid_v7

namespace snowflake {
Grid grid(const core::snowflake::Layout &layout) noexcept;
// Throws invalid_parameter for a sign=true layout (see above); first_id and
// last_id are for layouts that pass it.
void check_sorted_by_time(const core::snowflake::Layout &layout);
int64_t first_id(const core::snowflake::Layout &layout, int64_t unit);
int64_t last_id(const core::snowflake::Layout &layout, int64_t unit);
// True when id is an id of the layout (not negative unless sign=true) whose
// unit lies in the span.
bool id_in(const core::snowflake::Layout &layout, int64_t id, const std::optional<Units> &span);
} // namespace snowflake

namespace crid_ids {
Grid grid(const core::crid_ids::Layout &layout);
int64_t first_id(const core::crid_ids::Layout &layout, int64_t unit);
int64_t last_id(const core::crid_ids::Layout &layout, int64_t unit);
// True when id is a crid (not negative) whose second lies in the span.
bool id_in(const core::crid_ids::Layout &layout, int64_t id, const std::optional<Units> &span);
} // namespace crid_ids

} // namespace crid::core::time_range
