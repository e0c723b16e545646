#include "registry/registry_worker.hpp"

#include "registry/block_refill.hpp"
#include "blocks/crid_settings.hpp"
#include "blocks/block_shared.hpp"
#include "registry/registry_settings.hpp"
#include "registry/lease_rounds.hpp"
#include "registry/registry_link.hpp"

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

namespace crid::pg::crid_ids {

namespace {

// Pauses that keep a failing worker from turning into a busy loop or a
// flooded log: before a worker process starts after earlier ones failed,
// between failed reservations in one process, and between checks for a
// registry database that does not exist.
constexpr core::Backoff restart_backoff(1000, 60000);
constexpr core::Backoff retry_backoff(200, 10000);
constexpr core::Backoff database_backoff(1000, 60000);

// Set by our SIGTERM handler: an exit the administrator or a shutdown asked
// for is no failure. Set before a planned exit too.
volatile sig_atomic_t exit_wanted = false;
// A local (SPI) batch is running, or the worker holds no lease to release:
// SIGTERM ends the worker at once, as PostgreSQL's own handler does.
volatile sig_atomic_t in_local_batch = false;

void handle_sigterm(SIGNAL_ARGS) {
    exit_wanted = true;
    if (in_local_batch || !crid::pg::lease::active()) {
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
    crid::pg::registry::cap_timeout_ms(1000);
    crid::pg::lease::release();
    proc_exit(1);
}

// Runs at every exit of the worker process, FATAL ones included.
void on_worker_exit(int code, Datum) {
    CridShared *s = shared();
    s->worker_latch = nullptr;
    SpinLockAcquire(&s->status_lock);
    s->worker_pid = 0;
    if (code != 0 && !exit_wanted && s->worker_failures < 1000)
        s->worker_failures++;
    SpinLockRelease(&s->status_lock);
}

// While connecting: remembers that the registry database does not exist,
// so the next worker process waits for it instead of failing again.
emit_log_hook_type previous_emit_log_hook = nullptr;
void note_missing_database(ErrorData *error) {
    if (error->elevel >= ERROR && error->sqlerrcode == ERRCODE_UNDEFINED_DATABASE) {
        CridShared *s = shared();
        SpinLockAcquire(&s->status_lock);
        s->registry_database_missing = true;
        SpinLockRelease(&s->status_lock);
    }
    if (previous_emit_log_hook)
        previous_emit_log_hook(error);
}

// Sleeps `ms` on the monotonic clock, whatever sets the latch meanwhile
// (waiting backends do); a reload ends it early when `reload_wakes`, since it
// may have fixed the cause of a failure.
void pause_ms(int64_t ms, bool reload_wakes) {
    const int64_t deadline = crid::core::monotonic_ns() + ms * crid::core::ns_per_ms;
    for (;;) {
        int64_t left_ns = deadline - crid::core::monotonic_ns();
        if (left_ns <= 0)
            return;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
                        long((left_ns + crid::core::ns_per_ms - 1) / crid::core::ns_per_ms), PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
        if (exit_wanted || (reload_wakes && ConfigReloadPending))
            return;
    }
}

// Before connecting: the worker processes before this one failed, so wait
// out a growing pause (the postmaster alone would restart it every second).
void pause_after_failed_workers() {
    CridShared *s = shared();
    SpinLockAcquire(&s->status_lock);
    int failures = s->worker_failures;
    SpinLockRelease(&s->status_lock);
    int64_t delay = restart_backoff.delay_ms(failures);
    if (delay == 0)
        return;
    char detail[256];
    std::snprintf(detail, sizeof detail,
                  "the worker failed %d time%s in a row; it starts again in %lld ms (see the server log)", failures,
                  failures == 1 ? "" : "s", static_cast<long long>(delay));
    set_status(WorkerState::connecting, detail);
    pause_ms(delay, false);
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
// connects to no database, checks the catalog with a growing pause, and says
// so once; when the database appears it exits so that the postmaster starts
// it again, connected there. Never returns.
[[noreturn]] void wait_for_registry_database() {
    BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
    char detail[256];
    std::snprintf(detail, sizeof detail, "database \"%s\" (crid.registry_database) does not exist",
                  registry_database());
    set_status(WorkerState::no_database, detail);
    ereport(LOG, (errmsg("crid: %s; crid_next() fails until it is created", detail),
                  errdetail("The crid block reserver checks for it again with a pause growing up to %lld s.",
                            static_cast<long long>(database_backoff.cap_ms() / 1000))));
    for (int64_t attempt = 1;; ++attempt) {
        if (database_exists(registry_database())) {
            CridShared *s = shared();
            SpinLockAcquire(&s->status_lock);
            s->registry_database_missing = false;
            s->worker_failures = 0;
            SpinLockRelease(&s->status_lock);
            ereport(LOG, (errmsg("crid: database \"%s\" exists now; the block reserver restarts to connect to it",
                                 registry_database())));
            exit_wanted = true;
            proc_exit(1); // restarted by the postmaster in a second (code 0 would unregister it)
        }
        pause_ms(database_backoff.delay_ms(attempt), false);
        if (exit_wanted)
            proc_exit(1);
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
    }
}

// Settings of the worker's own, whatever the database, its owner or a role
// set (ALTER DATABASE ... SET, ALTER ROLE ... SET): the reservations run as a
// superuser and every server's crid_next() depends on them.
void pin_settings() {
    struct Pin {
        const char *name, *value;
    };
    static const Pin pins[] = {
        // Resolve nothing through schemas other roles can create objects in.
        {"search_path", "pg_catalog"},
        // A reservation must be durable before any id of it is served: a
        // commit lost in a crash would hand the same block out again.
        {"synchronous_commit", "on"},
        // Neither read-only transactions, nor timeouts, nor serialization
        // failures, nor replication-role tricks may stop reservations.
        {"default_transaction_read_only", "off"},
        {"default_transaction_isolation", "read committed"},
        {"default_transaction_deferrable", "off"},
        {"statement_timeout", "0"},
        {"lock_timeout", "0"},
        {"idle_in_transaction_session_timeout", "0"},
        {"idle_session_timeout", "0"},
        {"session_replication_role", "origin"},
        {"exit_on_error", "off"},
        {"jit", "off"},
        {"force_parallel_mode", "off"},
        {"standard_conforming_strings", "on"},
        {"application_name", "crid block reserver"},
    };
    for (const Pin &pin : pins)
        SetConfigOption(pin.name, pin.value, PGC_SUSET, PGC_S_OVERRIDE);
}

} // namespace

bool exit_requested() { return exit_wanted; }
void local_batch_started() { in_local_batch = true; }
void local_batch_ended() { in_local_batch = false; }

void register_worker() {
    BackgroundWorker worker;
    std::memset(&worker, 0, sizeof worker);
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = 1;
    std::snprintf(worker.bgw_library_name, BGW_MAXLEN, "crid");
    std::snprintf(worker.bgw_function_name, BGW_MAXLEN, "crid_worker_main");
    std::snprintf(worker.bgw_name, BGW_MAXLEN, "crid block reserver");
    std::snprintf(worker.bgw_type, BGW_MAXLEN, "crid block reserver");
    RegisterBackgroundWorker(&worker);
}

} // namespace crid::pg::crid_ids

using namespace crid::pg::crid_ids;

// Only PostgreSQL calls and functions that guard their own C++ run here.
void crid_worker_main(Datum) {
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, handle_sigterm);
    BackgroundWorkerUnblockSignals();

