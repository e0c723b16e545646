#include "registry_floor.hpp"

namespace crid::core::crid_ids {

FloorPlan plan_second(const RegistryView &view, int64_t wanted, int64_t earliest) noexcept {
    FloorPlan p;
    p.ts = wanted > earliest ? wanted : earliest;
    if (view.refuses && p.ts >= view.refused_from && p.ts <= view.floor)
        p.ts = view.floor + 1;
    // A second further ahead than live_max is allowed once the registry's
    // clock reaches its start less the skew.
    if (p.ts > view.live_max) {
        int64_t allowed_at_ms = view.epoch_unix_ms + p.ts * 1000 - view.skew_ms;
        p.wait_ms = allowed_at_ms - view.now_unix_ms;
        if (p.wait_ms < 1)
            p.wait_ms = 1;
    }
    return p;
}

} // namespace crid::core::crid_ids
