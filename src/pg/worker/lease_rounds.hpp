// The worker's part in snowflake node leases: with
// crid.node_id = 'lease' it leases a free (or lapsed) node of the registry's
// crid_node_leases; with a static crid.node_id (or crid.snowflake_nodes) and
// a registry it registers those nodes there, and refuses a node another live
// server holds. It renews every third of crid.node_lease_ttl, writing its
// high-water bound into the rows, and publishes in shared memory what is
// safely held until when (snowflake/node_fence.hpp; core/snowflake_lease.hpp
// has the argument).
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::worker {

// True when this server leases or registers nodes (crid.registry set, or
// crid.node_id = 'lease').
bool leases_active();

// Called on every pass of the worker's loop: does what is due. False when a
// lease round failed (its state says why; minting on the nodes stops once
// the window since the last renewal closes).
bool tick_leases();

// When tick_leases() wants to run next (monotonic ns); INT64_MAX when inactive.
int64_t leases_due_ns();

// At a planned exit of the worker (shutdown, SIGTERM): stops minting on
// every node and lets this server's lease rows lapse now, with a bound of
// what it minted, so its next start (or the next holder) takes them at once.
void release_leases();

} // namespace crid::pg::worker
