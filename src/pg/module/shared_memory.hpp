// crid's shared memory, which exists only when crid is in
// shared_preload_libraries. Each module owns its part (its struct, its
// size, how it starts); this file only asks each for its size and starts
// them in order, in the postmaster at start and after every crash.
#pragma once

namespace crid::pg {

// Chains shmem_request_hook / shmem_startup_hook; called from _PG_init.
void install_shared_memory_hooks();

} // namespace crid::pg
