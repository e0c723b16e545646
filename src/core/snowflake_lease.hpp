// Snowflake node leases (crid.node_id = 'lease', and static node ids of a
// server with a registry): which nodes a server wants, and the timing that
// makes two servers never mint for one node at once.
//
// Uniqueness argument. A lease row says "node N is held by this server until
// lease_until", lease_until being the registry's now() plus the TTL at the
// last renewal. Another server takes N only once the registry's clock is past
// lease_until. The holder judges its lease on its own monotonic clock: a
// renewal *sent* at t0 that succeeded keeps the lease until at least t0 + TTL
// in registry time (the registry's now() is taken after t0), so the holder
// mints only until t0 + window, window = TTL minus a margin (a fifth of it)
// for clocks that run at slightly different rates. Every id is checked
// against that deadline after it is claimed and before it is returned.
//
// Order across holders. Each renewal writes into the row a bound no id of the
// holder can pass before its lease may have lapsed: its high-water mark, or
// its wall clock plus the window plus crid.clock_borrow_ms (ids run ahead of
// the clock by at most the borrow), whichever is later. The next holder
// starts above the bound, so its ids are greater than every id of the old
// holder even when the two servers' clocks disagree; when they agree, the
// bound is already behind the new holder's clock when it takes over (the
// lease lapsed TTL after the renewal, the bound is window + borrow after it).
// A server that takes back its own node (the same server, restarted) starts
// above its own high-water mark, which covers every id it ever returned.
//
// Messages late, twice or unanswered. A renewal or release may reach the
// registry after its sender gave up on it, or after a later worker process
// of the same postmaster took the row back; a take may commit and its answer
// be lost. So each worker claims its rows with a generation that only grows
// (its monotonic clock at start and at each take), a renewal claims only a
// row no later generation claimed, a release counts only for the generation
// that claimed the row, and only once; bounds only rise but at a release,
// whose value is the exact bound of what was served. A row taken over keeps
// the old holder's bound, which the first renewal of a generation returns:
// the worker raises the node above it whether or not its take's answer came
// (sql/registry/crid_node_leases_fencing.sql, docs/fleet.md).
//
// A holder is one live postmaster: its token is made at its start (kept
// across a crash restart of its backends, which the postmaster survives), so
// a clone of its data directory, a promoted standby or the same server
// started again is another holder, whatever its host, port and data
// directory say. Only a row with this server's token is its own.
//
// Rows that vanished. A node whose row was deleted, or lost with a change
// of the lease table (truncated, re-created, restored, failed over), may
// still be minted on by a holder whose row the registry lost: that holder
// renewed at some t0 before the loss and mints until t0 + window. The new
// holder takes the row at once (so no third server picks the node) but
// mints only after takeover_delay_ms, a full TTL plus a fifth of it, from
// when it took it (or from when the registry saw the table change), and
// starts above wall clock + window + borrow read at that moment, the bound
// the old holder would have written then. The registry says which nodes
// need no wait (its trigger crid_node_lease_guard sets mint_from): one that
// never had a row in a lease table it has seen whole since it was made, one
// released by its holder, one whose lease lapsed.
#pragma once
#include "pure_cpp.hpp"

#include "backoff.hpp"
#include "snowflake_node_set.hpp"

#include <cstdint>

namespace crid::core::lease {

inline constexpr int64_t min_ttl_ms = 1000;

struct Timing {
    int64_t ttl_ms = 30000;
    // How long after a successful renewal was sent the holder may mint.
    constexpr int64_t window_ms() const noexcept { return ttl_ms - ttl_ms / 5; }
    // How often the holder renews: three tries before the window closes.
    constexpr int64_t renew_every_ms() const noexcept { return ttl_ms / 3; }
    // The pause before trying again after `failures` failed rounds in a
    // row: doubling from 200 ms up to a sixth of the TTL, so several tries
    // fit in the window.
    constexpr Backoff retry() const noexcept { return Backoff(200, ttl_ms / 6 > 0 ? ttl_ms / 6 : 1); }
    constexpr int64_t retry_ms(int64_t failures) const noexcept { return retry().delay_ms(failures); }
    // How long a node whose earlier holder cannot be shown to have stopped
    // waits before its new holder mints on it (see above).
    constexpr int64_t takeover_delay_ms() const noexcept { return ttl_ms + ttl_ms / 5; }
};

// The bound written into a lease row at a renewal sent when the wall clock
// read `wall_ms`: see above.
constexpr int64_t bound_ms(const Timing &t, int64_t wall_ms, int64_t mark_ms, int64_t borrow_ms) noexcept {
    int64_t reach = wall_ms + t.window_ms() + borrow_ms;
    return reach > mark_ms ? reach : mark_ms;
}

// Node ranges: those of a NodeSet, one of which may be split in two around
// a node left out.
struct Ranges {
    static constexpr int max_ranges = NodeSet::max_ranges + 1;
    int count = 0;
    int32_t first[max_ranges] = {};
    int32_t last[max_ranges] = {};
    bool contains(int64_t node) const noexcept {
        for (int i = 0; i < count; ++i)
            if (node >= first[i] && node <= last[i])
                return true;
        return false;
    }
    int64_t size() const noexcept {
        int64_t n = 0;
        for (int i = 0; i < count; ++i)
            n += int64_t(last[i]) - first[i] + 1;
        return n;
    }
};

// The nodes a server holds leases on. With crid.node_id = 'lease' (`lease`):
// one node out of crid.snowflake_nodes (every node of the layout when that
// is empty). With a static crid.node_id and a registry: the nodes of
// crid.snowflake_nodes when it lists any, else crid.node_id alone (-1: none).
// Nodes past max_node (the layout's last) are left out, and so is
// `never` (crid.backfill_node, kept for ids of past times; -1: none).
Ranges wanted(bool lease, int64_t node_id, const NodeSet &nodes, int64_t max_node, int64_t never = -1) noexcept;

} // namespace crid::core::lease
