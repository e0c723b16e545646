#include "shared_memory.hpp"

namespace crid::pg {

namespace {

SharedState *state = nullptr;
bool preloaded = false;
shmem_request_hook_type previous_request_hook = nullptr;
shmem_startup_hook_type previous_startup_hook = nullptr;

void request_shared_memory() {
    if (previous_request_hook)
        previous_request_hook();
    RequestAddinShmemSpace(MAXALIGN(sizeof(SharedState)));
}

void attach_shared_memory() {
    if (previous_startup_hook)
        previous_startup_hook();
    bool found;
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    state = static_cast<SharedState *>(ShmemInitStruct("crid", sizeof(SharedState), &found));
    if (!found)
        pg_atomic_init_u64(&state->uuidv7_tick, 0);
    LWLockRelease(AddinShmemInitLock);
}

} // namespace

SharedState *shared_state() noexcept { return state; }

bool crid_preloaded() noexcept { return preloaded; }

void install_shared_memory_hooks() {
    preloaded = true;
    previous_request_hook = shmem_request_hook;
    shmem_request_hook = request_shared_memory;
    previous_startup_hook = shmem_startup_hook;
    shmem_startup_hook = attach_shared_memory;
}

} // namespace crid::pg
