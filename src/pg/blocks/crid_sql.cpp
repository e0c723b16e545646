// SQL functions of the crid family: crid_next() from the shared block server,
// the registry's argument checks, decoders and the eviction horizon.
#include "common/postgres_headers.hpp"

#include "common/boundary.hpp"
#include "blocks/crid_next.hpp"
#include "blocks/crid_settings.hpp"
#include "blocks/block_shared.hpp"
#include "registry/registry_settings.hpp"
#include "marks/registry_mark.hpp"
#include "module/shared_memory.hpp"
#include "common/args.hpp"

#include "core/clock.hpp"
#include "core/time_units.hpp"

extern "C" {
#include "access/htup_details.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/wait_event.h"
}

#include <cctype>

using namespace crid;
namespace ids = crid::core::crid_ids;

namespace {

// Wakes the worker when the published ids run low (a no-op while its latch
// is already set, so at most one wake-up per worker cycle).
void nudge_worker(pg::crid_ids::CridShared *s) {
    Latch *latch = s->worker_latch;
    if (latch)
        SetLatch(latch);
}

// True when process `pid` waits for a heavyweight lock now (the worker on a
// row or table lock of crid_allocations that another session holds).
bool waits_for_lock(int pid) {
    if (pid == 0)
        return false;
    PGPROC *proc = BackendPidGetProc(pid);
    return proc && (*static_cast<volatile uint32 *>(&proc->wait_event_info) & 0xFF000000) == PG_WAIT_LOCK;
}

// ERROR for a crid_next() that waited crid.allocation_timeout in vain, saying
// what the worker last reported, with a hint for that cause.
void raise_timeout(pg::crid_ids::CridShared *s) {
    pg_atomic_fetch_add_u64(&s->wait_timeouts, 1);
    char detail[sizeof s->detail];
    pg::crid_ids::WorkerState state;
    int pid;
    SpinLockAcquire(&s->status_lock);
    state = s->state;
    pid = s->worker_pid;
    std::memcpy(detail, s->detail, sizeof detail);
    SpinLockRelease(&s->status_lock);
    const char *database = pg::crid_ids::registry_database();
    const char *registry = pg::fleet::registry_name();
    bool remote = pg::fleet::remote();
    uint64 round_started = pg_atomic_read_u64(&s->round_started_ns);
    int64_t round_ms = round_started ? (core::monotonic_ns() - int64_t(round_started)) / core::ns_per_ms : 0;
    const char *why;
    char hint[512];
    char why_text[256];
    using pg::crid_ids::WorkerState;
    if (remote && round_ms >= 1000) {
        std::snprintf(why_text, sizeof why_text, "%s has not answered the crid background worker for %lld ms", registry,
                      static_cast<long long>(round_ms));
        why = why_text;
        std::snprintf(hint, sizeof hint,
                      "The worker gives the connection up after crid.registry_timeout (%d ms) and connects again; "
                      "check the registry server (its load, locks on the registry table, the network).",
                      pg::fleet::registry_timeout_ms());
    } else if (remote && state == WorkerState::unreachable) {
        std::snprintf(why_text, sizeof why_text, "the crid background worker cannot reach %s", registry);
        why = why_text;
        std::snprintf(hint, sizeof hint,
                      "Check crid.registry (host, port, dbname, user), that the registry server runs and its "
                      "pg_hba.conf lets this server in, and the password (in ~/.pgpass of this server's OS user). "
                      "The worker connects again with a growing pause.");
    } else if (waits_for_lock(pid)) {
        why = "the crid background worker is waiting for a lock in the registry database";
        std::snprintf(hint, sizeof hint,
                      "A session in database \"%s\" holds a lock on crid_allocations (or its rows) that the worker "
                      "needs: see pg_locks and pg_stat_activity there, and end that transaction.",
                      database);
    } else if (state == WorkerState::not_started) {
        why = "the crid background worker has not started";
        std::snprintf(hint, sizeof hint,
                      "It starts once the server accepts connections; if it does not, every background worker slot "
                      "may be taken (max_worker_processes).");
    } else if (pid == 0) {
        why = "the crid background worker is not running";
        std::snprintf(hint, sizeof hint,
                      "The postmaster starts it again, after a pause that grows while it keeps failing; the server "
                      "log of the \"crid block reserver\" says why it stopped.");
    } else if (state == WorkerState::no_database) {
        why = "the registry database does not exist";
        std::snprintf(hint, sizeof hint,
                      "Create database \"%s\" and run CREATE EXTENSION crid in it, or set crid.registry_database "
                      "to the database that has the registry and restart the server.",
                      database);
    } else if (state == WorkerState::connecting && remote) {
        why = "the crid background worker is still connecting to the registry";
        std::snprintf(hint, sizeof hint,
                      "It connects to %s (crid.registry); crid_next() works again as soon as it "
                      "reserves a block.",
                      registry);
    } else if (state == WorkerState::connecting) {
        why = "the crid background worker is still connecting to the registry database";
        std::snprintf(hint, sizeof hint,
                      "If it keeps failing, the server log of the \"crid block reserver\" says why; crid_next() "
                      "works again as soon as it reserves a block.");
    } else if (state == WorkerState::no_extension) {
        why = remote ? "the registry does not have the crid extension"
                     : "the registry database does not have the crid extension";
        std::snprintf(hint, sizeof hint,
                      "Run CREATE EXTENSION crid in %s, or point crid.registry_table at a registry table there.",
                      registry);
    } else if (state == WorkerState::bad_table) {
        why = "crid.registry_table does not name a registry table";
        std::snprintf(hint, sizeof hint,
                      "The registry table needs the columns ts bigint and next_seq bigint NOT NULL and a primary key "
                      "on ts, as the Go crid library's EnsureSchema creates it. Create it, or set crid.registry_table "
                      "to the table the Go services use, and restart the server.");
    } else if (state == WorkerState::outdated) {
        why = "the registry has an older crid";
        std::snprintf(hint, sizeof hint,
                      "crid 0.3.0 checks every reservation against the registry's state: run ALTER EXTENSION crid "
                      "UPDATE in %s (or, on a registry without crid, its script crid_registry_server.sql again).",
                      registry);
    } else if (state == WorkerState::held_back) {
        why = "the registry changed, and reservations wait until its clock passes the seconds it may have lost";
        std::snprintf(hint, sizeof hint,
                      "The registry was truncated, re-created, restored or failed over; crid_next() works again "
                      "within about two seconds of %s's clock, or sooner with a larger crid.allocation_timeout.",
                      registry);
    } else if (state == WorkerState::failing) {
        why = "the crid background worker could not reserve a block";
        std::snprintf(hint, sizeof hint,
                      "The worker retries with a growing pause; the detail is its last error. A reload "
                      "(pg_reload_conf()) makes it retry at once.");
    } else {
        why = "the crid background worker did not reserve a block in time";
        std::snprintf(hint, sizeof hint,
                      "%s answered too slowly: check its load and the worker's wait in pg_stat_activity, or raise "
                      "crid.allocation_timeout.",
                      registry);
        hint[0] = char(std::toupper(static_cast<unsigned char>(hint[0])));
    }
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("crid_next: no block within crid.allocation_timeout (%d ms): %s",
                           pg::crid_ids::allocation_timeout_ms(), why),
                    detail[0] ? errdetail("%s.", detail) : 0, errhint("%s", hint)));
}

