// crid's settings as the server starts: a wrong one stops the start.
//
// PostgreSQL reads postgresql.conf (and the command line) before it loads
// crid, so every crid.* value waits in a placeholder until crid defines the
// setting. When DefineCustom*Variable then finds a value its type, range or
// check hook refuses, PostgreSQL only warns and carries on with the default,
// and MarkGUCPrefixReserved("crid") only warns about a crid.* name crid does
// not define, and drops it. One server of a fleet would then run quietly on
// another layout, node or block size than the configuration says.
//
// So, when crid is preloaded at postmaster start, _PG_init calls
// remember_placeholders() before it defines any setting and
// check_remembered() after all are defined, before MarkGUCPrefixReserved.
// A backend that loads crid later keeps PostgreSQL's usual behaviour, and a
// reload never comes here: PostgreSQL keeps the old value and logs the new
// one's fault, so minting goes on.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::start_settings {

// True in the postmaster (or a single-user server) while it preloads crid:
// the one moment a wrong setting can still stop the start.
bool at_server_start();

// Copies every crid.* placeholder's value as written, with where it was set.
void remember_placeholders();

// Checks each remembered value again through PostgreSQL's own machinery
// (set_config_option without changing anything, at ERROR), and each
// remembered name against the settings crid defined. Every problem is
// logged with the allowed values and where it was set; then one ERROR,
// which is FATAL while the postmaster starts, names them all.
void check_remembered();

} // namespace crid::pg::start_settings
