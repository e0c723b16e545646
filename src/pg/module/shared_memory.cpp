#include "module/shared_memory.hpp"

extern "C" {
#include "access/twophase.h"
#include "access/xlog.h"
#include "storage/proc.h"
}

#include "blocks/block_shared.hpp"
#include "marks/high_water.hpp"
#include "snowflake/node_fence.hpp"
#include "snowflake/snowflake_settings.hpp"

#include "core/clock.hpp"
#include "core/uuidv7_clock.hpp"

namespace crid::pg {

namespace {

SharedState *state = nullptr;
SnowflakeNodeSlot *slots = nullptr;
shmem_request_hook_type previous_request_hook = nullptr;
shmem_startup_hook_type previous_startup_hook = nullptr;

constexpr const char *lock_tranche = "crid";
constexpr int lock_count = 2; // the high-water file, the registry mark file

Size slots_size() { return mul_size(sizeof(SnowflakeNodeSlot), Size(snowflake_slot_count())); }

void request_shared_memory() {
    if (previous_request_hook)
        previous_request_hook();
    RequestAddinShmemSpace(add_size(add_size(sizeof(SharedState), slots_size()), crid_ids::shared_size()));
    RequestAddinShmemSpace(lease::shared_size());
    RequestNamedLWLockTranche(lock_tranche, lock_count);
}

// Runs in the postmaster at start and after every crash: the snowflake words
// start from the high-water mark on disk and the crid block server starts
// empty, above the registry mark, so no id repeats across either. Nothing
// here may stop the server because of what is on disk.
void attach_shared_memory() {
    if (previous_startup_hook)
        previous_startup_hook();
    bool found_state, found_slots;
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    state = static_cast<SharedState *>(ShmemInitStruct("crid", sizeof(SharedState), &found_state));
    slots = static_cast<SnowflakeNodeSlot *>(ShmemInitStruct("crid snowflake nodes", slots_size(), &found_slots));
    bool found_blocks;
    auto *blocks = static_cast<crid_ids::CridShared *>(
        ShmemInitStruct("crid registry blocks", crid_ids::shared_size(), &found_blocks));
    LWLockPadded *locks = GetNamedLWLockTranche(lock_tranche);
    if (!found_blocks)
        crid_ids::init_shared(blocks, &locks[1].lock);
    crid_ids::attach(blocks);
    bool found_leases;
    auto *leases = static_cast<lease::LeaseShared *>(
        ShmemInitStruct("crid snowflake node leases", lease::shared_size(), &found_leases));
    if (!found_leases)
        lease::init_shared(leases);
    lease::attach(leases);
    if (!found_state) {
        state->snowflake_persist_lock = &locks[0].lock;
        pg_atomic_init_u64(&state->snowflake_persists, 0);
        pg_atomic_init_u64(&state->mark_keeper_persists, 0);
        pg_atomic_init_u32(&state->mark_wanted, 0);
        state->mark_keeper_latch = nullptr;
        // History that disagrees with the settings, or a damaged file, stops
        // only the minting that depends on it: a WARNING here, ERROR 55000
        // for each caller until a superuser resolves it.
        int64_t high_water = high_water::load_at_start(state);
        pg_atomic_init_u64(&state->snowflake_persisted_ms, uint64(high_water < 0 ? 0 : high_water));
        // UUIDv7 resumes after the last tick of the mark's millisecond.
        uint64_t last_tick = high_water < 0 ? 0 : ((uint64_t(high_water) + 1) << core::uuidv7::fraction_bits) - 1;
        int64_t mono = core::monotonic_ns();
        state->uuidv7_clock.target.init(uint64_t(core::wall_clock_ns() - mono));
        state->uuidv7_clock.catchup.init(core::uuidv7::catchup_above(0, mono, last_tick));
        uint64_t start = high_water::snowflake_state_after_restart(high_water);
        for (int64_t i = 0; i < snowflake_slot_count(); ++i) {
            SnowflakeNodeSlot &s = slots[i];
            s.state.init(start);
            pg_atomic_init_u64(&s.minted, 0);
            pg_atomic_init_u64(&s.clock_waits, 0);
            pg_atomic_init_u64(&s.clock_borrows, 0);
            pg_atomic_init_u64(&s.clock_refusals, 0);
            pg_atomic_init_u64(&s.exhaustion_waits, 0);
        }
    }
    LWLockRelease(AddinShmemInitLock);
}

} // namespace

SharedState *shared_state() noexcept { return state; }

SnowflakeNodeSlot *snowflake_slots() noexcept { return slots; }

int64_t snowflake_slot_count() noexcept { return int64_t(1) << snowflake::server_layout().node_bits; }

uint64_t process_slot_count() noexcept { return uint64_t(MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts); }

void require_minting(const char *family, const char *what, const char *preload_hint) {
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s ids cannot be minted during recovery", family),
                        errhint("Mint on the primary; a promoted standby mints once recovery ends (snowflake ids "
                                "with a crid.node_id of its own).")));
    if (!state)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s needs crid in shared_preload_libraries", what),
                        errhint("Add crid to shared_preload_libraries in postgresql.conf and restart the server; %s",
                                preload_hint)));
}

void install_shared_memory_hooks() {
    previous_request_hook = shmem_request_hook;
    shmem_request_hook = request_shared_memory;
    previous_startup_hook = shmem_startup_hook;
    shmem_startup_hook = attach_shared_memory;
}

} // namespace crid::pg
