// The rows of crid_stats(): (family, node, metric, value). Each module that
// keeps counters adds its own rows through an add_stats(StatsRows &) of its
// folder (uuidv7/server_clock, snowflake/snowflake_stats,
// crid_ids/block_shared, worker/worker_shared), where the counters are
// kept; module/stats_sql.cpp only gathers them, so a new family adds rows
// without a new column or a change there.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg {

class StatsRows {
  public:
    // One row; `node` -1 for a row of no node (NULL in the result). May
    // raise an ERROR (out of memory): callers keep only plain bytes alive.
    virtual void add(const char *family, int node, const char *metric, uint64 value) = 0;

  protected:
    ~StatsRows() = default;
};

} // namespace crid::pg
