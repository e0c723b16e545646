#include "registry/pinned_settings.hpp"

#include "common/pg_compat.hpp"

#include <cstdio>

namespace crid::pg::registry {

namespace {

struct Pin {
    const char *name;
    const char *value;
    bool remote; // also pinned on a remote registry, for each transaction
};

constexpr Pin pins[] = {
    // Resolve nothing through schemas other roles can create objects in.
    {"search_path", "pg_catalog", true},
    // A reservation must be durable before any id of it is served: a commit
    // lost in a crash would hand the same block out again.
    {"synchronous_commit", "on", true},
    // Neither read-only transactions, nor timeouts, nor serialization
    // failures, nor replication-role tricks may stop reservations. (A remote
    // transaction says its isolation and read-write mode in its BEGIN.)
    {"default_transaction_read_only", "off", false},
    {"default_transaction_isolation", "read committed", false},
    {"default_transaction_deferrable", "off", false},
    {"statement_timeout", "0", true},
    {"lock_timeout", "0", true},
    {"idle_in_transaction_session_timeout", "0", true},
    {"idle_session_timeout", "0", false},
    {"session_replication_role", "origin", false},
    {"exit_on_error", "off", false},
    {"jit", "off", false},
    {crid::pg::compat::debug_parallel_setting, "off", false},
    {"standard_conforming_strings", "on", true},
    {"application_name", "crid block reserver", false},
};

char remote_sql[2048] = "";

} // namespace

void pin_local_settings() {
    for (const Pin &pin : pins)
        SetConfigOption(pin.name, pin.value, PGC_SUSET, PGC_S_OVERRIDE);
}

const char *remote_begin_sql() { return "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE"; }

const char *remote_pin_sql() {
    if (remote_sql[0])
        return remote_sql;
    size_t used = size_t(std::snprintf(remote_sql, sizeof remote_sql, "SELECT"));
    bool first = true;
    for (const Pin &pin : pins) {
        if (!pin.remote)
            continue;
        int n = std::snprintf(remote_sql + used, sizeof remote_sql - used, "%s pg_catalog.set_config('%s', '%s', true)",
                              first ? "" : ",", pin.name, pin.value);
        used += n > 0 ? size_t(n) : 0;
        first = false;
    }
    return remote_sql;
}

} // namespace crid::pg::registry
