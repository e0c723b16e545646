// Where the registry is on a registry server: the table blocks are reserved
// in (crid.registry_table, checked for the shape the registry protocol needs,
// or else the crid extension's own crid_allocations) and the node lease
// table beside it. Found with catalog queries that run the same over SPI and
// over libpq, and judged by one rule (core/registry_table.hpp).
#pragma once

#include "common/postgres_headers.hpp"

#include "registry/registry_session.hpp"

namespace crid::pg::registry {

// SQL names, quoted and schema-qualified.
struct Location {
    char table[2 * (2 * NAMEDATALEN + 2) + 2] = "";    // the registry table
    char leases[2 * (2 * NAMEDATALEN + 2) + 2] = "";   // crid_node_leases
    char take[2 * (2 * NAMEDATALEN + 2) + 2] = "";     // crid_node_lease_take, a leasing server's acquisition
    char check[2 * (2 * NAMEDATALEN + 2) + 2] = "";    // crid_registry_check, the continuity check
    char state[2 * (2 * NAMEDATALEN + 2) + 2] = "";    // crid_registry_state, what the check keeps
    char reserve[2 * (2 * NAMEDATALEN + 2) + 2] = "";  // crid_registry_reserve, the one reservation
    char next_seq[2 * (2 * NAMEDATALEN + 2) + 2] = ""; // crid_registry_next_seq (the extension's only)
    char shown[2 * NAMEDATALEN + 2] = "";              // the table for messages: schema.table
    // The schema of the functions above (crid's, or the registry-server
    // script's), unquoted, and its OID as text: on the local registry every
    // batch checks, and locks, that the OID still has that name
    // (pin_local_schema() in registry_session.hpp).
    char schema[NAMEDATALEN] = "";
    char schema_oid[16] = "";
};

enum class Found {
    ok,
    no_extension, // crid.registry_table is empty and crid is not installed there
    bad_table,    // crid.registry_table names no table of the right shape
    outdated,     // the registry lacks crid_registry_check, _reserve or crid_node_lease_take (crid older than 0.3.0)
    failed,       // the catalog queries failed (failure says why)
};

// Finds the registry on the session's server. For no_extension, bad_table
// and outdated, `failure` holds the sentence to show (naming the setting or
// the command that fixes it).
Found locate(Session &session, Location &out, Failure &failure);

// The catalog facts of the table schema.name: one row when it exists, no row
// when it does not; parameters $1 schema, $2 table.
extern const char *const shape_query;

// What shape_query's row says, as plain bytes.
struct ShapeRow {
    bool found = false;
    char relkind = 0;
    char ts_type[64] = "";
    char next_seq_type[64] = "";
    bool next_seq_not_null = false;
    bool ts_unique = false;
    char required_extra[256] = "";
};
// A RowSink for shape_query into a ShapeRow.
void shape_sink(void *row, int columns, const char *const *values) noexcept;
// "" (when the table fits) or why not, after "..., which ".
void shape_verdict(const ShapeRow &row, char *out, size_t size);

} // namespace crid::pg::registry