// Waits for the worker to publish a block, then takes an id with `take`.
template <class Take>
int64_t take_after_waiting(pg::crid_ids::CridShared *s, Take &&take) {
    pg_atomic_fetch_add_u64(&s->sync_waits, 1);
    int64_t deadline_us =
        core::monotonic_ns() / core::ns_per_us + int64_t(pg::crid_ids::allocation_timeout_ms()) * 1000;
    ConditionVariablePrepareToSleep(&s->block_published);
    for (;;) {
        ids::Result r = take();
        if (r.kind == ids::Result::Kind::id) {
            ConditionVariableCancelSleep();
            return r.id;
        }
        nudge_worker(s);
        int64_t left_us = deadline_us - core::monotonic_ns() / core::ns_per_us;
        if (left_us <= 0) {
            ConditionVariableCancelSleep();
            raise_timeout(s);
        }
        (void)ConditionVariableTimedSleep(&s->block_published, left_us > 100000 ? 100 : left_us / 1000 + 1,
                                          PG_WAIT_EXTENSION);
    }
}

const ids::Layout &layout() { return pg::crid_ids::layout(); }

} // namespace

namespace crid::pg::crid_ids {

// The one path of crid_next() and crid_next(gene, bits): the refusals, one
// take from the shared block server in steady state, a wait (up to
// crid.allocation_timeout) only when every reserved id is used up.
int64_t next_id(const core::BitField *gene, uint64_t value) {
    pg::require_minting("crid", "crid_next", "its background worker reserves the blocks. Decoding works without it.");
    CridShared *s = shared();
    if (pg_atomic_read_u32(&s->mark_refusal) != uint32(pg::Refusal::none))
        registry_mark::raise_refusal(s);
    auto take = [&] { return gene ? s->server.take_with_gene(*gene, value) : s->server.take(); };
    ids::Result r = take();
    if (r.kind != ids::Result::Kind::id)
        return take_after_waiting(s, take);
    if (s->server.remaining() < pg_atomic_read_u64(&s->wake_below))
        nudge_worker(s);
    return r.id;
}

} // namespace crid::pg::crid_ids

