#include "snowflake/snowflake_stats.hpp"

#include "marks/high_water.hpp"
#include "snowflake/mint_counts.hpp"
#include "snowflake/node_fence.hpp"
#include "snowflake/node_words.hpp"

namespace crid::pg::snowflake {

namespace {

struct Metric {
    const char *name;
    pg_atomic_uint64 NodeWord::*field;
};

constexpr Metric node_metrics[] = {
    {"clock_waits", &NodeWord::clock_waits},
    {"clock_borrows", &NodeWord::clock_borrows},
    {"clock_refusals", &NodeWord::clock_refusals},
    {"exhaustion_waits", &NodeWord::exhaustion_waits},
};

// The high-water mark the family's ids start above, and whether it refuses
// (see marks/high_water.hpp).
void add_mark_rows(StatsRows &rows) {
    rows.add("snowflake", -1, "high_water_writes", marks::high_water_writes());
    rows.add("snowflake", -1, "high_water_keeper_writes", marks::high_water_keeper_writes());
    Refusal refusal = marks::snowflake_refusal();
    rows.add("snowflake", -1, "layout_changed", refusal == Refusal::layout_changed);
    rows.add("snowflake", -1, "high_water_damaged", refusal == Refusal::mark_damaged);
}

// Nodes that minted nothing (and refused nothing) are left out. Ids are
// counted per process slot as well as on the node's word (mint_counts.hpp).
void add_node_rows(StatsRows &rows) {
    NodeWord *words = node_words();
    uint64 *minted = static_cast<uint64 *>(palloc0(sizeof(uint64) * node_word_count()));
    add_minted(minted);
    for (int64_t n = 0; n < node_word_count(); ++n) {
        NodeWord &word = words[n];
        if (minted[n] == 0 && pg_atomic_read_u64(&word.clock_refusals) == 0)
            continue;
        rows.add("snowflake", int(n), "ids", minted[n]);
        for (const Metric &m : node_metrics)
            rows.add("snowflake", int(n), m.name, pg_atomic_read_u64(&(word.*m.field)));
    }
    pfree(minted);
}

// Node leases, on a server that mints only for nodes it holds.
void add_lease_rows(StatsRows &rows) {
    NodeFence *leases = fence();
    if (!pg_atomic_read_u32(&leases->fenced))
        return;
    uint32 node = pg_atomic_read_u32(&leases->leased_node);
    rows.add("snowflake", -1, "lease_node", node == no_node ? uint64(-1) : node);
    rows.add("snowflake", -1, "lease_renewals", pg_atomic_read_u64(&leases->renewals));
    rows.add("snowflake", -1, "lease_acquisitions", pg_atomic_read_u64(&leases->acquisitions));
    rows.add("snowflake", -1, "lease_losses", pg_atomic_read_u64(&leases->losses));
    rows.add("snowflake", -1, "lease_failures", pg_atomic_read_u64(&leases->failures));
    SpinLockAcquire(&leases->lock);
    bool refused = leases->refused[0] != '\0';
    SpinLockRelease(&leases->lock);
    rows.add("snowflake", -1, "lease_refused", refused);
    for (int64_t n = 0; n < max_nodes; ++n)
        if (held(leases, n))
            rows.add("snowflake", int(n), "lease_held", 1);
}

} // namespace

void add_stats(StatsRows &rows) {
    add_mark_rows(rows);
    add_node_rows(rows);
    add_lease_rows(rows);
}

} // namespace crid::pg::snowflake
