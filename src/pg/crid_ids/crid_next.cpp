// crid_next(): ids from the shared block server, one path for crid_next()
// and crid_next(gene, bits).
#include "crid_ids/crid_next.hpp"

#include "common/pg_compat.hpp"

#include "crid_ids/block_shared.hpp"
#include "crid_ids/crid_ids_settings.hpp"
#include "common/minting.hpp"
#include "marks/registry_mark.hpp"

extern "C" {
#include "utils/wait_event.h"
}

#include "core/clock.hpp"
#include "core/time_units.hpp"

namespace crid::pg::crid_ids {

namespace {

namespace ids = core::crid_ids;

// ERROR for a crid_next() that waited crid.allocation_timeout in vain,
// saying what the block reserver knows of the cause, with a hint for it.
[[noreturn]] void raise_timeout(BlockShared *s) {
    pg_atomic_fetch_add_u64(&s->wait_timeouts, 1);
    char why[256] = "no process reserves crid blocks", detail[512] = "", hint[512] = "";
    if (TimeoutExplainer explain = timeout_explainer())
        explain(why, sizeof why, detail, sizeof detail, hint, sizeof hint);
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("crid_next: no block within crid.allocation_timeout (%d ms): %s", allocation_timeout_ms(), why),
             detail[0] ? errdetail("%s.", detail) : 0, hint[0] ? errhint("%s", hint) : 0));
}

// Waits for the block reserver to publish a block, then takes an id with `take`.
template <class Take>
int64_t take_after_waiting(BlockShared *s, Take &&take) {
    pg_atomic_fetch_add_u64(&s->sync_waits, 1);
    int64_t deadline_us = core::monotonic_ns() / core::ns_per_us + int64_t(allocation_timeout_ms()) * 1000;
    ConditionVariablePrepareToSleep(&s->block_published);
    for (;;) {
        ids::Result r = take();
        if (r.kind == ids::Result::Kind::id) {
            ConditionVariableCancelSleep();
            return r.id;
        }
        wake_filler_for_waiter();
        int64_t left_us = deadline_us - core::monotonic_ns() / core::ns_per_us;
        if (left_us <= 0) {
            ConditionVariableCancelSleep();
            raise_timeout(s);
        }
        (void)ConditionVariableTimedSleep(&s->block_published, left_us > 100000 ? 100 : left_us / 1000 + 1,
                                          crid::pg::compat::wait_event_info(crid::pg::compat::Wait::block));
    }
}

} // namespace

// The refusals, one take from the shared block server in steady state, a
// wait (up to crid.allocation_timeout) only when every reserved id is used up.
int64_t next_id(const core::BitField *gene, uint64_t value) {
    require_minting("crid", "crid_next", "its background worker reserves the blocks. Decoding works without it.");
    BlockShared *s = shared();
    marks::check_registry_mark();
    auto take = [&] { return gene ? s->server.take_with_gene(*gene, value) : s->server.take(); };
    ids::Result r = take();
    if (r.kind != ids::Result::Kind::id)
        return take_after_waiting(s, take);
    if (s->server.remaining() < pg_atomic_read_u64(&s->wake_below))
        wake_filler();
    return r.id;
}

int64_t next_run(uint64_t count) {
    require_minting("crid", "crid_next", "its background worker reserves the blocks. Decoding works without it.");
    BlockShared *s = shared();
    marks::check_registry_mark();
    auto take = [&] {
        ids::Result r = s->server.take_run(count);
        // Only PostgreSQL calls around this ERROR: the waiting loop's
        // condition variable is cancelled by the abort.
        if (r.kind == ids::Result::Kind::dropped)
            ereport(ERROR,
                    (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                     errmsg("a run of %llu crid ids does not fit the blocks this server reserves",
                            static_cast<unsigned long long>(count)),
                     errhint("Raise crid.block_size to at least %llu.", static_cast<unsigned long long>(count))));
        return r;
    };
    ids::Result r = take();
    if (r.kind != ids::Result::Kind::id)
        return take_after_waiting(s, take);
    if (s->server.remaining() < pg_atomic_read_u64(&s->wake_below))
        wake_filler();
    return r.id;
}

} // namespace crid::pg::crid_ids

extern "C" {

PG_FUNCTION_INFO_V1(crid_next);

// crid_next(): one fetch_add on the shared ticket in steady state.
Datum crid_next(PG_FUNCTION_ARGS) { PG_RETURN_INT64(crid::pg::crid_ids::next_id(nullptr, 0)); }

} // extern "C"
