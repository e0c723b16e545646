// The session settings the registry worker pins on its registry session,
// whatever the database, its owner or a role set (ALTER DATABASE ... SET,
// ALTER ROLE ... SET): reservations must be durable before any id of them
// is served, and names, timeouts, read-only defaults or replication-role
// tricks of the registry's must not change or stop them. One list, for the
// local session (SPI) and for a remote registry (libpq).
#pragma once

#include "common/postgres_headers.hpp"

#include <cstddef>

namespace crid::pg::registry {

// Pins every setting in this process (the local registry).
void pin_local_settings();

// The statement that pins, on a remote registry, the settings any role may
// set there (the others need a superuser, or are this server's own).
const char *remote_pin_sql();

} // namespace crid::pg::registry
