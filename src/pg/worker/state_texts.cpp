#include "worker/state_texts.hpp"

#include "registry/registry_settings.hpp"
#include "worker/worker_shared.hpp"

#include "core/clock.hpp"
#include "core/time_units.hpp"

extern "C" {
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/wait_event.h"
}

#include <cstdio>

namespace crid::pg::worker {

using registry::registry_name;
using registry::registry_timeout_ms;
using registry::remote;

namespace {

// What a state means. In `why` and `hint`, %1$s is the registry as messages
// name it (`database "postgres"`, or `the registry at host=...`); a text
// ending in _remote replaces the plain one for a remote registry (crid.registry).
struct StateText {
    WorkerState state;
    const char *name;
    const char *why;
    const char *why_remote;
    const char *hint;
    const char *hint_remote;
};

// clang-format off
constexpr StateText state_texts[] = {
    {WorkerState::not_started, "not_started",
     "the crid background worker has not started", nullptr,
     "It starts once the server accepts connections; if it does not, every background worker slot may be taken "
     "(max_worker_processes).", nullptr},
    {WorkerState::connecting, "connecting",
     "the crid background worker is still connecting to the registry database",
     "the crid background worker is still connecting to the registry",
     "If it keeps failing, the server log of the \"crid block reserver\" says why; crid_next() works again as soon "
     "as it reserves a block.",
     "It connects to %1$s (crid.registry); crid_next() works again as soon as it reserves a block."},
    {WorkerState::no_database, "no_database",
     "the registry database does not exist", nullptr,
     "Create %1$s and run CREATE EXTENSION crid in it: the worker finds them while crid_next() waits, within "
     "crid.allocation_timeout. (Pointing crid.registry_database at another database takes a server restart.)",
     nullptr},
    {WorkerState::no_extension, "no_extension",
     "the registry database does not have the crid extension",
     "the registry does not have the crid extension",
     "Run CREATE EXTENSION crid in %1$s; a remote registry may instead be one crid_registry_server.sql made, "
     "with crid.registry_table naming its table (this server's own database needs crid).",
     nullptr},
    {WorkerState::bad_table, "bad_table",
     "crid.registry_table does not name a registry table", nullptr,
     "The registry table needs the columns ts bigint and next_seq bigint NOT NULL and a primary key on ts, as the "
     "Go crid library's EnsureSchema creates it. Create it, or set crid.registry_table to the table the Go services "
     "use, and restart the server.", nullptr},
    {WorkerState::unreachable, "unreachable",
     "the crid background worker cannot reach %1$s", nullptr,
     "Check crid.registry (host, port, dbname, user), that the registry server runs and its pg_hba.conf lets this "
     "server in, and the password (in ~/.pgpass of this server's OS user). The worker connects again with a "
     "growing pause.", nullptr},
    {WorkerState::outdated, "outdated",
     "the registry has an older crid", nullptr,
     "crid 0.3.0 checks every reservation against the registry's state: run ALTER EXTENSION crid UPDATE in %1$s "
     "(or, on a registry without crid, its script crid_registry_server.sql again).", nullptr},
    {WorkerState::held_back, "held_back",
     "the registry changed, and reservations wait until its clock passes the seconds it may have lost", nullptr,
     "The registry was truncated, re-created, restored or failed over; crid_next() works again within about two "
     "seconds of %1$s's clock, or sooner with a larger crid.allocation_timeout.", nullptr},
    {WorkerState::failing, "failing",
     "the crid background worker could not reserve a block", nullptr,
     "The worker retries with a growing pause; the detail is its last error. A reload (pg_reload_conf()) makes it "
     "retry at once.", nullptr},
    {WorkerState::serving, "serving",
     "the crid background worker did not reserve a block in time", nullptr,
     "The registry answered too slowly (%1$s): check its load and the worker's wait in pg_stat_activity, or raise "
     "crid.allocation_timeout.", nullptr},
};
// clang-format on

const StateText &text_of(WorkerState state) {
    for (const StateText &t : state_texts)
        if (t.state == state)
            return t;
    return state_texts[0];
}

// True when process `pid` waits for a heavyweight lock now (the worker on a
// row or table lock of the registry table that another session holds).
bool waits_for_lock(int pid) {
    if (pid == 0)
        return false;
    PGPROC *proc = BackendPidGetProc(pid);
    return proc && (*static_cast<volatile uint32 *>(&proc->wait_event_info) & 0xFF000000) == PG_WAIT_LOCK;
}

// %1$s of a table text, filled with the registry's name.
void fill(char *out, size_t size, const char *format) { std::snprintf(out, size, format, registry_name()); }

} // namespace

const char *state_name(WorkerState state) { return text_of(state).name; }

void explain_timeout(char *why, size_t why_size, char *detail, size_t detail_size, char *hint, size_t hint_size) {
    StateNow now = state_now();
    std::snprintf(detail, detail_size, "%s", now.detail);
    registry::for_caller(detail, detail_size);
    bool is_remote = remote();
    uint64 started = pg_atomic_read_u64(&status()->round_started_ns);
    int64_t round_ms = started ? (core::monotonic_ns() - int64_t(started)) / core::ns_per_ms : 0;
    // What the worker is seen doing now says more than its last state.
    if (is_remote && round_ms >= 1000) {
        std::snprintf(why, why_size, "%s has not answered the crid background worker for %lld ms", registry_name(),
                      static_cast<long long>(round_ms));
        std::snprintf(hint, hint_size,
                      "The worker gives the connection up after crid.registry_timeout (%d ms) and connects again; "
                      "check the registry server (its load, locks on the registry table, the network).",
                      registry_timeout_ms());
        return;
    }
    if (!(is_remote && now.state == WorkerState::unreachable) && waits_for_lock(now.worker_pid)) {
        std::snprintf(why, why_size, "the crid background worker is waiting for a lock in the registry database");
        std::snprintf(hint, hint_size,
                      "A session in %s holds a lock on crid_allocations (or its rows) that the worker needs: see "
                      "pg_locks and pg_stat_activity there, and end that transaction.",
                      registry_name());
        return;
    }
    if (now.state != WorkerState::not_started && now.worker_pid == 0) {
        std::snprintf(why, why_size, "the crid background worker is not running");
        std::snprintf(hint, hint_size,
                      "The postmaster starts it again, after a pause that grows while it keeps failing; the server "
                      "log of the \"crid block reserver\" says why it stopped.");
        return;
    }
    const StateText &t = text_of(now.state);
    fill(why, why_size, is_remote && t.why_remote ? t.why_remote : t.why);
    fill(hint, hint_size, is_remote && t.hint_remote ? t.hint_remote : t.hint);
}

} // namespace crid::pg::worker
