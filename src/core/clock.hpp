// The real clock. Generators never call it themselves: they take the time as
// an argument, so unit tests drive them with a fake clock.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <ctime>

namespace crid::core {

// Nanoseconds since the Unix epoch. CLOCK_REALTIME is served from the vDSO on
// Linux, so reading it costs no system call.
inline int64_t wall_clock_ns() noexcept {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Nanoseconds on a clock that only moves forward at a steady rate, for
// timeouts and durations: the wall clock may be stepped (NTP, an operator)
// or, in tests, frozen.
inline int64_t monotonic_ns() noexcept {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

} // namespace crid::core
