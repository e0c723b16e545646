// The worker's link to its registry: the session (local or remote) and where
// the registry's tables are on it, found once and again after any failure
// (a dropped or recreated table, a new connection).
#pragma once

#include "common/postgres_headers.hpp"

#include "registry/registry_location.hpp"
#include "registry/registry_session.hpp"
#include "worker/worker_shared.hpp"

namespace crid::pg::worker {

// The registry's words, which the worker speaks throughout.
using registry::Failure;
using registry::Location;
using registry::Session;
using registry::Statement;

// The session the worker uses: remote when crid.registry is set.
Session &session();

// Why a round of the worker stopped short: the state it leaves the worker
// in, the SQLSTATE and sentence, whether it counts among the failures of
// crid_stats() (a refusal of this server's own, such as a damaged mark,
// does not), a pause the registry asked for (held back), and whether there
// is nothing new to say (a short pause between refused rounds).
struct Stop {
    WorkerState state = WorkerState::failing;
    Failure why;
    bool counted = true;
    int64_t hold_ms = 0;
    bool quiet = false;
};

// The one way the worker says why a round stopped: its state and detail,
// logged once per cause (worker_shared.hpp), counted when it failed; a
// failure that lost a remote registry is the state unreachable, which the
// timeout error of crid_next() gives its own hint.
void report_stop(const Stop &stop);

// The registry's location, finding it when not known; null when it cannot
// be found, with `stop` saying why (no extension there, a bad table, an
// outdated one, or the failed catalog query).
const Location *located(Stop &stop);

// Forgets the location (after a failed statement: the table may have been
// dropped or re-created). A lost remote connection is dropped by the session
// itself (registry/registry_session.hpp).
void forget_location();

// Runs a batch on the session (see Session::run), timing it into the
// registry latency counters, and forgets the location when it fails.
bool run(Statement *statements, int count, bool commit, Failure &failure);

// A batch of any kind (a lease renewal, say) reached the registry: a state
// that said it could not be reached, found or used says so no longer.
void report_reached();

} // namespace crid::pg::worker
