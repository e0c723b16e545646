// The session settings the block reserver pins on its registry session,
// whatever the database, its owner or a role set (ALTER DATABASE ... SET,
// ALTER ROLE ... SET): reservations must be durable before any id of them
// is served, and names, timeouts, read-only defaults or replication-role
// tricks of the registry's must not change or stop them. One list, for the
// local session (SPI) and for a remote registry (libpq).
//
// On a remote registry they hold for one transaction at a time: each batch
// starts with remote_begin_sql() and remote_pin_sql(). A connection pooler
// in transaction mode (pgbouncer) runs each transaction on whichever server
// connection is free, so a setting made for the session would miss the
// worker's next transactions and change other clients' (a Go service's
// search_path, say); one made for the transaction does neither.
#pragma once

#include "common/postgres_headers.hpp"

#include <cstddef>

namespace crid::pg::registry {

// Pins every setting in this process (the local registry).
void pin_local_settings();

// The BEGIN of every remote batch: it names the isolation level and
// read-write mode itself, since default_transaction_* of the registry (or
// of a pooled connection another client changed) apply at BEGIN, before
// anything could pin them. On a standby it fails: nothing is reserved there.
const char *remote_begin_sql();

// The statement after it that pins, for that transaction, the settings any
// role may set there (the others need a superuser, or are this server's
// own).
const char *remote_pin_sql();

} // namespace crid::pg::registry
