#include "registry/pinned_settings.hpp"

#include "common/pg_compat.hpp"

extern "C" {
#include "access/xact.h"
#include "commands/dbcommands.h"
#include "miscadmin.h"
#include "utils/guc.h"
}

#include <cstdio>

namespace crid::pg::registry {

namespace {

struct Pin {
    const char *name;
    const char *value;
    bool remote;           // also pinned on a remote registry, for each transaction
    bool optional = false; // absent from some majors (PostgreSQL 17 added transaction_timeout)
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
    {"transaction_timeout", "0", true, true},
    // Nothing the worker reads may change meaning: how values are written
    // and read, NULL comparisons, row security (on: a policy applies, or
    // the statement fails, never silently less), which relations may be read.
    {"DateStyle", "ISO, MDY", false},
    {"IntervalStyle", "postgres", false},
    {"TimeZone", "UTC", false},
    {"extra_float_digits", "1", false},
    {"bytea_output", "hex", false},
    {"transform_null_equals", "off", false},
    {"array_nulls", "on", false},
    {"row_security", "on", false},
    {"check_function_bodies", "on", false},
    {"restrict_nonsystem_relation_kind", "", false, true},
    // PL/pgSQL's settings (placeholders until it loads), which turn checks
    // of crid's functions into errors or change how their names resolve.
    {"plpgsql.extra_errors", "none", false},
    {"plpgsql.extra_warnings", "none", false},
    {"plpgsql.variable_conflict", "error", false},
    {"plpgsql.check_asserts", "on", false},
};

char remote_sql[2048] = "";

} // namespace

void pin_local_settings() {
    // The role first: the worker is the role it connected as (the bootstrap
    // superuser), whatever session_authorization or role a default of the
    // database or of that role names (they applied as it connected).
    // (Their check hooks read the catalog: a transaction of its own.)
    StartTransactionCommand();
    Oid self = GetAuthenticatedUserId();
    SetConfigOption("session_authorization", GetUserNameFromId(self, false), PGC_SUSET, PGC_S_OVERRIDE);
    SetConfigOption("role", "none", PGC_SUSET, PGC_S_OVERRIDE);
    if (GetSessionUserId() != self || GetUserId() != self || GetOuterUserId() != self)
        ereport(FATAL, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("crid: the block reserver could not act as the role it connected as"),
                        errdetail("A default of database \"%s\" (ALTER DATABASE ... SET role or "
                                  "session_authorization) changed it.",
                                  get_database_name(MyDatabaseId))));
    CommitTransactionCommand();
    for (const Pin &pin : pins)
        if (!pin.optional || GetConfigOption(pin.name, true, false))
            SetConfigOption(pin.name, pin.value, PGC_SUSET, PGC_S_OVERRIDE);
}

const char *remote_begin_sql() { return "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE"; }

const char *remote_pin_sql() {
    if (remote_sql[0])
        return remote_sql;
    // One row per setting; a setting the registry's major lacks (an optional
    // one) is skipped rather than refused.
    size_t used = size_t(std::snprintf(remote_sql, sizeof remote_sql,
                                       "SELECT pg_catalog.set_config(v.name, v.value, true) FROM (VALUES"));
    bool first = true;
    for (const Pin &pin : pins) {
        if (!pin.remote)
            continue;
        int n = std::snprintf(remote_sql + used, sizeof remote_sql - used, "%s ('%s', '%s', %s)", first ? "" : ",",
                              pin.name, pin.value, pin.optional ? "false" : "true");
        used += n > 0 ? size_t(n) : 0;
        first = false;
    }
    std::snprintf(remote_sql + used, sizeof remote_sql - used,
                  ") v(name, value, always) WHERE v.always OR EXISTS (SELECT FROM pg_catalog.pg_settings s"
                  " WHERE s.name OPERATOR(pg_catalog.=) v.name)");
    return remote_sql;
}

} // namespace crid::pg::registry
