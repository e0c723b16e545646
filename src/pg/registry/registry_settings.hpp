// Where the registry is and how the worker talks to it: crid.registry (a
// libpq connection string to a registry server; empty: the local
// crid.registry_database), crid.registry_table (a registry table other than
// the extension's crid_allocations), crid.registry_timeout (how long the
// worker waits for a remote registry to answer), crid.node_lease_ttl (how
// long a snowflake node lease lasts without a renewal).
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::registry {

// Defines the GUCs; called from _PG_init.
void define_settings();

// ERROR naming the setting for a crid.registry that is no libpq connection
// string, or whose options libpq refuses (conninfo_check.hpp); from
// _PG_init when preloaded, so a bad value stops the server start.
// crid.registry's text is never shown: it may hold a password.
void validate_at_start();

// True when crid.registry names a remote registry.
bool remote();

// crid.registry as set: for libpq only, never for a message or the log.
const char *conninfo();

// The remote registry for messages: "host=... port=... dbname=... user=..."
// (the parts crid.registry sets; never its password).
const char *shown();

// The registry in messages, in any process: `the registry at host=...` for
// a remote one, `database "postgres"` for crid.registry_database. To a
// backend whose role may not see where the registry is (may_see_registry),
// `the registry crid.registry names`.
const char *registry_name();

// True when this process may see where a remote registry is and what the
// worker last met there: crid's own processes, and backends of superusers
// and members of pg_monitor. crid.registry names a host and a user, which
// PostgreSQL hides from other roles as it hides a subscription's
// connection string; crid_registry_status() is pg_monitor's.
bool may_see_registry();

// Replaces a text of the worker's (its last failure, which may quote the
// host and the user) with where to read it, for a backend that may not see
// the registry; leaves it as it is otherwise.
void for_caller(char *text, size_t size);

// crid.registry_database: the local registry's database (and, with a
// remote registry, the database the worker's own session uses).
const char *registry_database();

// crid.registry_table: the registry table when it is not the
// extension's own crid_allocations, parsed (core/registry_table.hpp).
struct RegistryTable {
    bool set = false; // false: the extension's own crid_allocations
    char schema[NAMEDATALEN] = "";
    char name[NAMEDATALEN] = "";
};
// ERROR naming the setting when its text is no table name; when preloaded
// this runs in _PG_init, so a bad value stops the server start.
void load_registry_table();
const RegistryTable &registry_table();

int registry_timeout_ms();
int lease_ttl_ms();

} // namespace crid::pg::registry
