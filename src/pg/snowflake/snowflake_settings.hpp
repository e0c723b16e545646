// The snowflake settings (crid.snowflake_*, crid.node_id, crid.backfill_node):
// their GUC definitions, and the validated layout built from them.
#pragma once

#include "common/postgres_headers.hpp"

#include "core/snowflake_node_set.hpp"
#include "core/snowflake_generator.hpp"

namespace crid::pg::snowflake {

// Defines the GUCs; called from _PG_init.
void define_settings();

// Validates the layout settings and builds the server layout; ereports
// (naming the setting) when they are wrong. In the postmaster this stops the
// server start, as a layout that generation and decoding disagree on must.
void load_server_layout();

// The server layout (load_server_layout() must have succeeded in this process;
// server_layout_or_error() ensures it).
const core::snowflake::Layout &server_layout();
const core::snowflake::Layout &server_layout_or_error();

// The server layout as the high-water file records it ("worker=10 ...").
void server_layout_text(char (&out)[256]);

// crid.node_id, or -1 when unset. With crid.node_id = 'lease': the node
// this server holds a lease on, or ERROR 55000 when it holds none.
int configured_node();

// crid.node_id as set: 'lease' (true), or a node number (-1: none). For the
// worker that leases and registers nodes (worker/lease_rounds.hpp).
bool node_id_is_lease();
int static_node_id();

// The parsed crid.snowflake_nodes.
const core::NodeSet &allowed_node_set();

// crid.backfill_node (-1: none): never leased or registered for live minting.
int backfill_node();

// ERROR naming the setting when crid.node_id names a node outside the
// layout, or leases from a crid.snowflake_nodes with no node of the layout;
// at server start. (Text that is neither a node number nor 'lease' its
// check hook refuses, which at start stops the start as well.)
void check_node_settings();

// ERROR unless crid.snowflake_nodes lets this server mint for `node`.
void check_node_allowed(int64_t node);

// crid.backfill_node (-1: none) is the node kept for ids of past times
// (snowflake_pack), which live minting refuses.
// ERROR 22023 when `node` (an argument of a generator) is crid.backfill_node.
void check_not_backfill_node(int64_t node);

// ERROR 55000 when crid.node_id, the node of snowflake_next() and of the gene
// trigger, is crid.backfill_node.
void check_node_id_not_backfill_node(const char *function);

} // namespace crid::pg::snowflake
