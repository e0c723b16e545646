#include "worker/worker_main.hpp"

#include "common/pg_compat.hpp"

#include "crid_ids/block_shared.hpp"
#include "common/background_worker.hpp"
#include "worker/block_refill.hpp"
#include "worker/lease_rounds.hpp"
#include "registry/pinned_settings.hpp"
#include "worker/registry_link.hpp"
#include "registry/registry_settings.hpp"
#include "worker/worker_shared.hpp"

#include "core/backoff.hpp"
#include "core/clock.hpp"
#include "core/time_units.hpp"

extern "C" {
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "tcop/tcopprot.h"
#include "utils/elog.h"
#include "utils/snapmgr.h"
}

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>

namespace crid::pg::worker {

using registry::registry_database;
using registry::registry_name;
using registry::remote;

namespace {

// Pauses that keep a failing worker from turning into a busy loop or a
// flooded log: before a worker process starts after earlier ones failed,
// between failed reservations in one process, and between checks for a
// registry database that does not exist.
constexpr core::Backoff restart_backoff(1000, 60000);
constexpr core::Backoff retry_backoff(200, 10000);
constexpr core::Backoff database_backoff(1000, 60000);

// While a crid_next() waits for a block, the worker looks again (for the
// registry database, or with a refill) this often, however long its backoff
// has grown, so its pause never keeps a waiting caller waiting; and no more
// often, so a broken registry is still no busy loop.
constexpr int64_t waiter_pace_ns = 200 * core::ns_per_ms;

// A crid_next() waits for a block, and the worker last looked at least
// waiter_pace_ns before `now`.
bool waiter_due(int64_t now, int64_t looked_ns) {
    return crid_ids::waiter_seen(now) && now - looked_ns >= waiter_pace_ns;
}

// Set by our SIGTERM handler: an exit the administrator or a shutdown asked
// for is no failure. Set before a planned exit too.
volatile sig_atomic_t exit_wanted = false;
// A local (SPI) batch is running, or the worker holds no lease to release:
// SIGTERM ends the worker at once, as PostgreSQL's own handler does.
volatile sig_atomic_t in_local_batch = false;

void handle_sigterm(SIGNAL_ARGS) {
    exit_wanted = true;
    if (in_local_batch || !leases_active()) {
        die(postgres_signal_arg);
        return;
    }
    // Else the main loop (or the registry wait it is in) sees the flag,
    // releases the leases and exits.
    int saved_errno = errno;
    SetLatch(MyLatch);
    errno = saved_errno;
}

// A planned exit: first the snowflake node leases are released, within a
// short bound, so that this server started again (or another) takes them at
// once rather than after crid.node_lease_ttl; then the process exits, for the
// postmaster to start it again unless the server is shutting down.
[[noreturn]] void exit_releasing_leases() {
    registry::cap_timeout_ms(1000);
    release_leases();
    proc_exit(1);
}

// What the registry sessions ask of the worker and tell it
// (registry/registry_session.hpp).
bool exit_requested() { return exit_wanted; }
void local_batch(bool running) { in_local_batch = running; }
void remote_connection(bool open) {
    WorkerStatus *s = status();
    if (open)
        pg_atomic_fetch_add_u64(&s->connects, 1);
    pg_atomic_write_u32(&s->connected, open ? 1 : 0);
}

// Runs at every exit of the worker process, FATAL ones included.
void on_worker_exit(int code, Datum) {
    crid_ids::shared()->filler_latch = nullptr;
    WorkerStatus *s = status();
    SpinLockAcquire(&s->lock);
    s->worker_pid = 0;
    if (code != 0 && !exit_wanted && s->worker_failures < 1000)
        s->worker_failures++;
    SpinLockRelease(&s->lock);
}

// While connecting: remembers that the registry database does not exist,
// so the next worker process waits for it instead of failing again.
emit_log_hook_type previous_emit_log_hook = nullptr;
void note_missing_database(ErrorData *error) {
    if (error->elevel >= ERROR && error->sqlerrcode == ERRCODE_UNDEFINED_DATABASE) {
        WorkerStatus *s = status();
        SpinLockAcquire(&s->lock);
        s->database_missing = true;
        SpinLockRelease(&s->lock);
    }
    if (previous_emit_log_hook)
        previous_emit_log_hook(error);
}

// What may end a pause early: a reload, which may have fixed the cause of a
// failure, and a crid_next() that waits for a block, once waiter_pace_ns
// have passed since the worker last looked (`looked_ns`).
struct PauseEnds {
    bool reload = false;
    bool waiter = false;
    int64_t looked_ns = 0;
};

// Sleeps `ms` on the monotonic clock, whatever else sets the latch
// meanwhile (backends whose ids run low do), unless `ends` ends it.
void pause_ms(int64_t ms, PauseEnds ends) {
    const int64_t deadline = core::monotonic_ns() + ms * core::ns_per_ms;
    for (;;) {
        int64_t now = core::monotonic_ns();
        if (now >= deadline || (ends.waiter && waiter_due(now, ends.looked_ns)))
            return;
        int64_t wake = deadline;
        if (ends.waiter && crid_ids::waiter_seen(now))
            wake = std::min(wake, ends.looked_ns + waiter_pace_ns);
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
                        long((wake - now + core::ns_per_ms - 1) / core::ns_per_ms),
                        compat::wait_event_info(compat::Wait::reserver_pause));
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
        if (exit_wanted || (ends.reload && ConfigReloadPending))
            return;
    }
}

// Before connecting: the worker processes before this one failed, so wait
// out a growing pause (the postmaster alone would restart it every second).
void pause_after_failed_workers() {
    WorkerStatus *s = status();
    SpinLockAcquire(&s->lock);
    int failures = s->worker_failures;
    SpinLockRelease(&s->lock);
    int64_t delay = restart_backoff.delay_ms(failures);
    if (delay == 0)
        return;
    char detail[256];
    std::snprintf(detail, sizeof detail,
                  "the worker failed %d time%s in a row; it starts again in %lld ms (see the server log)", failures,
                  failures == 1 ? "" : "s", static_cast<long long>(delay));
    set_state(WorkerState::connecting, detail);
    pause_ms(delay, PauseEnds{});
}

// True when database `name` exists. A worker connected to no database can
// read only shared catalogs, and without their indexes: a heap scan of
// pg_database, as the autovacuum launcher does.
bool database_exists(const char *name) {
    bool found = false;
    StartTransactionCommand();
    (void)GetTransactionSnapshot();
    Relation rel = table_open(DatabaseRelationId, AccessShareLock);
    TableScanDesc scan = table_beginscan_catalog(rel, 0, nullptr);
    HeapTuple tuple;
    while (!found && HeapTupleIsValid(tuple = heap_getnext(scan, ForwardScanDirection)))
        found = std::strcmp(NameStr(reinterpret_cast<Form_pg_database>(GETSTRUCT(tuple))->datname), name) == 0;
    table_endscan(scan);
    table_close(rel, AccessShareLock);
    CommitTransactionCommand();
    return found;
}

// The registry database did not exist at the last attempt. Rather than
// failing to connect (and logging a FATAL) again and again, the worker
// connects to no database, checks the catalog with a growing pause (or
// sooner while a crid_next() waits), and says so once; when the database
// appears it exits so that the postmaster starts it again, connected there.
// Never returns.
[[noreturn]] void wait_for_registry_database() {
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
    char detail[256];
    std::snprintf(detail, sizeof detail, "database \"%s\" (crid.registry_database) does not exist",
                  registry_database());
    set_state(WorkerState::no_database, detail);
    ereport(LOG, (errmsg("crid: %s; crid_next() waits for it within crid.allocation_timeout", detail),
                  errdetail("The crid block reserver checks for it again with a pause growing up to %lld s, and "
                            "every %lld ms while a crid_next() waits.",
                            static_cast<long long>(database_backoff.cap_ms() / 1000),
                            static_cast<long long>(waiter_pace_ns / core::ns_per_ms))));
    for (int64_t attempt = 1;; ++attempt) {
        int64_t looked_ns = core::monotonic_ns();
        if (database_exists(registry_database())) {
            WorkerStatus *s = status();
            SpinLockAcquire(&s->lock);
            s->database_missing = false;
            s->worker_failures = 0;
            SpinLockRelease(&s->lock);
            ereport(LOG, (errmsg("crid: database \"%s\" exists now; the block reserver restarts to connect to it",
                                 registry_database())));
            exit_wanted = true;
            proc_exit(1); // restarted by the postmaster in a second (code 0 would unregister it)
        }
        pause_ms(database_backoff.delay_ms(attempt), PauseEnds{false, true, looked_ns});
        if (exit_wanted)
            proc_exit(1);
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
    }
}

// Connects the worker: to no database for a remote registry, else to
// crid.registry_database (after waiting for it when the last worker found
// none). Either way after the pause that earlier failed workers call for.
void connect_worker(bool database_missing) {
    char detail[sizeof WorkerStatus::detail];
    if (remote()) {
        BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
        pause_after_failed_workers();
        std::snprintf(detail, sizeof detail, "connecting to %s (crid.registry)", registry_name());
        set_state(WorkerState::connecting, detail);
        return;
    }
    if (database_missing)
        wait_for_registry_database();
    pause_after_failed_workers();
    std::snprintf(detail, sizeof detail, "connecting to database \"%s\" (crid.registry_database)", registry_database());
    set_state(WorkerState::connecting, detail);
    // A missing database is FATAL here (said once: the next worker process
    // waits for it without trying); ALLOW_CONNECTIONS false, which the
    // database's owner may set, is not.
    previous_emit_log_hook = emit_log_hook;
    emit_log_hook = note_missing_database;
    BackgroundWorkerInitializeConnection(registry_database(), nullptr, BGWORKER_BYPASS_ALLOWCONN);
    emit_log_hook = previous_emit_log_hook;
    set_state(WorkerState::serving, nullptr);
}

// When the next refill may run: after a failure the worker pauses, growing
// up to 10 s (a reload ends the pause), but while a crid_next() waits for a
// block it tries again every waiter_pace_ns, so the pause never keeps the
// caller waiting and a broken registry is still no busy loop. A registry
// that holds reservations back names its own pause, which no caller
// shortens.
struct RefillPace {
    int64_t failures = 0;
    int64_t retry_at_ns = 0; // no new attempt before then, unless a crid_next() waits
    int64_t tried_ns = 0;    // when the last attempt began
    bool held = false;       // retry_at_ns is the registry's own pause

