// The block reserver's supply of crid blocks: reserving blocks in the
// registry while the server runs low, and publishing into the block server
// (crid_ids/block_shared.hpp) those that lie above everything it served before
// (core/registry_guard.hpp), after the registry mark covers them.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::worker {

// Reserves and publishes blocks while the server runs low. False when an
// attempt failed: the worker's state says why (and the log, once per change
// of condition), and the caller pauses before trying again. A registry that
// holds reservations back for a while (its clock has not reached the second
// it allows next) is no failure: false with `hold_ms`, the pause it asks for.
bool refill(int64_t &hold_ms);

} // namespace crid::pg::worker
