#include "module/shared_memory.hpp"

#include "common/pg_compat.hpp"

#include "common/postgres_headers.hpp"

#include "crid_ids/block_shared.hpp"
#include "common/minting.hpp"
#include "marks/high_water.hpp"
#include "marks/registry_mark.hpp"
#include "registry/registry_settings.hpp"
#include "worker/worker_shared.hpp"
#include "snowflake/mint_counts.hpp"
#include "snowflake/node_fence.hpp"
#include "snowflake/node_words.hpp"
#include "snowflake/snowflake_settings.hpp"
#include "uuidv7/server_clock.hpp"

extern "C" {
#include "storage/ipc.h"
#include "storage/lwlock.h"
}

namespace crid::pg {

namespace {

shmem_request_hook_type previous_request_hook = nullptr;
shmem_startup_hook_type previous_startup_hook = nullptr;

void request_shared_memory() {
    if (previous_request_hook)
        previous_request_hook();
    marks::request_high_water();
    marks::request_registry_mark();
    uuidv7::request_clock();
    snowflake::request_words();
    snowflake::request_mint_counts();
    snowflake::request_fence();
    crid_ids::request_blocks();
    worker::request_status();
}

// The families' words follow the high-water mark when it moves other than
// ahead of their ids (WAL replay, crid_accept_layout, crid_reset_high_water).
void raise_words(int64_t unix_ms, bool exactly) {
    snowflake::raise_all_words(unix_ms, exactly);
    uuidv7::raise_clock(unix_ms, exactly);
}

// The marks first: every family's words start above them, so no id repeats
// across a restart or crash. Nothing here may stop the server because of
// what is on disk: history that disagrees with the settings, or a damaged
// file, stops only the minting that depends on it (a WARNING here, ERROR
// 55000 for each caller until a superuser resolves it).
void start_shared_memory() {
    if (previous_startup_hook)
        previous_startup_hook();
    compat::register_wait_events();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    char layout_text[256];
    snowflake::server_layout_text(layout_text);
    int64_t mark_ms = marks::startup_high_water(layout_text);
    marks::listen(raise_words);
    marks::startup_registry_mark();
    uuidv7::startup_clock(mark_ms);
    snowflake::startup_words(mark_ms);
    snowflake::startup_mint_counts();
    // A server that mints only for the nodes it holds mints nothing until
    // its worker holds them: decided here, before any backend can mint.
    snowflake::startup_fence(registry::remote() || snowflake::node_id_is_lease());
    crid_ids::startup_blocks();
    worker::startup_status();
    LWLockRelease(AddinShmemInitLock);
    set_preloaded();
}

} // namespace

void install_shared_memory_hooks() {
    previous_request_hook = shmem_request_hook;
    shmem_request_hook = request_shared_memory;
    previous_startup_hook = shmem_startup_hook;
    shmem_startup_hook = start_shared_memory;
}

} // namespace crid::pg
