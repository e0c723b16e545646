#include "crid_worker.hpp"

#include "boundary.hpp"
#include "crid_settings.hpp"
#include "crid_shared.hpp"

#include "../core/clock.hpp"
#include "../core/time_units.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "tcop/tcopprot.h"
#include "utils/snapmgr.h"
}

#include <algorithm>
#include <cstdio>

namespace crid::pg::crid_ids {

namespace {

// The earliest second the next reservation may use: after a second's
// sequences ran out, the worker moves on instead of asking for it again.
int64_t min_next_ts = 0;

// Blocks kept in reserve beyond crid.threshold. It grows by four each time
// backends had to wait for a block, up to most of the ring, so a server whose
// rate outruns one registry commit per threshold stops waiting after a few
// blocks. The price is a bigger gap after a crash, harmless in a 2^32
// sequence space.
int64_t extra_blocks = 0;
constexpr int64_t max_extra_blocks = int64_t(ring_blocks) - 4;
uint64_t waits_seen = 0;

// At most this many blocks are reserved in one transaction.
constexpr int max_blocks_per_commit = 8;

// Outcome of one reservation attempt.
enum class Attempt { reserved, no_extension, failed, sequence_overflow };

void forget_worker(int, Datum) {
    CridShared *s = shared();
    s->worker_latch = nullptr;
    SpinLockAcquire(&s->status_lock);
    s->worker_pid = 0;
    SpinLockRelease(&s->status_lock);
}

// Records a failure for waiting backends and the log; returns false.
bool fail(const char *why) {
    set_status(WorkerState::failing, why);
    pg_atomic_fetch_add_u64(&shared()->registry_failures, 1);
    ereport(LOG, (errmsg("crid: could not reserve a block: %s", why)));
    return false;
}

// Seconds since crid.epoch now, never before min_next_ts; false (with the
// reason in `error`) when the clock is outside the layout.
bool reservation_ts(const core::crid_ids::Layout &l, int64_t &ts, pg::CaughtError &error) {
    int64_t now_ms = core::wall_clock_ns() / core::ns_per_ms;
    if (!pg::attempt([&] { ts = core::crid_ids::ts_of_unix_ms(l, now_ms); }, error))
        return false;
    if (ts < min_next_ts)
        ts = min_next_ts;
    return true;
}

// The schema crid is installed in, quoted, or false when it is not installed.
// Runs inside the worker's transaction.
bool extension_schema(char *out, size_t size) {
    // Every name qualified (and search_path is pg_catalog, see the main loop):
    // the worker runs as a superuser, so an object another role created in a
    // schema on the path must never be picked up.
    if (SPI_execute("SELECT pg_catalog.quote_ident(n.nspname::pg_catalog.text) FROM pg_catalog.pg_extension e "
                    "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace "
                    "WHERE e.extname OPERATOR(pg_catalog.=) 'crid'::pg_catalog.name",
                    true, 1) != SPI_OK_SELECT ||
        SPI_processed != 1)
        return false;
    std::snprintf(out, size, "%s", SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
    return true;
}

// Reserves `count` blocks of `size` in second `ts`, each through its own
// crid_allocate() call (the registry protocol Go nodes speak), in one
// transaction that commits (and flushes) once; their starts go to `starts`.
// An ERROR is caught, recorded for waiting backends and reported as failed:
// the transaction rolls back, so nothing of it is published.
Attempt reserve(int64_t ts, int64_t size, int count, int64_t *starts) {
    MemoryContext caller_context = CurrentMemoryContext;
    volatile Attempt result = Attempt::failed;
    PG_TRY();
    {
        SetCurrentStatementStartTimestamp();
        StartTransactionCommand();
        SPI_connect();
        PushActiveSnapshot(GetTransactionSnapshot());
        pgstat_report_activity(STATE_RUNNING, "reserving crid blocks");
        char schema[NAMEDATALEN * 2 + 3];
        if (!extension_schema(schema, sizeof schema)) {
            result = Attempt::no_extension;
        } else {
            char query[NAMEDATALEN * 2 + 64];
            std::snprintf(query, sizeof query, "SELECT %s.crid_allocate($1, $2)", schema);
            Oid types[2] = {INT8OID, INT8OID};
            Datum values[2] = {Int64GetDatum(ts), Int64GetDatum(size)};
            for (int i = 0; i < count; ++i) {
                if (SPI_execute_with_args(query, 2, types, values, nullptr, false, 1) != SPI_OK_SELECT ||
                    SPI_processed != 1)
                    elog(ERROR, "crid_allocate returned no row");
                bool isnull;
                starts[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
            }
            result = Attempt::reserved;
        }
        SPI_finish();
        PopActiveSnapshot();
        CommitTransactionCommand();
        pgstat_report_activity(STATE_IDLE, nullptr);
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(caller_context);
        ErrorData *error = CopyErrorData();
        FlushErrorState();
        AbortCurrentTransaction();
        pgstat_report_activity(STATE_IDLE, nullptr);
        char detail[256];
        std::snprintf(detail, sizeof detail, "%s", error->message);
        // A full second is routine: the caller moves to a later one.
        bool overflow =
            error->sqlerrcode == ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE && strstr(error->message, "sequence overflow");
        FreeErrorData(error);
        if (overflow)
            result = Attempt::sequence_overflow;
        else
            fail(detail);
    }
    PG_END_TRY();
    return result;
}

// Reserves and publishes blocks while the server runs low. Returns false when
// an attempt failed, so the caller backs off before trying again.
bool refill() {
    CridShared *s = shared();
    const core::crid_ids::Layout &l = layout();
    int64_t size = block_size();
    pg::CaughtError error;
    if (!pg::attempt([&] { core::crid_ids::check_threshold(size, threshold()); }, error))
        return fail(error.message);
    uint64_t waits = pg_atomic_read_u64(&s->sync_waits);
    if (waits != waits_seen)
        extra_blocks = std::min(extra_blocks + 4, max_extra_blocks);
    waits_seen = waits;
    int64_t low = threshold() + extra_blocks * size;
    pg_atomic_write_u64(&s->wake_below, uint64(low));
    // Blocks of one second that still fit in one transaction; after a batch
    // overflowed its second, one at a time until the second changes.
    int64_t per_second = core::crid_ids::sequence_space(l) / size;
    int64_t batch_limit = std::min<int64_t>(max_blocks_per_commit, per_second);
    int64_t single_ts = -1;
    while (s->server.needs_block(low)) {
        int64_t ts;
        if (!reservation_ts(l, ts, error))
            return fail(error.message);
        if (!pg::attempt([&] { core::crid_ids::check_allocation(l, ts, size); }, error))
            return fail(error.message);
        // As many blocks as reach the target, as the ring can take, in one commit.
        int64_t missing = low - int64_t(s->server.remaining());
        int64_t count = missing > size ? (missing + size - 1) / size : 1;
        count = std::min<int64_t>({count, batch_limit, int64_t(s->server.room())});
        if (ts == single_ts)
            count = std::min<int64_t>(count, 1);
        if (count <= 0)
            break;
        int64_t starts[max_blocks_per_commit];
        int64_t t0 = core::wall_clock_ns();
        Attempt a = reserve(ts, size, int(count), starts);
        int64_t us = (core::wall_clock_ns() - t0) / core::ns_per_us;
        if (a == Attempt::sequence_overflow) {
            if (count > 1)
                single_ts = ts; // a single block may still fit in this second
            else
                min_next_ts = ts + 1; // this second is used up; the next one is not
            continue;
        }
        if (a == Attempt::no_extension) {
            char detail[256];
            std::snprintf(detail, sizeof detail, "extension \"crid\" is not installed in database \"%s\"",
                          registry_database());
            set_status(WorkerState::no_extension, detail);
            return false;
        }
        if (a != Attempt::reserved)
            return false;
        if (ts > min_next_ts)
            min_next_ts = ts;
        for (int64_t i = 0; i < count; ++i) {
            // The ring had room for `count` blocks, so publish() succeeds; a
            // block it refused anyway would be a gap, never reused.
            bool published = false;
            if (!pg::attempt(
                    [&] {
                        core::crid_ids::Block b = core::crid_ids::block_of_allocation(l, ts, size, starts[i] + size);
                        published = s->server.publish(b.first_id, b.size);
                    },
                    error))
                return fail(error.message);
            if (!published)
                break;
            pg_atomic_fetch_add_u64(&s->blocks_reserved, 1);
            pg_atomic_fetch_add_u64(&s->ids_reserved, uint64(size));
        }
        pg_atomic_fetch_add_u64(&s->registry_us_total, uint64(us));
        uint64 max = pg_atomic_read_u64(&s->registry_us_max);
        if (uint64(us) > max)
            pg_atomic_write_u64(&s->registry_us_max, uint64(us));
        pg_atomic_fetch_add_u64(&s->registry_commits, 1);
        set_status(WorkerState::serving, nullptr);
        ConditionVariableBroadcast(&s->block_published);
    }
    return true;
}

} // namespace

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
    pqsignal(SIGTERM, die);
    BackgroundWorkerUnblockSignals();

    CridShared *s = shared();
    char detail[256];
    std::snprintf(detail, sizeof detail, "connecting to database \"%s\" (crid.registry_database)", registry_database());
    set_status(WorkerState::connecting, detail);
    SpinLockAcquire(&s->status_lock);
    s->worker_pid = MyProcPid;
    SpinLockRelease(&s->status_lock);
    s->worker_latch = MyLatch;
    before_shmem_exit(forget_worker, 0);

    // A missing database is FATAL here; the status above then tells waiting
    // backends why, and the postmaster starts the worker again in a second.
    BackgroundWorkerInitializeConnection(registry_database(), nullptr, 0);
    // A reservation must be durable before any id of it is served: a commit
    // lost in a crash would hand the same block out again after the restart.
    SetConfigOption("synchronous_commit", "on", PGC_SUSET, PGC_S_OVERRIDE);
    // The worker is a superuser: resolve nothing through schemas other roles
    // can create objects in.
    SetConfigOption("search_path", "pg_catalog", PGC_SUSET, PGC_S_OVERRIDE);
    set_status(WorkerState::serving, nullptr);

    for (;;) {
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
        bool ok = refill();
        // Backends set the latch when their ids run low; the timeout covers a
        // missed wake-up. After a failure the worker backs off for 200 ms
        // whatever the backends do, so waiting callers cannot turn a broken
        // registry into a busy loop.
        int events = ok ? WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH : WL_TIMEOUT | WL_EXIT_ON_PM_DEATH;
        (void)WaitLatch(MyLatch, events, ok ? 1000 : 200, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}
