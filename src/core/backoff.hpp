// How long to wait before trying again after consecutive failures: doubling
// from a first delay up to a cap, so a broken registry or a missing database
// costs one attempt a minute at worst, never a busy loop.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>

namespace crid::core {

class Backoff {
  public:
    constexpr Backoff(int64_t first_ms, int64_t cap_ms) noexcept : first_ms_(first_ms), cap_ms_(cap_ms) {}

    // The delay after `failures` consecutive failures: 0 for none, then
    // first, 2 x first, 4 x first, ... never above the cap.
    constexpr int64_t delay_ms(int64_t failures) const noexcept {
        if (failures <= 0)
            return 0;
        int64_t d = first_ms_;
        for (int64_t i = 1; i < failures && d < cap_ms_; ++i)
            d *= 2;
        return d < cap_ms_ ? d : cap_ms_;
    }

    constexpr int64_t cap_ms() const noexcept { return cap_ms_; }

  private:
    int64_t first_ms_, cap_ms_;
};

} // namespace crid::core
