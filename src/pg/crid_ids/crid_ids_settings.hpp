// The crid-family settings (crid.epoch, crid.timestamp_bits, crid.block_size,
// crid.threshold, crid.max_blocks_per_second, crid.allocation_timeout,
// crid.evict_min_age) and the layout built from them.
#pragma once

#include "common/postgres_headers.hpp"

#include "core/crid_layout.hpp"

namespace crid::pg::crid_ids {

// The least crid.evict_min_age: registry rows of the last minute are never
// deleted by crid_evict(), so one missing there means the registry was
// rebuilt, truncated or restored.
inline constexpr int min_evict_age_s = 60;

// Defines the GUCs; called from _PG_init.
void define_settings();

// Validates crid.epoch and crid.timestamp_bits and builds the layout;
// ereports naming the setting. When preloaded this runs in _PG_init, so a bad
// value stops the server start.
void load_layout();

// The layout (loaded on first use in a backend that did not preload crid).
const core::crid_ids::Layout &layout();

int block_size();
int threshold();
int max_blocks_per_second();
int allocation_timeout_ms();
int evict_min_age_s();

} // namespace crid::pg::crid_ids
