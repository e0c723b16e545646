// crid_stats(): the counters of every generator of this server, one row per
// (family, node, metric), so new families add rows rather than columns.
#include "common/postgres_headers.hpp"

#include "crid_ids/block_shared.hpp"
#include "common/minting.hpp"
#include "marks/high_water.hpp"
#include "marks/registry_mark.hpp"
#include "worker/worker_shared.hpp"
#include "snowflake/mint_counts.hpp"
#include "snowflake/node_fence.hpp"
#include "snowflake/node_words.hpp"

extern "C" {
#include "access/htup_details.h"
}

namespace {

struct Metric {
    const char *name;
    pg_atomic_uint64 crid::pg::snowflake::NodeWord::*field;
};

constexpr Metric snowflake_metrics[] = {
    {"clock_waits", &crid::pg::snowflake::NodeWord::clock_waits},
    {"clock_borrows", &crid::pg::snowflake::NodeWord::clock_borrows},
    {"clock_refusals", &crid::pg::snowflake::NodeWord::clock_refusals},
    {"exhaustion_waits", &crid::pg::snowflake::NodeWord::exhaustion_waits},
};

void put_row(ReturnSetInfo *rsinfo, const char *family, int node, const char *metric, uint64 value) {
    Datum values[4] = {CStringGetTextDatum(family), Int32GetDatum(node), CStringGetTextDatum(metric),
                       Int64GetDatum(int64(value))};
    bool nulls[4] = {false, node < 0, false, false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_stats);

// crid_stats() -> (family, node, metric, value); snowflake nodes that minted
// nothing are left out. Empty when crid is not preloaded.
//
// snowflake family, with crid.registry set or crid.node_id = 'lease':
// lease_node (the leased node, -1 none), lease_renewals, lease_acquisitions,
// lease_losses, lease_failures, lease_refused (1 while a wanted node is held
// by another live server), and lease_held = 1 for each node held.
//
// crid family: ids_served (ids of published blocks handed out; exact but for
// tickets a backend stalled past a whole ring of blocks gave up),
// blocks_reserved, ids_reserved, sync_waits (crid_next calls that found no
// id and waited), wait_timeouts, registry_failures, registry_us_total /
// registry_us_max (time of a reservation transaction), registry_regressions
// (times the registry was seen to go backwards), registry_round_trips and
// registry_last_us (every registry transaction: blocks, checks, leases),
// registry_connected / registry_connects (a remote registry; crid_registry_status()
// has its state and last error). State, 1 while a family
// refuses to mint: snowflake layout_changed and high_water_damaged, uuidv7
// high_water_damaged, crid registry_mark_damaged.
Datum crid_stats(PG_FUNCTION_ARGS) {
    InitMaterializedSRF(fcinfo, 0);
    ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
    namespace pg = crid::pg;
    if (!pg::preloaded())
        return (Datum)0;
    put_row(rsinfo, "snowflake", -1, "high_water_writes", pg::marks::high_water_writes());
    put_row(rsinfo, "snowflake", -1, "high_water_keeper_writes", pg::marks::high_water_keeper_writes());
    // 1 while the family refuses to mint (see high_water.hpp, registry_mark.hpp).
    pg::Refusal snowflake_refusal = pg::marks::snowflake_refusal();
    put_row(rsinfo, "snowflake", -1, "layout_changed", snowflake_refusal == pg::Refusal::layout_changed);
    put_row(rsinfo, "snowflake", -1, "high_water_damaged", snowflake_refusal == pg::Refusal::mark_damaged);
    put_row(rsinfo, "uuidv7", -1, "high_water_damaged", pg::marks::uuidv7_refusal() == pg::Refusal::mark_damaged);
    pg::snowflake::NodeWord *words = pg::snowflake::node_words();
    // ids are counted per process slot as well as on the node's word
    // (snowflake/mint_counts.hpp).
    uint64 *minted = static_cast<uint64 *>(palloc0(sizeof(uint64) * pg::snowflake::node_word_count()));
    pg::snowflake::add_minted(minted);
    for (int64_t n = 0; n < pg::snowflake::node_word_count(); ++n) {
        pg::snowflake::NodeWord &word = words[n];
        if (minted[n] == 0 && pg_atomic_read_u64(&word.clock_refusals) == 0)
            continue;
        put_row(rsinfo, "snowflake", int(n), "ids", minted[n]);
        for (const Metric &m : snowflake_metrics)
            put_row(rsinfo, "snowflake", int(n), m.name, pg_atomic_read_u64(&(word.*m.field)));
    }
    // Snowflake node leases, on a server that mints only for nodes it holds
    // (crid.registry set, or crid.node_id = 'lease').
    pg::snowflake::NodeFence *leases = pg::snowflake::fence();
    if (pg_atomic_read_u32(&leases->fenced)) {
        uint32 node = pg_atomic_read_u32(&leases->leased_node);
        put_row(rsinfo, "snowflake", -1, "lease_node", node == pg::snowflake::no_node ? uint64(-1) : node);
        put_row(rsinfo, "snowflake", -1, "lease_renewals", pg_atomic_read_u64(&leases->renewals));
        put_row(rsinfo, "snowflake", -1, "lease_acquisitions", pg_atomic_read_u64(&leases->acquisitions));
        put_row(rsinfo, "snowflake", -1, "lease_losses", pg_atomic_read_u64(&leases->losses));
        put_row(rsinfo, "snowflake", -1, "lease_failures", pg_atomic_read_u64(&leases->failures));
        SpinLockAcquire(&leases->lock);
        bool refused = leases->refused[0] != '\0';
        SpinLockRelease(&leases->lock);
        put_row(rsinfo, "snowflake", -1, "lease_refused", refused);
        for (int64_t n = 0; n < pg::snowflake::max_nodes; ++n)
            if (pg::snowflake::held(leases, n))
                put_row(rsinfo, "snowflake", int(n), "lease_held", 1);
    }
    pg::crid_ids::BlockShared *blocks = pg::crid_ids::shared();
    uint64 reserved = pg_atomic_read_u64(&blocks->ids_reserved);
    uint64 unserved = blocks->server.remaining();
    put_row(rsinfo, "crid", -1, "ids_served", reserved > unserved ? reserved - unserved : 0);
    put_row(rsinfo, "crid", -1, "blocks_reserved", pg_atomic_read_u64(&blocks->blocks_reserved));
    put_row(rsinfo, "crid", -1, "ids_reserved", reserved);
    put_row(rsinfo, "crid", -1, "ids_unserved", unserved);
    put_row(rsinfo, "crid", -1, "reserve_target", pg_atomic_read_u64(&blocks->wake_below));
    put_row(rsinfo, "crid", -1, "sync_waits", pg_atomic_read_u64(&blocks->sync_waits));
    put_row(rsinfo, "crid", -1, "wait_timeouts", pg_atomic_read_u64(&blocks->wait_timeouts));
    pg::worker::WorkerStatus *worker = pg::worker::status();
    put_row(rsinfo, "crid", -1, "registry_commits", pg_atomic_read_u64(&worker->commits));
    put_row(rsinfo, "crid", -1, "registry_failures", pg_atomic_read_u64(&worker->failures));
    put_row(rsinfo, "crid", -1, "registry_us_total", pg_atomic_read_u64(&worker->us_total));
    put_row(rsinfo, "crid", -1, "registry_us_max", pg_atomic_read_u64(&worker->us_max));
    put_row(rsinfo, "crid", -1, "registry_regressions", pg_atomic_read_u64(&worker->regressions));
    put_row(rsinfo, "crid", -1, "registry_round_trips", pg_atomic_read_u64(&worker->round_trips));
    put_row(rsinfo, "crid", -1, "registry_last_us", pg_atomic_read_u64(&worker->last_us));
    // A remote registry (crid.registry): 1 while connected, connections made.
    put_row(rsinfo, "crid", -1, "registry_connected", pg_atomic_read_u32(&worker->connected));
    put_row(rsinfo, "crid", -1, "registry_connects", pg_atomic_read_u64(&worker->connects));
    put_row(rsinfo, "crid", -1, "registry_mark_damaged",
            pg::marks::registry_mark_refusal() == pg::Refusal::mark_damaged);
    return (Datum)0;
}

} // extern "C"
