// The worker's link to its registry: the session (local or remote) and where
// the registry's tables are on it, found once and again after any failure
// (a dropped or recreated table, a new connection).
#pragma once

#include "common/postgres_headers.hpp"

#include "registry/registry_location.hpp"
#include "registry/registry_session.hpp"

namespace crid::pg::worker {

// The registry's words, which the worker speaks throughout.
using registry::Failure;
using registry::Location;
using registry::Session;
using registry::Statement;

// The session the worker uses: remote when crid.registry is set.
Session &session();

// The registry's location, finding it when not known; null when it cannot
// be found, with `failure` saying why and the worker's state and log updated.
const Location *located(Failure &failure);

// Forgets the location (after a failed statement: the table may have been
// dropped or re-created). A lost remote connection is dropped by the session
// itself (registry/registry_session.hpp).
void forget_location();

// Runs a batch on the session (see Session::run), timing it into the
// registry latency counters, and forgets the location when it fails.
bool run(Statement *statements, int count, bool commit, Failure &failure);

// Reports a failed batch as the worker's state (logged once per cause).
void report_failure(const Failure &failure);

// A batch of any kind (a lease renewal, say) reached the registry: a state
// that said it could not be reached, found or used says so no longer.
void report_reached();

} // namespace crid::pg::worker