    bool due(int64_t now) const { return now >= retry_at_ns || (!held && waiter_due(now, tried_ns)); }

    // When to look again after `now`: the end of the pause, or sooner for a
    // caller that waits.
    int64_t next_ns(int64_t now) const {
        if (!held && crid_ids::waiter_seen(now))
            return std::min(retry_at_ns, tried_ns + waiter_pace_ns);
        return retry_at_ns;
    }

    void refill_if_due(int64_t now) {
        if (!due(now))
            return;
        tried_ns = now;
        int64_t hold_ms = 0;
        bool ok = refill(hold_ms);
        held = hold_ms > 0;
        if (held) {
            retry_at_ns = now + hold_ms * core::ns_per_ms;
            return;
        }
        failures = ok ? 0 : failures + 1;
        retry_at_ns = ok ? 0 : now + retry_backoff.delay_ms(failures) * core::ns_per_ms;
    }
};

// Sleeps until something is due: a backend's wake-up (its ids run low, or
// it waits), the end of a pause, a lease round, or a second at most (a
// missed wake-up).
void sleep_until_due(int64_t now, const RefillPace &pace) {
    int64_t wake_ns = now + 1000 * core::ns_per_ms;
    int64_t refill_ns = pace.next_ns(now);
    if (refill_ns > now && refill_ns < wake_ns)
        wake_ns = refill_ns;
    wake_ns = std::min(wake_ns, std::max(now, leases_due_ns()));
    int64_t left_ms = (wake_ns - core::monotonic_ns() + core::ns_per_ms - 1) / core::ns_per_ms;
    if (exit_wanted)
        exit_releasing_leases();
    (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, long(left_ms < 1 ? 1 : left_ms),
                    compat::wait_event_info(compat::Wait::reserver_idle));
    ResetLatch(MyLatch);
    CHECK_FOR_INTERRUPTS();
}

// The worker: its signals and hooks, its connection, then the loop.
// Only PostgreSQL calls and functions that guard their own C++ run here.
[[noreturn]] void serve() {
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, handle_sigterm);
    BackgroundWorkerUnblockSignals();

    WorkerStatus *s = status();
    SpinLockAcquire(&s->lock);
    s->worker_pid = MyProcPid;
    bool database_missing = s->database_missing;
    SpinLockRelease(&s->lock);
    crid_ids::shared()->filler_latch = MyLatch;
    before_shmem_exit(on_worker_exit, 0);
    registry::set_session_hooks({local_batch, exit_requested, remote_connection});
    connect_worker(database_missing);
    registry::pin_local_settings();

    RefillPace pace;
    for (;;) {
        if (exit_wanted)
            exit_releasing_leases();
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
            pace = RefillPace{}; // the reload may have fixed the cause
        }
        int64_t now = core::monotonic_ns();
        pace.refill_if_due(now);
        // Snowflake node leases: renewals are due on their own clock,
        // whatever the blocks do.
        (void)tick_leases();
        sleep_until_due(now, pace);
    }
}

} // namespace

void register_worker() {
    register_background_worker("crid_worker_main", "crid block reserver",
                               BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION);
}

} // namespace crid::pg::worker

void crid_worker_main(Datum) { crid::pg::worker::serve(); }
