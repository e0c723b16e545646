// crid_stats(): the counters of every generator of this server, one row per
// (family, node, metric), so new families add rows rather than columns. Each
// family says its own rows (common/stats_rows.hpp); this file only gathers.
#include "common/postgres_headers.hpp"

#include "common/minting.hpp"
#include "common/stats_rows.hpp"
#include "crid_ids/block_shared.hpp"
#include "snowflake/snowflake_stats.hpp"
#include "uuidv7/server_clock.hpp"
#include "worker/worker_shared.hpp"

extern "C" {
#include "funcapi.h"
}

#include <type_traits>

namespace {

// The rows, into the function's tuplestore.
class Tuplestore final : public crid::pg::StatsRows {
  public:
    explicit Tuplestore(ReturnSetInfo *rsinfo) : rsinfo_(rsinfo) {}
    void add(const char *family, int node, const char *metric, uint64 value) override {
        Datum values[4] = {CStringGetTextDatum(family), Int32GetDatum(node), CStringGetTextDatum(metric),
                           Int64GetDatum(int64(value))};
        bool nulls[4] = {false, node < 0, false, false};
        tuplestore_putvalues(rsinfo_->setResult, rsinfo_->setDesc, values, nulls);
    }

  private:
    ReturnSetInfo *rsinfo_;
};
// It lives across the rows' palloc and tuplestore calls, which may raise.
static_assert(std::is_trivially_destructible_v<Tuplestore>);

// Every contributor, family by family.
constexpr void (*contributors[])(crid::pg::StatsRows &) = {
    crid::pg::uuidv7::add_stats,
    crid::pg::snowflake::add_stats,
    crid::pg::crid_ids::add_stats,
    crid::pg::worker::add_stats,
};

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_stats);

// crid_stats() -> (family, node, metric, value); empty when crid is not
// preloaded. The metrics are named where each family adds them.
Datum crid_stats(PG_FUNCTION_ARGS) {
    InitMaterializedSRF(fcinfo, 0);
    if (!crid::pg::preloaded())
        return (Datum)0;
    Tuplestore rows(reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo));
    for (auto add_stats : contributors)
        add_stats(rows);
    return (Datum)0;
}

} // extern "C"
