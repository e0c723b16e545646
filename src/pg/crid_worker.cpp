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

// Seconds since crid.epoch now, never before min_next_ts.
int64_t reservation_ts() {
    const core::crid_ids::Layout &l = layout();
    int64_t now_ms = core::wall_clock_ns() / core::ns_per_ms;
    int64_t ts = pg::guarded([&] { return core::crid_ids::ts_of_unix_ms(l, now_ms); });
    return ts > min_next_ts ? ts : min_next_ts;
}

// The schema crid is installed in, quoted, or false when it is not installed.
// Runs inside the worker's transaction.
bool extension_schema(char *out, size_t size) {
    if (SPI_execute("SELECT quote_ident(n.nspname) FROM pg_catalog.pg_extension e "
                    "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'crid'",
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
        result = error->sqlerrcode == ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE && strstr(error->message, "sequence overflow")
                     ? Attempt::sequence_overflow
                     : Attempt::failed;
        FreeErrorData(error);
        set_status(WorkerState::failing, detail);
        pg_atomic_fetch_add_u64(&shared()->registry_failures, 1);
        ereport(LOG, (errmsg("crid: could not reserve a block: %s", detail)));
    }
    PG_END_TRY();
    return result;
}

// Reserves and publishes blocks while the server runs low. Returns false when
// an attempt failed, so the caller waits before trying again.
bool refill() {
    CridShared *s = shared();
    const core::crid_ids::Layout &l = layout();
    int64_t size = block_size();
    uint64_t waits = pg_atomic_read_u64(&s->sync_waits);
    if (waits != waits_seen)
        extra_blocks = std::min(extra_blocks + 4, max_extra_blocks);
    waits_seen = waits;
    int64_t low = threshold() + extra_blocks * size;
    pg_atomic_write_u64(&s->wake_below, uint64(low));
    while (s->server.needs_block(low)) {
        // As many blocks as reach the target, in one commit.
        int64_t missing = low - int64_t(s->server.remaining());
        int count = int(missing > size ? (missing + size - 1) / size : 1);
        if (count > max_blocks_per_commit)
            count = max_blocks_per_commit;
        // Never reserve a block the ring cannot publish (it would be a gap).
        int room = int(std::min<uint64_t>(s->server.room(), uint64_t(max_blocks_per_commit)));
        if (count > room)
            count = room;
        if (count == 0)
            break;
        int64_t ts = reservation_ts();
        int64_t starts[max_blocks_per_commit];
        int64_t t0 = core::wall_clock_ns();
        Attempt a = reserve(ts, size, count, starts);
        int64_t us = (core::wall_clock_ns() - t0) / core::ns_per_us;
        if (a == Attempt::sequence_overflow) {
            min_next_ts = ts + 1; // that second is used up; the next one is not
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
        for (int i = 0; i < count; ++i) {
            // A block the ring has no room for is a gap, never reused; with
            // count capped to the ring's room this does not happen.
            bool published = pg::guarded([&] {
                core::crid_ids::Block b = core::crid_ids::block_of_allocation(l, ts, size, starts[i] + size);
                return s->server.publish(b.first_id, b.size);
            });
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
    set_status(WorkerState::serving, nullptr);

    for (;;) {
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
        bool ok = refill();
        // Backends set the latch when their ids run low; the timeout retries
        // a failed reservation and covers a missed wake-up.
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, ok ? 1000 : 200, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}
