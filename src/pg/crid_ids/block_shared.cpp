#include "crid_ids/block_shared.hpp"

#include "common/shared_struct.hpp"

namespace crid::pg::crid_ids {

namespace {
BlockShared *state = nullptr;
TimeoutExplainer explainer = nullptr;
} // namespace

void request_blocks() { RequestAddinShmemSpace(sizeof(BlockShared)); }

void startup_blocks() {
    bool created = false;
    state = shared_struct<BlockShared>("crid blocks", created);
    if (!created)
        return;
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
