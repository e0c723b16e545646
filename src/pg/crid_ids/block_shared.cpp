#include "crid_ids/block_shared.hpp"

#include "common/shared_struct.hpp"
#include "marks/registry_mark.hpp"

#include "core/clock.hpp"
#include "core/time_units.hpp"

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
         {&state->wake_below, &state->sync_waits, &state->waited_ns, &state->wait_timeouts, &state->blocks_reserved,
          &state->ids_reserved, &state->block_size_now, &state->block_size_largest})
        pg_atomic_init_u64(c, 0);
}

BlockShared *shared() noexcept { return state; }

void wake_filler() {
    Latch *latch = state ? state->filler_latch : nullptr;
    if (latch)
        SetLatch(latch);
}

void wake_filler_for_waiter() {
    if (!state)
        return;
    pg_atomic_write_u64(&state->waited_ns, uint64(core::monotonic_ns()));
    wake_filler();
}

bool waiter_seen(int64_t now_ns) {
    // A waiting crid_next() turns at least every 100 ms (crid_next.cpp).
    constexpr int64_t window_ns = 500 * core::ns_per_ms;
    uint64 waited = state ? pg_atomic_read_u64(&state->waited_ns) : 0;
    return waited != 0 && now_ns - int64_t(waited) < window_ns;
}

void set_timeout_explainer(TimeoutExplainer e) { explainer = e; }
TimeoutExplainer timeout_explainer() { return explainer; }

void add_stats(StatsRows &rows) {
    uint64 reserved = pg_atomic_read_u64(&state->ids_reserved);
    uint64 unserved = state->server.remaining();
    rows.add("crid", -1, "ids_served", reserved > unserved ? reserved - unserved : 0);
    rows.add("crid", -1, "blocks_reserved", pg_atomic_read_u64(&state->blocks_reserved));
    rows.add("crid", -1, "ids_reserved", reserved);
    rows.add("crid", -1, "ids_unserved", unserved);
    rows.add("crid", -1, "reserve_target", pg_atomic_read_u64(&state->wake_below));
    rows.add("crid", -1, "block_size_now", pg_atomic_read_u64(&state->block_size_now));
    rows.add("crid", -1, "block_size_largest", pg_atomic_read_u64(&state->block_size_largest));
    rows.add("crid", -1, "sync_waits", pg_atomic_read_u64(&state->sync_waits));
    rows.add("crid", -1, "wait_timeouts", pg_atomic_read_u64(&state->wait_timeouts));
    rows.add("crid", -1, "registry_mark_damaged", marks::registry_mark_refusal() == Refusal::mark_damaged);
}

} // namespace crid::pg::crid_ids
