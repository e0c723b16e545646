#include "blocks/block_shared.hpp"

#include "marks/registry_mark.hpp"

#include <cstdio>

namespace crid::pg::crid_ids {

namespace {
CridShared *state = nullptr;
}

CridShared *shared() noexcept { return state; }

Size shared_size() { return sizeof(CridShared); }

void init_shared(CridShared *memory, LWLock *mark_lock) {
    std::memset(static_cast<void *>(memory), 0, sizeof(CridShared));
    memory->server.reset();
    ConditionVariableInit(&memory->block_published);
    memory->worker_latch = nullptr;
    pg_atomic_init_u64(&memory->wake_below, 0);
    SpinLockInit(&memory->status_lock);
    memory->state = WorkerState::not_started;
    memory->worker_pid = 0;
    memory->detail[0] = '\0';
    for (pg_atomic_uint64 *c :
         {&memory->blocks_reserved, &memory->ids_reserved, &memory->registry_failures, &memory->registry_commits,
          &memory->registry_us_total, &memory->registry_us_max, &memory->sync_waits, &memory->wait_timeouts,
          &memory->registry_regressions, &memory->registry_round_trips, &memory->registry_last_us,
          &memory->round_started_ns, &memory->registry_connects})
        pg_atomic_init_u64(c, 0);
    pg_atomic_init_u32(&memory->registry_connected, 0);
    memory->worker_failures = 0;
    memory->registry_database_missing = false;
    memory->mark_lock = mark_lock;
    registry_mark::load_at_start(memory);
}

void attach(CridShared *memory) noexcept { state = memory; }

void set_status(WorkerState new_state, const char *detail) {
    SpinLockAcquire(&state->status_lock);
    state->state = new_state;
    std::snprintf(state->detail, sizeof state->detail, "%s", detail ? detail : "");
    SpinLockRelease(&state->status_lock);
}

} // namespace crid::pg::crid_ids
