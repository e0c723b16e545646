// What a registry's continuity state (crid_registry_check in the registry
// database) means for the next live reservation of a crid server.
//
// The registry refuses a live reservation in a second it may have lost
// reservations of (refused_from .. floor, after it was truncated, re-created,
// restored or failed over) and in a second ahead of its clock by more than
// the skew the fleet allows (above live_max). Together these keep every
// block unique however the registry went backwards, provided the clocks of
// the registry's hosts agree within that skew: the argument is in
// sql/functions/crid_registry_check.sql.
//
// A server asks for the second its own clock names (or the registry's, when
// its own runs ahead), never below what it reserved before (the guard's
// earliest second); the plan here moves that second past the refused ones
// and says how long to wait when the registry's clock has not reached it.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>

namespace crid::core::crid_ids {

// One answer of crid_registry_check.
struct RegistryView {
    bool refuses = false;     // a refused range exists
    int64_t refused_from = 0; // first refused second (when refuses)
    int64_t floor = 0;        // last refused second (when refuses)
    int64_t live_max = 0;     // the latest second a live reservation may use at now_unix_ms
    int64_t now_unix_ms = 0;  // the registry's clock
    int64_t epoch_unix_ms = 0;
    int64_t skew_ms = 0;

    // True when a live reservation of second `ts` is allowed now.
    bool allows(int64_t ts) const noexcept { return ts <= live_max && !(refuses && ts >= refused_from && ts <= floor); }
};

// The second to reserve in next, or how long to wait for the registry's
// clock to allow it.
struct FloorPlan {
    int64_t ts = 0;      // the second to ask for
    int64_t wait_ms = 0; // > 0: not before this many ms on the registry's clock
};

// `wanted`: the second the server's clock (or the registry's, estimated)
// names; `earliest`: the least second the server may use (its guard).
FloorPlan plan_second(const RegistryView &view, int64_t wanted, int64_t earliest) noexcept;

// How far the registry's clock is ahead of this server's (negative: behind),
// from the registry's clock read during a round trip that began at
// `sent_unix_ms` and ended at `received_unix_ms` on this server.
constexpr int64_t clock_offset_ms(int64_t registry_unix_ms, int64_t sent_unix_ms, int64_t received_unix_ms) noexcept {
    return registry_unix_ms - (sent_unix_ms + (received_unix_ms - sent_unix_ms) / 2);
}

} // namespace crid::core::crid_ids
