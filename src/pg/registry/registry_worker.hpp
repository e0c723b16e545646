// The background worker that reserves crid blocks in the registry, each in a
// transaction of its own that commits before any id of the block is served:
// a rollback or crash of the backend that used the ids cannot free them.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::crid_ids {

// Registers the worker (the postmaster restarts it a second after it exits;
// a worker whose predecessors failed waits longer itself); from _PG_init.
void register_worker();

// A planned exit was asked for (SIGTERM: a shutdown or
// pg_terminate_backend()): waits on the registry end at once, so that the
// worker can release its snowflake node leases and exit.
bool exit_requested();

// Brackets a batch on the local registry (SPI): a SIGTERM then ends the
// worker at once, as a lock wait there does not watch for exit_requested().
void local_batch_started();
void local_batch_ended();

} // namespace crid::pg::crid_ids

extern "C" {
// The worker's entry point, found by name in crid.so.
PGDLLEXPORT void crid_worker_main(Datum arg);
}
