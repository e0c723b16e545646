// The snowflake family's rows of crid_stats(), read where its counters are
// kept: the node words, the ids each process slot minted, the lease fence,
// and the high-water mark its ids start above.
#pragma once

#include "common/postgres_headers.hpp"
#include "common/stats_rows.hpp"

namespace crid::pg::snowflake {

// Family snowflake: high_water_writes and high_water_keeper_writes (writes
// of the mark by a minting backend, and by the keeper), layout_changed and
// high_water_damaged (1 while the mark stops snowflake minting); per node
// that minted (or refused): ids, clock_waits, clock_borrows,
// clock_refusals, exhaustion_waits. With crid.registry set or
// crid.node_id = 'lease': lease_node (the leased node, -1 none),
// lease_renewals, lease_acquisitions, lease_losses, lease_failures,
// lease_refused (1 while a wanted node is held by another live server), and
// lease_held = 1 for each node held.
void add_stats(StatsRows &rows);

} // namespace crid::pg::snowflake
