#include "common/clock_policy.hpp"

namespace crid::pg {

namespace {
int clock_wait_ms = 5;
int clock_borrow_ms = 1000;
} // namespace

void define_clock_settings() {
    DefineCustomIntVariable("crid.clock_wait_ms",
                            "A clock step back of at most this many ms waits for the clock to catch up.", nullptr,
                            &clock_wait_ms, 5, 0, 60000, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.clock_borrow_ms",
                            "A clock step back of at most this many ms continues on a logical clock ahead of it.",
                            "Beyond it, generation fails rather than risk a repeated id.", &clock_borrow_ms, 1000, 0,
                            3600000, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr, nullptr);
}

core::snowflake::Policy clock_policy() { return {clock_wait_ms, clock_borrow_ms}; }

} // namespace crid::pg
