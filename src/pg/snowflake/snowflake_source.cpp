#include "snowflake/snowflake_source.hpp"

#include "common/pg_compat.hpp"

#include "common/boundary.hpp"
#include "common/clock_policy.hpp"
#include "common/minting.hpp"
#include "marks/high_water.hpp"
#include "snowflake/mint_counts.hpp"
#include "snowflake/node_fence.hpp"
#include "snowflake/node_words.hpp"
#include "snowflake/snowflake_settings.hpp"

#include "core/clock.hpp"
#include "core/time_units.hpp"

extern "C" {
#include "pgstat.h"
#include "storage/latch.h"
}

namespace crid::pg::snowflake {

namespace {

using core::snowflake::Step;

void check_ranges(const core::snowflake::Layout &layout, int64_t node, int64_t gene) {
    int64_t max_node = core::snowflake::max_node(layout);
    if (node < 0 || node > max_node)
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("snowflake node %lld is out of range", static_cast<long long>(node)),
                        errdetail("crid.snowflake_node_bits = %d allows nodes 0 to %lld.", layout.node_bits,
                                  static_cast<long long>(max_node))));
    int64_t max_gene = core::snowflake::max_gene(layout);
    if (gene < 0 || gene > max_gene) {
        if (layout.gene_bits == 0)
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                     errmsg("snowflake ids of this server carry no gene"),
                     errhint("Set crid.snowflake_gene_bits (and restart) to reserve low bits for a shard gene.")));
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("snowflake gene %lld is out of range", static_cast<long long>(gene)),
                        errdetail("crid.snowflake_gene_bits = %d allows genes 0 to %lld.", layout.gene_bits,
                                  static_cast<long long>(max_gene))));
    }
}

// Waits, interruptibly, until the clock reaches `until_unix_ms`. The last
// millisecond of any wait spins: an exhausted sequence needs at most that,
// and so does a session that finds the word one unit ahead of its clock
// because racing adds carried into the next unit (two sessions on one node
// do so thousands of times a second); the latch's shortest sleep of 1 ms
// would overshoot either many times over and leave the node idle. A clock
// that stepped back further is slept on, a millisecond at a time. Meanwhile
// pg_stat_activity shows the wait (PostgreSQL 15 offers extensions the one
// event "Extension").
void wait_for_clock(int64_t until_unix_ms) {
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        int64_t ahead_us = until_unix_ms * 1000 - core::wall_clock_ns() / core::ns_per_us;
        if (ahead_us <= 0)
            return;
        if (ahead_us <= 1000) {
            pgstat_report_wait_start(crid::pg::compat::wait_event_info(crid::pg::compat::Wait::snowflake_clock));
            while (core::wall_clock_ns() / core::ns_per_us < until_unix_ms * 1000)
                pg_spin_delay();
            pgstat_report_wait_end();
        } else {
            (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1,
                            crid::pg::compat::wait_event_info(crid::pg::compat::Wait::snowflake_clock));
            ResetLatch(MyLatch);
        }
    }
}

} // namespace

namespace {

// The loop of mint() and mint_run(): `claim` takes from the node's word,
// given the layout, the policy and the clock; the checks are the caller's.
template <class Claim>
int64_t mint_on(const core::snowflake::Layout &layout, int64_t node, int64_t gene, Claim &&claim) {
    const core::snowflake::Policy policy = clock_policy();
    NodeWord &slot = node_words()[node];
    for (;;) {
        int64_t id = 0;
        Step step = pg::guarded([&] {
            Step claimed = claim(slot.state, policy, [&] {
                return core::snowflake::unit_of_unix_ms(layout, core::wall_clock_ns() / core::ns_per_ms);
            });
            if (claimed.kind == Step::Kind::issue)
                id = core::snowflake::id_from(layout, claimed, node, gene);
            return claimed;
        });
        if (step.kind == Step::Kind::issue) {
            // A fenced server returns the id only while it safely holds the
            // node (node_fence.hpp); a refused id is a gap.
            check_minted(node);
            count_minted(slot, node);
            if (step.borrowed)
                pg_atomic_fetch_add_u64(&slot.clock_borrows, 1);
            marks::ensure_high_water(core::snowflake::unit_start_unix_ms(layout, step.unit));
            return id;
        }
        if (step.kind == Step::Kind::wait) {
            pg_atomic_fetch_add_u64(step.exhausted ? &slot.exhaustion_waits : &slot.clock_waits, 1);
            wait_for_clock(core::snowflake::unit_start_unix_ms(layout, step.wait_until_unit));
            continue;
        }
        pg_atomic_fetch_add_u64(&slot.clock_refusals, 1);
        char message[512], hint[512];
        pg::guarded([&] {
            std::snprintf(message, sizeof message, "%s", core::snowflake::refusal_message(step, policy).c_str());
            std::snprintf(hint, sizeof hint, "%s", core::snowflake::refusal_hint(policy).c_str());
        });
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("%s", message), errhint("%s", hint)));
    }
}

} // namespace

int64_t mint(int64_t node, int64_t gene) {
    require_minting("snowflake", "snowflake generation", "decoding works without it.");
    marks::check_snowflake();
    const core::snowflake::Layout &layout = server_layout();
    check_ranges(layout, node, gene);
    check_not_backfill_node(node);
    check_node_allowed(node);
    return mint_on(layout, node, gene, [&](auto &word, const core::snowflake::Policy &policy, auto &&clock) {
        return core::snowflake::claim(word, layout, policy, clock, process_slot_count());
    });
}

int64_t mint_run(int64_t node, int64_t count) {
    require_minting("snowflake", "snowflake generation", "decoding works without it.");
    marks::check_snowflake();
    const core::snowflake::Layout &layout = server_layout();
    check_ranges(layout, node, 0);
    check_not_backfill_node(node);
    check_node_allowed(node);
    if (count < 1 || count > core::snowflake::max_sequence(layout) + 1)
        ereport(ERROR,
                (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                 errmsg("a run of %lld snowflake sequences does not fit one time unit", static_cast<long long>(count)),
                 errdetail("crid.snowflake_sequence_bits = %d allows %lld sequences a unit.", layout.sequence_bits,
                           static_cast<long long>(core::snowflake::max_sequence(layout) + 1))));
    return mint_on(layout, node, 0, [&](auto &word, const core::snowflake::Policy &policy, auto &&clock) {
        return core::snowflake::claim_run(word, layout, policy, clock, count);
    });
}

} // namespace crid::pg::snowflake
