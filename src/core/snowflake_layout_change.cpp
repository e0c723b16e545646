#include "snowflake_layout_change.hpp"

namespace crid::core::snowflake {

namespace {

// Bits below the time field.
int time_shift(const Layout &l) noexcept { return l.gene_bits + l.node_bits + l.sequence_bits; }

} // namespace

LayoutChange first_unit_above(const Layout &old_layout, int64_t mark_unix_ms, const Layout &new_layout) noexcept {
    LayoutChange change;
    if (mark_unix_ms < old_layout.epoch_unix_ms) {
        change.possible = true;
        change.first_unix_ms = new_layout.epoch_unix_ms;
        return change;
    }
    int64_t old_unit = (mark_unix_ms - old_layout.epoch_unix_ms) / old_layout.unit_ms;
    if (old_unit > max_time_units(old_layout))
        old_unit = max_time_units(old_layout);
    // 128-bit: a time field that uses the sign bit reaches 2^64 - 1.
    using u128 = unsigned __int128;
    u128 max_old = (u128(old_unit) + 1) << time_shift(old_layout);
    max_old -= 1;
    u128 first = (max_old >> time_shift(new_layout)) + 1;
    if (first > u128(max_time_units(new_layout)))
        return change;
    change.possible = true;
    change.first_unit = int64_t(first);
    change.first_unix_ms = unit_start_unix_ms(new_layout, change.first_unit);
    return change;
}

} // namespace crid::core::snowflake
