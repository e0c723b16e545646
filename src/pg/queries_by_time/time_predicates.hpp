// The planner hook that lets `WHERE uuid_v7_to_timestamptz(id) >= $1` (and
// the other decoders) use the B-tree on id, with crid preloaded.
#pragma once

namespace crid::pg::queries_by_time {

// Defines crid.time_predicates; when preloading, also installs the planner
// hook (chaining the previous one). Called from _PG_init.
void init(bool preloading);

} // namespace crid::pg::queries_by_time
