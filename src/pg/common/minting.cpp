#include "common/minting.hpp"

extern "C" {
#include "access/twophase.h"
#include "access/xlog.h"
#include "storage/proc.h"
}

namespace crid::pg {

namespace {
bool shared_memory_built = false;
}

void set_preloaded() noexcept { shared_memory_built = true; }
bool preloaded() noexcept { return shared_memory_built; }

uint64_t process_slot_count() noexcept { return uint64_t(MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts); }

void require_minting(const char *family, const char *what, const char *preload_hint) {
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s ids cannot be minted during recovery", family),
                        errhint("Mint on the primary; a promoted standby mints once recovery ends (snowflake ids "
                                "with a crid.node_id of its own).")));
    if (!shared_memory_built)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s needs crid in shared_preload_libraries", what),
                        errhint("Add crid to shared_preload_libraries in postgresql.conf and restart the server; %s",
                                preload_hint)));
}

} // namespace crid::pg
