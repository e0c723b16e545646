#include "registry/registry_settings.hpp"

#include "common/boundary.hpp"
#include "common/settings_support.hpp"
#include "registry/conninfo_check.hpp"

#include "core/registry_table.hpp"

#include "libpq-fe.h"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "utils/acl.h"
}

#include <cstdio>

namespace crid::pg::registry {

namespace {

char *registry_text = nullptr;
int timeout_setting = 10000;
int ttl_setting = 30000;

// The settings' own minimums: PostgreSQL refuses a value below them, which
// at start stops the start (start_settings.hpp) and on a reload keeps the
// old value.
constexpr int min_timeout_ms = 100;
constexpr int min_ttl_ms = 1000;
constexpr int max_ttl_ms = 3600 * 1000;

char *database_text = nullptr;
char *table_text = nullptr;
RegistryTable parsed_table;
char parsed_table_text[512] = "";
bool table_parsed = false;

char shown_text[512] = "";
bool shown_built = false;

} // namespace

void define_settings() {
    const GucContext fixed = fixed_at_start_context();
    DefineCustomStringVariable("crid.registry", "libpq connection string of a remote crid registry server.",
                               "Empty: the local crid.registry_database. Only superusers see it.", &registry_text, "",
                               fixed, GUC_SUPERUSER_ONLY, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.registry_timeout",
                            "How long the block reserver waits for a remote registry to connect or answer.",
                            "Past it the worker gives the connection up and connects again.", &timeout_setting, 10000,
                            min_timeout_ms, 3600 * 1000, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.node_lease_ttl", "How long a snowflake node lease lasts without a renewal.",
                            "The worker renews every third of it; minting stops when a lease may have lapsed.",
                            &ttl_setting, 30000, min_ttl_ms, max_ttl_ms, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr,
                            nullptr);
    DefineCustomStringVariable("crid.registry_database",
                               "Database whose crid_allocations table the background worker reserves blocks in.",
                               nullptr, &database_text, "postgres", fixed, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable("crid.registry_table",
                               "The registry table, when it is not the extension's own crid_allocations.",
                               "A name as the Go crid library's postgres.WithTable() takes it (schema.table; "
                               "public when unqualified), in the registry database. Empty: crid_allocations of "
                               "the crid extension there.",
                               &table_text, "", fixed, 0, nullptr, nullptr, nullptr);
}

void validate_at_start() {
    if (!remote())
        return;
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(registry_text, &error);
    // libpq's message may quote a piece of the text, which may be a
    // piece of a password: say what is wrong without it.
    if (error)
        PQfreemem(error);
    if (!options)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("crid.registry is not a valid libpq connection string"),
                        errdetail("Write it as keyword=value pairs (host=... port=... dbname=... user=...) or as a "
                                  "postgresql:// URI. Its text is not shown: it may hold a password."),
                        errhint("Keep the password out of it: libpq reads ~/.pgpass of the server's OS user.")));
    PQconninfoFree(options);
    check_conninfo_with_libpq(registry_text);
}

bool remote() { return registry_text && registry_text[0] != '\0'; }

const char *conninfo() { return registry_text ? registry_text : ""; }

const char *shown() {
    if (shown_built)
        return shown_text;
    shown_built = true;
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(conninfo(), &error);
    if (error)
        PQfreemem(error);
    size_t used = 0;
    shown_text[0] = '\0';
    // In this order, whatever the order of the text: never the password.
    for (const char *keyword : {"host", "hostaddr", "port", "dbname", "user"})
        for (PQconninfoOption *o = options; o && o->keyword; ++o) {
            if (std::strcmp(o->keyword, keyword) != 0 || !o->val || !o->val[0] || used >= sizeof shown_text)
                continue;
            int n =
                std::snprintf(shown_text + used, sizeof shown_text - used, "%s%s=%s", used ? " " : "", keyword, o->val);
            used += n > 0 ? size_t(n) : 0;
        }
    if (options)
        PQconninfoFree(options);
    if (!shown_text[0])
        std::snprintf(shown_text, sizeof shown_text, "libpq's defaults");
    return shown_text;
}

const char *registry_name() {
    static char name[600];
    if (remote() && !may_see_registry())
        std::snprintf(name, sizeof name, "the registry crid.registry names");
    else if (remote())
        std::snprintf(name, sizeof name, "the registry at %s", shown());
    else
        std::snprintf(name, sizeof name, "database \"%s\"", registry_database());
    return name;
}

bool may_see_registry() {
    if (!remote() || MyBackendType != B_BACKEND)
        return true;
    // Outside a transaction the catalog cannot say: show nothing.
    return IsTransactionState() && has_privs_of_role(GetUserId(), ROLE_PG_MONITOR);
}

void for_caller(char *text, size_t size) {
    if (text[0] && !may_see_registry())
        std::snprintf(text, size, "%s",
                      "the worker's last error is in the server log and, for members of pg_monitor, in "
                      "crid_registry_status()");
}

const char *registry_database() { return database_text; }

void load_registry_table() {
    const char *text = table_text ? table_text : "";
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
    if (!table_parsed || std::strcmp(parsed_table_text, table_text ? table_text : "") != 0)
        load_registry_table();
    return parsed_table;
}

int registry_timeout_ms() { return timeout_setting; }
int lease_ttl_ms() { return ttl_setting; }

} // namespace crid::pg::registry
