// Running a fixed statement of crid's as a table's owner, the way
// PostgreSQL's maintenance commands run: the owner's user id with
// SECURITY_RESTRICTED_OPERATION (no SET ROLE, no temporary objects) and
// search_path pinned to pg_catalog, pg_temp. Used where crid writes its own
// tables for a caller who has no right on them (a backfill's progress, a
// converted sequence's row, a registry table's rows).
//
// Plain C state: an ERROR between begin_as_owner() and end_as_owner()
// leaves through longjmp, and aborting the (sub)transaction restores the
// user, the security context and the settings.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg {

// What begin_as_owner() changed, for end_as_owner().
struct AsOwner {
    Oid saved_user;
    int saved_context;
    int guc_nest;
};

// The owner of relation `relid`; ERROR naming `function` when it is gone.
Oid relation_owner(Oid relid, const char *function);

// Becomes `owner` under SECURITY_RESTRICTED_OPERATION, with search_path
// pg_catalog, pg_temp.
AsOwner begin_as_owner(Oid owner);

// Back to the caller's user, security context and settings.
void end_as_owner(const AsOwner &saved);

} // namespace crid::pg
