#include "uuidv7/server_clock.hpp"

#include "common/shared_struct.hpp"
#include "marks/high_water.hpp"

#include "core/clock.hpp"

namespace crid::pg::uuidv7 {

namespace {
ClockWords *words = nullptr;
}

void request_clock() { RequestAddinShmemSpace(sizeof(ClockWords)); }

void startup_clock(int64_t mark_ms) {
    bool created = false;
    words = shared_struct<ClockWords>("crid uuidv7 clock", created);
    if (!created)
        return;
    int64_t mono = core::monotonic_ns();
    words->target.init(uint64_t(core::wall_clock_ns() - mono));
    words->catchup.init(core::uuidv7::catchup_above(0, mono, core::uuidv7::last_tick_of_ms(mark_ms)));
    words->last.init(0);
    words->mode.init(0);
}

ClockWords *clock_words() noexcept { return words; }

void raise_clock(int64_t unix_ms, bool exactly) {
    uint64_t tick = core::uuidv7::last_tick_of_ms(unix_ms);
    int64_t mono = core::monotonic_ns();
    if (exactly) {
        words->target.store(uint64_t(core::wall_clock_ns() - mono));
        words->catchup.store(core::uuidv7::catchup_above(0, mono, tick));
        // The last compare-and-swap tick belongs to the clock put back:
        // left there, it would hold every id up until the clock reached it.
        words->last.store(0);
        return;
    }
    core::advance(words->catchup, [&](uint64_t old) { return core::uuidv7::catchup_above(old, mono, tick); });
}

void add_stats(StatsRows &rows) {
    rows.add("uuidv7", -1, "high_water_damaged", marks::uuidv7_refusal() == Refusal::mark_damaged);
}

} // namespace crid::pg::uuidv7