extern "C" {

PG_FUNCTION_INFO_V1(crid_next);
PG_FUNCTION_INFO_V1(crid_check_allocation);
PG_FUNCTION_INFO_V1(crid_check_block_end);
PG_FUNCTION_INFO_V1(crid_to_timestamptz);
PG_FUNCTION_INFO_V1(crid_parse);
PG_FUNCTION_INFO_V1(crid_floor);
PG_FUNCTION_INFO_V1(crid_evict_horizon);

// crid_next(): one fetch_add on the shared ticket in steady state.
Datum crid_next(PG_FUNCTION_ARGS) { PG_RETURN_INT64(pg::crid_ids::next_id(nullptr, 0)); }

// crid_check_allocation(ts, block_size): crid_allocate's argument checks.
Datum crid_check_allocation(PG_FUNCTION_ARGS) {
    int64_t ts = PG_GETARG_INT64(0), size = PG_GETARG_INT64(1);
    const ids::Layout &l = layout();
    pg::guarded([&] { ids::check_allocation(l, ts, size); });
    PG_RETURN_VOID();
}

// crid_check_block_end(ts, next_seq): the block must end inside the second.
Datum crid_check_block_end(PG_FUNCTION_ARGS) {
    int64_t ts = PG_GETARG_INT64(0), end = PG_GETARG_INT64(1);
    const ids::Layout &l = layout();
    pg::guarded([&] { ids::check_block_end(l, ts, end); });
    PG_RETURN_VOID();
}

// crid_to_timestamptz(id): the second its block was reserved in.
Datum crid_to_timestamptz(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    const ids::Layout &l = layout();
    int64_t ms = pg::guarded([&] { return ids::unix_ms_of_ts(l, ids::unpack(l, id).ts); });
    PG_RETURN_TIMESTAMPTZ(pg::timestamptz_from_unix_ms(ms));
}

// crid_parse(id) -> (ts timestamptz, sequence, registry_ts)
Datum crid_parse(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    const ids::Layout &l = layout();
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("crid_parse must return a record")));
    ids::Parts p;
    int64_t ms = pg::guarded([&] {
        p = ids::unpack(l, id);
        return ids::unix_ms_of_ts(l, p.ts);
    });
    Datum values[3] = {TimestampTzGetDatum(pg::timestamptz_from_unix_ms(ms)), Int64GetDatum(p.seq),
                       Int64GetDatum(p.ts)};
    bool nulls[3] = {false, false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

// crid_floor(at): the smallest id of at's second.
Datum crid_floor(PG_FUNCTION_ARGS) {
    int64_t at = pg::finite_timestamp_arg(fcinfo, 0, "crid_floor");
    const ids::Layout &l = layout();
    PG_RETURN_INT64(pg::guarded([&] { return ids::floor_id(l, core::unix_ms_from_pg_us_floor(at)); }));
}

// crid_evict_horizon(before): the registry ts below which crid_evict may
// delete; ERROR when `before` is newer than now - crid.evict_min_age.
Datum crid_evict_horizon(PG_FUNCTION_ARGS) {
    int64_t before = pg::finite_timestamp_arg(fcinfo, 0, "crid_evict");
    const ids::Layout &l = layout();
    int64_t now_ms = core::wall_clock_ns() / core::ns_per_ms;
    int64_t safety = pg::crid_ids::evict_min_age_s();
    PG_RETURN_INT64(
        pg::guarded([&] { return ids::evict_bound_ts(l, core::unix_ms_from_pg_us_floor(before), now_ms, safety); }));
}

} // extern "C"
