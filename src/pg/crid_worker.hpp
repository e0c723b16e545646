// The background worker that reserves crid blocks in the registry, each in a
// transaction of its own that commits before any id of the block is served:
// a rollback or crash of the backend that used the ids cannot free them.
#pragma once

#include "postgres_headers.hpp"

namespace crid::pg::crid_ids {

// Registers the worker (the postmaster restarts it a second after it exits;
// a worker whose predecessors failed waits longer itself); from _PG_init.
void register_worker();

} // namespace crid::pg::crid_ids

extern "C" {
// The worker's entry point, found by name in crid.so.
PGDLLEXPORT void crid_worker_main(Datum arg);
}
