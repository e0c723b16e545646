// What each state of the block reserver (worker_shared.hpp) means, in one
// table: its name in crid_registry_status(), and why crid_next() found no
// block in that state and what to do about it.
#pragma once

#include "common/postgres_headers.hpp"

#include "worker/worker_shared.hpp"

#include <cstddef>

namespace crid::pg::worker {

// crid_registry_status().state: "serving", "held_back", ...
const char *state_name(WorkerState state);

// For crid_next() that waited crid.allocation_timeout in vain (installed as
// the block server's explainer at load, crid_ids/block_shared.hpp): why, in
// the words of the worker's state (or of what the worker is seen doing
// now), its last detail, and a hint for that cause.
void explain_timeout(char *why, size_t why_size, char *detail, size_t detail_size, char *hint, size_t hint_size);

} // namespace crid::pg::worker
