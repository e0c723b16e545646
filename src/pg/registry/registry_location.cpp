#include "registry/registry_location.hpp"

#include "common/boundary.hpp"
#include "registry/registry_settings.hpp"

#include "core/registry_table.hpp"

#include <cstdio>

namespace crid::pg::registry {

const char *const shape_query =
    "SELECT c.relkind::pg_catalog.text,"
    " (SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a"
    "   WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attname OPERATOR(pg_catalog.=) 'ts' AND NOT "
    "a.attisdropped),"
    " (SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a"
    "   WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attname OPERATOR(pg_catalog.=) 'next_seq'"
    "   AND NOT a.attisdropped),"
    " (SELECT a.attnotnull FROM pg_catalog.pg_attribute a"
    "   WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attname OPERATOR(pg_catalog.=) 'next_seq'"
    "   AND NOT a.attisdropped),"
    " EXISTS (SELECT FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a"
    "   ON a.attrelid OPERATOR(pg_catalog.=) i.indrelid AND a.attnum OPERATOR(pg_catalog.=) i.indkey[0]"
    "   WHERE i.indrelid OPERATOR(pg_catalog.=) c.oid AND i.indisunique AND i.indimmediate"
    "   AND i.indnkeyatts OPERATOR(pg_catalog.=) 1 AND i.indpred IS NULL AND i.indexprs IS NULL"
    "   AND a.attname OPERATOR(pg_catalog.=) 'ts'),"
    " (SELECT pg_catalog.string_agg(a.attname::pg_catalog.text, ', ' ORDER BY a.attnum) FROM pg_catalog.pg_attribute a"
    "   WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped"
    "   AND a.attnotnull AND NOT a.atthasdef AND a.attidentity OPERATOR(pg_catalog.=) ''"
    "   AND a.attgenerated OPERATOR(pg_catalog.=) ''"
    "   AND a.attname OPERATOR(pg_catalog.<>) ALL ('{ts,next_seq}'::pg_catalog.name[]))"
    " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
    " WHERE n.nspname OPERATOR(pg_catalog.=) $1::pg_catalog.name AND c.relname OPERATOR(pg_catalog.=) "
    "$2::pg_catalog.name";

void shape_sink(void *context, int columns, const char *const *values) noexcept {
    auto *row = static_cast<ShapeRow *>(context);
    if (columns != 6)
        return;
    row->found = true;
    row->relkind = values[0] ? values[0][0] : 0;
    std::snprintf(row->ts_type, sizeof row->ts_type, "%s", values[1] ? values[1] : "");
    std::snprintf(row->next_seq_type, sizeof row->next_seq_type, "%s", values[2] ? values[2] : "");
    row->next_seq_not_null = values[3] && values[3][0] == 't';
    row->ts_unique = values[4] && values[4][0] == 't';
    std::snprintf(row->required_extra, sizeof row->required_extra, "%s", values[5] ? values[5] : "");
}

void shape_verdict(const ShapeRow &row, char *out, size_t size) {
    pg::guarded([&] {
        core::registry::TableShape shape;
        shape.exists = row.found;
        shape.relkind = row.relkind;
        shape.ts_type = row.ts_type;
        shape.next_seq_type = row.next_seq_type;
        shape.next_seq_not_null = row.next_seq_not_null;
        shape.ts_unique = row.ts_unique;
        shape.required_extra = row.required_extra;
        std::snprintf(out, size, "%s", core::registry::shape_problem(shape).c_str());
    });
}

namespace {

// A one-column row into a NAMEDATALEN buffer (the extension's schema).
struct NameRow {
    bool found = false;
    char name[NAMEDATALEN] = "";
};
void name_sink(void *context, int columns, const char *const *values) noexcept {
    auto *row = static_cast<NameRow *>(context);
    if (columns < 1 || !values[0])
        return;
    row->found = true;
    std::snprintf(row->name, sizeof row->name, "%s", values[0]);
}

// "schema"."name" as SQL reads it (quoting only what needs it).
void qualified(char *out, size_t size, const char *schema, const char *name) {
    char *text = quote_qualified_identifier(schema, name);
    std::snprintf(out, size, "%s", text);
    pfree(text);
}

// Whether object p.oid (c.oid) of catalog `catalog` is a member of extension crid,
// when $2 says crid is installed there: in a database whose crid is older
// than the objects the worker calls, a function or table of their name in
// crid's schema is whoever's may create there (the database owner's), and
// the block reserver would run it as the bootstrap superuser.
#define CRID_MEMBER(object, catalog)                                                                                   \
    " AND ($2::pg_catalog.bool IS NOT TRUE OR EXISTS (SELECT FROM pg_catalog.pg_depend d"                              \
    " JOIN pg_catalog.pg_extension e ON e.oid OPERATOR(pg_catalog.=) d.refobjid"                                       \
    " WHERE d.classid OPERATOR(pg_catalog.=) '" catalog "'::pg_catalog.regclass"                                       \
    " AND d.objid OPERATOR(pg_catalog.=) " object                                                                      \
    " AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass"                          \
    " AND d.deptype OPERATOR(pg_catalog.=) 'e'::pg_catalog.\"char\""                                                   \
    " AND e.extname OPERATOR(pg_catalog.=) 'crid'::pg_catalog.name))"

// One row for each of crid_registry_check(regclass),
// crid_registry_reserve(regclass, int8, int8, int8, int8) and
// crid_node_lease_take(int4[], int4[], text, text, int8, int8, int8, int4)
// that schema $1 holds (crid's own, where crid is installed: $2).
constexpr const char *check_query =
    "SELECT FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace"
    " WHERE n.nspname OPERATOR(pg_catalog.=) $1::pg_catalog.name"
    " AND ((p.proname OPERATOR(pg_catalog.=) 'crid_registry_check'::pg_catalog.name"
    "       AND p.proargtypes OPERATOR(pg_catalog.=) '2205'::pg_catalog.oidvector)"
    "   OR (p.proname OPERATOR(pg_catalog.=) 'crid_registry_reserve'::pg_catalog.name"
    "       AND p.proargtypes OPERATOR(pg_catalog.=) '2205 20 20 20 20'::pg_catalog.oidvector)"
    "   OR (p.proname OPERATOR(pg_catalog.=) 'crid_node_lease_take'::pg_catalog.name"
    "       AND p.proargtypes OPERATOR(pg_catalog.=) '1007 1007 25 25 20 20 20 23'::pg_catalog.oidvector))" CRID_MEMBER(
        "p.oid", "pg_catalog.pg_proc");

void count_sink(void *context, int, const char *const *) noexcept { ++*static_cast<int *>(context); }

// One row when crid_node_leases in schema $1 has the column `generation`
// that fences lease statements (crid 0.4.0: sql/registry/crid_node_leases_fencing.sql).
constexpr const char *fencing_query =
    "SELECT FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid"
    " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
    " WHERE n.nspname OPERATOR(pg_catalog.=) $1::pg_catalog.name"
    " AND c.relname OPERATOR(pg_catalog.=) 'crid_node_leases'::pg_catalog.name"
    " AND a.attname OPERATOR(pg_catalog.=) 'generation'::pg_catalog.name AND NOT a.attisdropped" CRID_MEMBER(
        "c.oid", "pg_catalog.pg_class");
#undef CRID_MEMBER

// The continuity check beside the leases (a registry of crid older than
// 0.3.0 has none): Found::ok, or Found::outdated with the way out.
Found locate_check(Session &session, Location &out, const char *schema, bool extension, Failure &failure) {
    int found = 0, fenced = 0;
    NameRow oid;
    Statement statements[3];
    const char *members = extension ? "true" : "false";
    statements[0].set(check_query, {schema, members}, count_sink, &found);
    statements[1].set("SELECT n.oid::pg_catalog.text FROM pg_catalog.pg_namespace n"
                      " WHERE n.nspname OPERATOR(pg_catalog.=) $1::pg_catalog.name",
                      {schema}, name_sink, &oid);
    statements[2].set(fencing_query, {schema, members}, count_sink, &fenced);
    if (!session.run(statements, 3, true, failure))
        return Found::failed;
    std::snprintf(out.schema, sizeof out.schema, "%s", schema);
    std::snprintf(out.schema_oid, sizeof out.schema_oid, "%s", oid.name);
    const char *way_out = extension ? "ALTER EXTENSION crid UPDATE" : "crid_registry_server.sql (docs/fleet.md) again";
    if (found < 3) {
        set_failure(failure, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                    "%s lacks crid_registry_check(), crid_registry_reserve() or crid_node_lease_take() in schema "
                    "\"%s\", with which crid 0.3.0 checks every reservation and leases nodes; run %s there",
                    session.name(), schema, way_out);
        return Found::outdated;
    }
    if (fenced < 1) {
        set_failure(failure, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                    "%s has no column \"generation\" in %s.crid_node_leases, with which crid 0.4.0 fences lease "
                    "renewals and releases that arrive late or twice: upgrade the registry before its members, "
                    "run %s there",
                    session.name(), schema, way_out);
        return Found::outdated;
    }
    qualified(out.check, sizeof out.check, schema, "crid_registry_check");
    qualified(out.state, sizeof out.state, schema, "crid_registry_state");
    qualified(out.reserve, sizeof out.reserve, schema, "crid_registry_reserve");
    qualified(out.next_seq, sizeof out.next_seq, schema, "crid_registry_next_seq");
    qualified(out.take, sizeof out.take, schema, "crid_node_lease_take");
    return Found::ok;
}

} // namespace

Found locate(Session &session, Location &out, Failure &failure) {
    const RegistryTable &configured = registry_table();
    NameRow extension;
    ShapeRow shape;
    Statement statements[2];
    statements[0].set("SELECT n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n"
                      " ON n.oid OPERATOR(pg_catalog.=) e.extnamespace"
                      " WHERE e.extname OPERATOR(pg_catalog.=) 'crid'::pg_catalog.name",
                      {}, name_sink, &extension);
    int count = 1;
    if (configured.set)
        statements[count++].set(shape_query, {configured.schema, configured.name}, shape_sink, &shape);
    if (!session.run(statements, count, true, failure))
        return Found::failed;
    if (configured.set) {
        char problem[256];
        shape_verdict(shape, problem, sizeof problem);
        std::snprintf(out.shown, sizeof out.shown, "%s.%s", configured.schema, configured.name);
        if (problem[0]) {
            set_failure(failure, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                        "crid.registry_table names %s, which %s in %s", out.shown, problem, session.name());
            return Found::bad_table;
        }
        qualified(out.table, sizeof out.table, configured.schema, configured.name);
        // Here the worker is the bootstrap superuser: without crid in the
        // database, the functions it would call beside the table are
        // whoever's may create in that schema (the database owner's), never
        // known to be crid's. Only a remote registry, reached as the role
        // crid.registry names, may be one without crid's C code.
        if (!extension.found && !session.remote()) {
            set_failure(failure, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                        "extension \"crid\" is not installed in %s, where crid.registry_table names %s: the worker "
                        "calls only crid's own functions in its own database",
                        session.name(), out.shown);
            return Found::no_extension;
        }
        // Leases live beside crid when it is installed there, else beside
        // the registry table (a registry made by sql/registry/crid_registry_server.sql).
        const char *beside = extension.found ? extension.name : configured.schema;
        qualified(out.leases, sizeof out.leases, beside, "crid_node_leases");
        return locate_check(session, out, beside, extension.found, failure);
    }
    if (!extension.found) {
        set_failure(failure, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, "extension \"crid\" is not installed in %s",
                    session.name());
        return Found::no_extension;
    }
    qualified(out.table, sizeof out.table, extension.name, "crid_allocations");
    qualified(out.leases, sizeof out.leases, extension.name, "crid_node_leases");
    std::snprintf(out.shown, sizeof out.shown, "%s.crid_allocations", extension.name);
    return locate_check(session, out, extension.name, true, failure);
}

} // namespace crid::pg::registry
