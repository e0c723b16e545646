// What the block reserver tells everyone else, in shared memory: its state
// and last detail (for crid_next()'s timeout error and
// crid_registry_status()), and the counters of its registry round trips
// (crid_stats()). Written by the worker only, read by any backend.
#pragma once

#include "common/postgres_headers.hpp"
#include "common/stats_rows.hpp"

extern "C" {
#include "storage/spin.h"
}

namespace crid::pg::worker {

// What the worker is doing; state_texts.hpp says what each state means.
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

// The registry's clock as the last reservation round measured it, and the
// names crid_check() needs to write the fix of a member whose clock is off.
struct RegistryClock {
    bool measured = false;    // a round has measured it since the server started
    int64 offset_ms = 0;      // the registry's clock minus this server's
    int64 uncertainty_ms = 0; // half the round trip it was measured over
    int64 max_skew_ms = 0;    // the skew the fleet allows (crid_registry_state.max_skew_ms)
    int64 measured_unix_ms = 0;
    char registry_table[2 * (2 * NAMEDATALEN + 2) + 2] = ""; // the state's key: the registry table, quoted
    char state_table[2 * (2 * NAMEDATALEN + 2) + 2] = "";    // crid_registry_state there, quoted
};

struct WorkerStatus {
    slock_t lock; // guards the fields up to clock
    WorkerState state;
    int worker_pid; // 0 while no worker process runs
    char detail[512];
    // Across worker processes: consecutive failed ones, for the pause
    // before the next one starts, and whether the last connection attempt
    // found no registry database.
    int worker_failures;
    bool database_missing;
    RegistryClock clock;

    pg_atomic_uint64 failures; // failed registry transactions
    pg_atomic_uint64 commits;  // reservation transactions (one or more blocks each)
    pg_atomic_uint64 us_total; // their time
    pg_atomic_uint64 us_max;
    pg_atomic_uint64 regressions;      // times the registry was seen to go backwards
    pg_atomic_uint64 round_trips;      // registry transactions of any kind (blocks, leases, checks)
    pg_atomic_uint64 last_us;          // how long the last one took
    pg_atomic_uint64 round_started_ns; // monotonic start of the transaction in flight, 0 when none
    pg_atomic_uint64 connects;         // connections made to a remote registry
    pg_atomic_uint32 connected;        // 1 while connected to a remote registry
};

// Shared memory for it: from shmem_request_hook, then in the postmaster at
// start and after every crash (state not_started).
void request_status();
void startup_status();
WorkerStatus *status() noexcept;

// The state and detail, read together.
struct StateNow {
    WorkerState state = WorkerState::not_started;
    int worker_pid = 0;
    char detail[sizeof WorkerStatus::detail] = "";
};
StateNow state_now();

// Records what the worker is doing, and logs it when the condition (state
// and SQLSTATE) differs from the last one logged, so a failure that repeats
// is said once; a return to serving after a failure is logged too. `detail`
// may be null. set_state() records without logging.
void report(WorkerState state, int sqlstate, const char *detail);
void set_state(WorkerState state, const char *detail);

// What a reservation round measured of the registry's clock (the worker's
// block refill), and where its state table is (the worker's link, once it
// found the registry). registry_clock() reads both together.
void note_registry_clock(int64 offset_ms, int64 uncertainty_ms, int64 max_skew_ms, int64 measured_unix_ms);
void note_registry_names(const char *registry_table, const char *state_table);
RegistryClock registry_clock();

// crid_stats() rows of the worker, in family crid: registry_commits,
// registry_failures, registry_us_total / registry_us_max (time of a
// reservation transaction), registry_regressions (times the registry was
// seen to go backwards), registry_round_trips and registry_last_us (every
// registry transaction: blocks, checks, leases), registry_connected /
// registry_connects (a remote registry: 1 while connected, connections
// made; crid_registry_status() has its state and last error).
void add_stats(StatsRows &rows);

} // namespace crid::pg::worker
