#include "marks/high_water_keeper.hpp"

#include "common/pg_compat.hpp"

#include "common/background_worker.hpp"
#include "marks/high_water.hpp"

extern "C" {
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "tcop/tcopprot.h"
#include "storage/latch.h"
#include "utils/wait_event.h"
}

#include <cstdio>

namespace crid::pg::marks {

namespace {

void forget_latch(int, Datum) { set_keeper_latch(nullptr); }

} // namespace

void register_keeper() {
    // It writes WAL (high_water_wal.hpp), which only a server out of
    // recovery may; until then nothing mints either.
    register_background_worker("crid_high_water_keeper_main", "crid high-water keeper", BGWORKER_SHMEM_ACCESS);
}

} // namespace crid::pg::marks

// Only PostgreSQL calls run here; a failed write is an ERROR that ends the
// worker, and the postmaster starts it again a second later (meanwhile
// minting backends write the mark themselves when they must).
void crid_high_water_keeper_main(Datum) {
    pqsignal(SIGHUP, SignalHandlerForConfigReload);
    pqsignal(SIGTERM, die);
    BackgroundWorkerUnblockSignals();
    before_shmem_exit(crid::pg::marks::forget_latch, 0);
    crid::pg::marks::set_keeper_latch(MyLatch);
    for (;;) {
        if (ConfigReloadPending) {
            ConfigReloadPending = false;
            ProcessConfigFile(PGC_SIGHUP);
        }
        crid::pg::marks::move_ahead();
        // A request sets the latch; the timeout covers one that came between
        // move_ahead() and the wait.
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100,
                        crid::pg::compat::wait_event_info(crid::pg::compat::Wait::high_water_keeper));
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}
