#include "blocks/crid_settings.hpp"

#include "common/boundary.hpp"
#include "common/settings_support.hpp"

#include "core/registry_table.hpp"

#include <cstdio>
#include <cstring>

namespace crid::pg::crid_ids {

namespace {

char *epoch_text = nullptr;
int timestamp_bits = core::crid_ids::default_timestamp_bits;
int block_size_setting = int(core::crid_ids::default_block_size);
int threshold_setting = int(core::crid_ids::default_threshold);
char *registry_database_text = nullptr;
int allocation_timeout_setting = 5000;
int evict_min_age_setting = 86400;

core::crid_ids::Layout loaded;
LayoutSource loaded_from;

char *registry_table_text = nullptr;
RegistryTable parsed_table;
char parsed_table_text[512] = "";
bool table_parsed = false;

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
    DefineCustomStringVariable("crid.registry_database",
                               "Database whose crid_allocations table the background worker reserves blocks in.",
                               nullptr, &registry_database_text, "postgres", fixed, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable("crid.registry_table",
                               "The registry table, when it is not the extension's own crid_allocations.",
                               "A name as the Go crid library's postgres.WithTable() takes it (schema.table; "
                               "public when unqualified), in the registry database. Empty: crid_allocations of "
                               "the crid extension there.",
                               &registry_table_text, "", fixed, 0, nullptr, nullptr, nullptr);
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

void load_registry_table() {
    const char *text = registry_table_text ? registry_table_text : "";
    RegistryTable t;
    // Only bytes leave the guard: the parsed names are copied inside it.
    pg::guarded([&] {
        std::string_view v(text);
        if (v.find_first_not_of(" \t\r\n") == std::string_view::npos)
            return;
        core::registry::TableName name = core::registry::parse_table_name(v);
        t.set = true;
        std::snprintf(t.schema, sizeof t.schema, "%s", name.schema.c_str());
        std::snprintf(t.name, sizeof t.name, "%s", name.name.c_str());
    });
    parsed_table = t;
    std::snprintf(parsed_table_text, sizeof parsed_table_text, "%s", text);
    table_parsed = true;
}

const RegistryTable &registry_table() {
    if (!table_parsed || std::strcmp(parsed_table_text, registry_table_text ? registry_table_text : "") != 0)
        load_registry_table();
    return parsed_table;
}

int block_size() { return block_size_setting; }
int threshold() { return threshold_setting; }
const char *registry_database() { return registry_database_text; }
int allocation_timeout_ms() { return allocation_timeout_setting; }
int evict_min_age_s() { return evict_min_age_setting; }

} // namespace crid::pg::crid_ids
