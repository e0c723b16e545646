#include "crid_ids/crid_ids_settings.hpp"

#include "common/boundary.hpp"
#include "common/settings_support.hpp"

#include "core/crid_block_sizing.hpp"

#include <cstdio>
#include <cstring>

namespace crid::pg::crid_ids {

namespace {

char *epoch_text = nullptr;
int timestamp_bits = core::crid_ids::default_timestamp_bits;
int block_size_setting = int(core::crid_ids::default_block_size);
int threshold_setting = int(core::crid_ids::default_threshold);
int max_blocks_per_second_setting = int(core::crid_ids::default_max_blocks_per_second);
int allocation_timeout_setting = 5000;
int evict_min_age_setting = 86400;

core::crid_ids::Layout loaded;
LayoutSource loaded_from;

} // namespace

void define_settings() {
    const GucContext fixed = fixed_at_start_context();
    DefineCustomStringVariable("crid.epoch", "Time zero of crid ids: their timestamps count seconds from it.",
                               "Must match every node that shares the registry.", &epoch_text, "2026-01-01 00:00:00+00",
                               fixed, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.timestamp_bits", "Width of the seconds field of crid ids.",
                            "The sequence gets the rest of 63 bits. Must match every node of the registry.",
                            &timestamp_bits, core::crid_ids::default_timestamp_bits, core::crid_ids::min_timestamp_bits,
                            core::crid_ids::max_timestamp_bits, fixed, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.block_size", "How many sequences one registry reservation takes.", nullptr,
                            &block_size_setting, int(core::crid_ids::default_block_size), 1, INT_MAX, PGC_SIGHUP, 0,
                            nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.threshold",
                            "Reserve the next block in the background once fewer than this many ids remain.", nullptr,
                            &threshold_setting, int(core::crid_ids::default_threshold), 0, INT_MAX, PGC_SIGHUP, 0,
                            nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.max_blocks_per_second",
                            "The most blocks a second the block reserver reserves under steady demand.",
                            "A higher rate of ids makes the blocks larger instead; they shrink back to "
                            "crid.block_size once it falls. 0: every block is crid.block_size.",
                            &max_blocks_per_second_setting, int(core::crid_ids::default_max_blocks_per_second), 0,
                            int(core::crid_ids::max_max_blocks_per_second), PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "crid.allocation_timeout", "How long crid_next() waits for a block before it raises an error.", nullptr,
        &allocation_timeout_setting, 5000, 0, 3600 * 1000, PGC_USERSET, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.evict_min_age", "crid_evict() keeps registry rows of at least this recent past.",
                            "A clock stepped back into an evicted second would restart its sequences.",
                            &evict_min_age_setting, 86400, min_evict_age_s, INT_MAX, PGC_SUSET, GUC_UNIT_S, nullptr,
                            nullptr, nullptr);
}

void load_layout() {
    int64_t epoch = epoch_setting_unix_ms("crid.epoch", epoch_text);
    int bits = timestamp_bits;
    pg::guarded([&] {
        core::crid_ids::Layout l;
        l.epoch_unix_ms = epoch;
        l.timestamp_bits = bits;
        loaded = core::crid_ids::validate(l);
    });
    loaded_from.remember(epoch_text, {bits});
}

const core::crid_ids::Layout &layout() {
    if (!loaded_from.matches(epoch_text, {timestamp_bits}))
        load_layout();
    return loaded;
}

int block_size() { return block_size_setting; }
int threshold() { return threshold_setting; }
int max_blocks_per_second() { return max_blocks_per_second_setting; }
int allocation_timeout_ms() { return allocation_timeout_setting; }
int evict_min_age_s() { return evict_min_age_setting; }

} // namespace crid::pg::crid_ids
