// The states of the registry worker (the "crid block reserver"), and the one
// table that says what each means: its name in crid_registry_status(), and
// why crid_next() found no block in that state and what to do about it.
#pragma once

#include "common/postgres_headers.hpp"

#include <cstddef>

namespace crid::pg::worker {

enum class WorkerState : int {
    not_started,  // no worker has run since the server started
    connecting,   // connecting to the registry (or pausing before it after failures)
    no_database,  // crid.registry_database does not exist; the worker waits for it
    no_extension, // connected, but CREATE EXTENSION crid was not run there
    bad_table,    // crid.registry_table names no table of the registry's shape there
    unreachable,  // a remote registry (crid.registry) cannot be reached or stopped answering
    outdated,     // the registry lacks crid 0.3.0's continuity check
    held_back,    // the registry changed (went backwards): reservations wait for its floor to pass
    failing,      // a reservation failed; the detail says why
    serving,      // reserving blocks normally
};

// crid_registry_status().state: "serving", "held_back", ...
const char *state_name(WorkerState state);

// For crid_next() that waited crid.allocation_timeout in vain (installed as
// the block server's explainer at load, crid_ids/block_shared.hpp): why, in
// the words of the worker's state (or of what the worker is seen doing
// now), its last detail, and a hint for that cause.
void explain_timeout(char *why, size_t why_size, char *detail, size_t detail_size, char *hint, size_t hint_size);

} // namespace crid::pg::worker
