// The crid worker's work: reserving blocks in the registry while the server
// runs low, and publishing those that lie above everything it served before
// (core/registry_guard.hpp), after the registry mark covers them.
#pragma once

#include "common/postgres_headers.hpp"

#include "blocks/block_shared.hpp"

namespace crid::pg::crid_ids {

// Reserves and publishes blocks while the server runs low. False when an
// attempt failed: the worker's state says why (and the log, once per change
// of condition), and the caller pauses before trying again. A registry that
// holds reservations back for a while (its clock has not reached the second
// it allows next) is no failure: false with `hold_ms`, the pause it asks for.
bool refill(int64_t &hold_ms);

// Records what the worker is doing for waiting backends, and logs it when
// the condition (state and SQLSTATE) differs from the last one logged, so a
// failure that repeats is said once. A return to serving after a failure is
// logged too. `detail` may be null.
void report(WorkerState state, int sqlstate, const char *detail);

} // namespace crid::pg::crid_ids
