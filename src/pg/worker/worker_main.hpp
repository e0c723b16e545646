// The block reserver ("crid block reserver"): the background process that
// talks to the registry for this server. It reserves crid blocks there (each
// in a transaction of its own that commits before any id of the block is
// served: a rollback or crash of the backend that used the ids cannot free
// them, worker/block_refill.hpp) and takes and renews snowflake node
// leases (worker/lease_rounds.hpp).
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::worker {

// Registers the worker (the postmaster restarts it a second after it exits;
// a worker whose predecessors failed waits longer itself); from _PG_init.
void register_worker();

} // namespace crid::pg::worker

extern "C" {
// The worker's entry point, found by name in crid.so.
PGDLLEXPORT void crid_worker_main(Datum arg);
}
