// Accepting a changed snowflake layout on a server that minted ids under the
// old one (crid_accept_layout): from which time unit of the new layout is
// every id greater than every id the old layout can have issued up to the
// high-water mark?
//
// An old id at or before the mark is at most (old_unit + 1) << old_shift - 1,
// where old_unit is the mark's unit and old_shift the bits below the time
// field (node + sequence + gene). The smallest new id of unit u is
// u << new_shift. So the first safe unit is (max_old >> new_shift) + 1. A
// wider sequence or node field (a larger shift) makes it earlier: often the
// clock is already past it. A narrower one makes it later: a 2-bit narrower
// field needs a time four times as far from the epoch, often years ahead.
#pragma once
#include "pure_cpp.hpp"

#include "snowflake_layout.hpp"

#include <cstdint>

namespace crid::core::snowflake {

struct LayoutChange {
    bool possible = false;     // false: the new layout's time field ends before that unit
    int64_t first_unit = 0;    // the first unit of the new layout above every old id
    int64_t first_unix_ms = 0; // when it begins (meaningful when possible)
};

// The first unit of `new_layout` whose ids exceed every id of `old_layout`
// with a time at or before `mark_unix_ms`. Both layouts must be valid. A mark
// before the old epoch means no old id: unit 0.
LayoutChange first_unit_above(const Layout &old_layout, int64_t mark_unix_ms, const Layout &new_layout) noexcept;

} // namespace crid::core::snowflake
