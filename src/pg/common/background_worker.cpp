#include "common/background_worker.hpp"

extern "C" {
#include "postmaster/bgworker.h"
}

#include <cstdio>

namespace crid::pg {

void register_background_worker(const char *entry, const char *name, int flags) {
    BackgroundWorker worker;
    std::memset(&worker, 0, sizeof worker);
    worker.bgw_flags = flags;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = 1;
    std::snprintf(worker.bgw_library_name, BGW_MAXLEN, "crid");
    std::snprintf(worker.bgw_function_name, BGW_MAXLEN, "%s", entry);
    std::snprintf(worker.bgw_name, BGW_MAXLEN, "%s", name);
    std::snprintf(worker.bgw_type, BGW_MAXLEN, "%s", name);
    RegisterBackgroundWorker(&worker);
}

} // namespace crid::pg
