#include "blocks/block_shared.hpp"

extern "C" {
#include "storage/shmem.h"
}

namespace crid::pg::crid_ids {

namespace {
BlockShared *state = nullptr;
TimeoutExplainer explainer = nullptr;
} // namespace

void request_blocks() { RequestAddinShmemSpace(sizeof(BlockShared)); }

void startup_blocks() {
    bool found = false;
    state = static_cast<BlockShared *>(ShmemInitStruct("crid blocks", sizeof(BlockShared), &found));
    if (found)
        return;
    std::memset(static_cast<void *>(state), 0, sizeof(BlockShared));
    state->server.reset();
    ConditionVariableInit(&state->block_published);
    state->filler_latch = nullptr;
    for (pg_atomic_uint64 *c :
         {&state->wake_below, &state->sync_waits, &state->wait_timeouts, &state->blocks_reserved, &state->ids_reserved})
        pg_atomic_init_u64(c, 0);
}

BlockShared *shared() noexcept { return state; }

void wake_filler() {
    Latch *latch = state ? state->filler_latch : nullptr;
    if (latch)
        SetLatch(latch);
}

void set_timeout_explainer(TimeoutExplainer e) { explainer = e; }
TimeoutExplainer timeout_explainer() { return explainer; }

} // namespace crid::pg::crid_ids
