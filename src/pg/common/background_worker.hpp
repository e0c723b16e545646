// Registering crid's background workers (the block reserver, the
// high-water keeper): each started once the server is out of recovery, and
// again by the postmaster a second after it exits.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg {

// `entry` is the worker's entry point, found by name in crid.so; `name`
// shows in pg_stat_activity and the log. From _PG_init.
void register_background_worker(const char *entry, const char *name, int flags);

} // namespace crid::pg