    CridShared *s = shared();
    SpinLockAcquire(&s->status_lock);
    s->worker_pid = MyProcPid;
    bool database_missing = s->registry_database_missing;
    SpinLockRelease(&s->status_lock);
    s->worker_latch = MyLatch;
    before_shmem_exit(on_worker_exit, 0);

    if (crid::pg::fleet::remote()) {
        // A remote registry: the worker needs no database of this server.
        BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);
        pause_after_failed_workers();
        char detail[sizeof s->detail];
        std::snprintf(detail, sizeof detail, "connecting to %s (crid.registry)", crid::pg::fleet::registry_name());
        set_status(WorkerState::connecting, detail);
    } else {
        if (database_missing)
            wait_for_registry_database();
        pause_after_failed_workers();
        char detail[256];
        std::snprintf(detail, sizeof detail, "connecting to database \"%s\" (crid.registry_database)",
                      registry_database());
        set_status(WorkerState::connecting, detail);
        // A missing database is FATAL here (said once: the next worker
        // process waits for it without trying); ALLOW_CONNECTIONS false,
        // which the database's owner may set, is not.
        previous_emit_log_hook = emit_log_hook;
        emit_log_hook = note_missing_database;
        BackgroundWorkerInitializeConnection(registry_database(), nullptr, BGWORKER_BYPASS_ALLOWCONN);
        emit_log_hook = previous_emit_log_hook;
        set_status(WorkerState::serving, nullptr);
    }
    pin_settings();

    int64_t failures = 0;
    int64_t retry_at_ns = 0; // after a failure: no new attempt before then
    for (;;) {
        if (exit_wanted)
            exit_releasing_leases();
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
            failures = 0; // the reload may have fixed the cause
            retry_at_ns = 0;
        }
        int64_t now = crid::core::monotonic_ns();
        if (now >= retry_at_ns) {
            int64_t hold_ms = 0;
            bool ok = refill(hold_ms);
            // After a failure the worker pauses, growing up to 10 s, whatever
            // waiting backends do, so they cannot turn a broken registry
            // into a busy loop; a reload ends the pause. A registry that
            // holds reservations back names its own pause.
            if (hold_ms > 0) {
                retry_at_ns = now + hold_ms * crid::core::ns_per_ms;
            } else {
                failures = ok ? 0 : failures + 1;
                retry_at_ns = ok ? 0 : now + retry_backoff.delay_ms(failures) * crid::core::ns_per_ms;
            }
        }
        // Snowflake node leases: renewals are due on their own clock,
        // whatever the blocks do.
        (void)crid::pg::lease::tick();
        // Backends set the latch when their ids run low; the timeout covers
        // a missed wake-up and ends a pause.
        int64_t wake_ns = now + 1000 * crid::core::ns_per_ms;
        if (retry_at_ns > now && retry_at_ns < wake_ns)
            wake_ns = retry_at_ns;
        wake_ns = std::min(wake_ns, std::max(now, crid::pg::lease::due_ns()));
        int64_t left_ms = (wake_ns - crid::core::monotonic_ns() + crid::core::ns_per_ms - 1) / crid::core::ns_per_ms;
        if (exit_wanted)
            exit_releasing_leases();
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, long(left_ms < 1 ? 1 : left_ms),
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}
