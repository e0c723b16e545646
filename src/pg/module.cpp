// Module entry point: settings, and shared memory when preloaded.
#include "postgres_headers.hpp"

#include "shared_memory.hpp"

extern "C" {

PG_MODULE_MAGIC;

void _PG_init(void);

// Only PostgreSQL calls run here, none of which throws, so no guard is needed;
// code added here that calls C++ must go through guarded().
void _PG_init(void) {
    if (process_shared_preload_libraries_in_progress)
        crid::pg::install_shared_memory_hooks();
    MarkGUCPrefixReserved("crid");
}

} // extern "C"
