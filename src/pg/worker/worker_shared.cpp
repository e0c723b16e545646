#include "worker/worker_shared.hpp"

#include "common/shared_struct.hpp"
#include "registry/registry_settings.hpp"

#include <cstdio>

namespace crid::pg::worker {

namespace {

WorkerStatus *shared = nullptr;

// The last condition logged (in the worker process).
WorkerState logged_state = WorkerState::serving;
int logged_sqlstate = 0;

} // namespace

void request_status() { RequestAddinShmemSpace(sizeof(WorkerStatus)); }

void startup_status() {
    bool created = false;
    shared = shared_struct<WorkerStatus>("crid block reserver", created);
    if (!created)
        return;
    SpinLockInit(&shared->lock);
    shared->state = WorkerState::not_started;
    for (pg_atomic_uint64 *c :
         {&shared->failures, &shared->commits, &shared->us_total, &shared->us_max, &shared->regressions,
          &shared->round_trips, &shared->last_us, &shared->round_started_ns, &shared->connects})
        pg_atomic_init_u64(c, 0);
    pg_atomic_init_u32(&shared->connected, 0);
}

WorkerStatus *status() noexcept { return shared; }

StateNow state_now() {
    StateNow now;
    SpinLockAcquire(&shared->lock);
    now.state = shared->state;
    now.worker_pid = shared->worker_pid;
    std::memcpy(now.detail, shared->detail, sizeof now.detail);
    SpinLockRelease(&shared->lock);
    now.detail[sizeof now.detail - 1] = '\0';
    return now;
}

void set_state(WorkerState state, const char *detail) {
    SpinLockAcquire(&shared->lock);
    shared->state = state;
    std::snprintf(shared->detail, sizeof shared->detail, "%s", detail ? detail : "");
    SpinLockRelease(&shared->lock);
}

void report(WorkerState state, int sqlstate, const char *detail) {
    set_state(state, detail);
    if (state == WorkerState::serving) {
        if (logged_state != WorkerState::serving)
            ereport(LOG, (errmsg("crid: reserving blocks again in %s", registry::registry_name())));
        logged_state = state;
        logged_sqlstate = 0;
        return;
    }
    if (state == logged_state && sqlstate == logged_sqlstate)
        return;
    logged_state = state;
    logged_sqlstate = sqlstate;
    if (state == WorkerState::held_back) {
        ereport(LOG, (errmsg("crid: reservations wait: %s", detail ? detail : "the registry holds them back")));
        return;
    }
    ereport(LOG, (errmsg("crid: could not reserve a block: %s", detail ? detail : "unknown reason"),
                  errdetail("The worker tries again with a pause that grows up to 10 s; this is logged again only "
                            "when the cause changes.")));
}

void note_registry_clock(int64 offset_ms, int64 uncertainty_ms, int64 max_skew_ms, int64 measured_unix_ms) {
    SpinLockAcquire(&shared->lock);
    RegistryClock &c = shared->clock;
    c.measured = true;
    c.offset_ms = offset_ms;
    c.uncertainty_ms = uncertainty_ms < 0 ? 0 : uncertainty_ms; // this server's clock stepped meanwhile
    c.max_skew_ms = max_skew_ms;
    c.measured_unix_ms = measured_unix_ms;
    SpinLockRelease(&shared->lock);
}

void note_registry_names(const char *registry_table, const char *state_table) {
    SpinLockAcquire(&shared->lock);
    RegistryClock &c = shared->clock;
    std::snprintf(c.registry_table, sizeof c.registry_table, "%s", registry_table);
    std::snprintf(c.state_table, sizeof c.state_table, "%s", state_table);
    SpinLockRelease(&shared->lock);
}

RegistryClock registry_clock() {
    SpinLockAcquire(&shared->lock);
    RegistryClock c = shared->clock;
    SpinLockRelease(&shared->lock);
    return c;
}

void add_stats(StatsRows &rows) {
    rows.add("crid", -1, "registry_commits", pg_atomic_read_u64(&shared->commits));
    rows.add("crid", -1, "registry_failures", pg_atomic_read_u64(&shared->failures));
    rows.add("crid", -1, "registry_us_total", pg_atomic_read_u64(&shared->us_total));
    rows.add("crid", -1, "registry_us_max", pg_atomic_read_u64(&shared->us_max));
    rows.add("crid", -1, "registry_regressions", pg_atomic_read_u64(&shared->regressions));
    rows.add("crid", -1, "registry_round_trips", pg_atomic_read_u64(&shared->round_trips));
    rows.add("crid", -1, "registry_last_us", pg_atomic_read_u64(&shared->last_us));
    rows.add("crid", -1, "registry_connected", pg_atomic_read_u32(&shared->connected));
    rows.add("crid", -1, "registry_connects", pg_atomic_read_u64(&shared->connects));
}

} // namespace crid::pg::worker
