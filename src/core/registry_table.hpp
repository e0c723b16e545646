// crid.registry_table: the registry table a server reserves blocks in when it
// is not the extension's own crid_allocations, e.g. the table Go services
// created with the crid library's postgres.WithTable("schema.table").
//
// The text is read as PostgreSQL reads a (possibly qualified) table name, so
// it means in the setting what it means in the Go services' SQL: an unquoted
// part folds to lower case ("App.Crid_Allocations" is app.crid_allocations),
// a "double quoted" part is kept as written ("" is one quote). Every name the
// Go option accepts, [A-Za-z_][A-Za-z0-9_]* optionally qualified once, is an
// unquoted name here. A name without a schema is public's: the schema an
// unqualified name lands in under PostgreSQL's default search_path, while
// crid's own processes resolve nothing through a search_path.
//
// Parts longer than 63 bytes are refused (PostgreSQL would cut them short
// and name another table).
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace crid::core::registry {

inline constexpr size_t max_identifier_bytes = 63;

struct TableName {
    std::string schema; // as stored in the catalog (folded or unquoted)
    std::string name;
    friend bool operator==(const TableName &, const TableName &) = default;
};

// Parses the setting's text (not empty: empty means the extension's own
// table). Throws invalid_parameter naming crid.registry_table, the text and
// what is wrong with it.
TableName parse_table_name(std::string_view text);

// "schema"."name", every part quoted: parse_table_name reads it back as the
// same name, whatever it holds.
std::string quoted(const TableName &table);

// What the catalog says about the table a registry name resolves to, so
// that one rule (shape_problem) judges it wherever it was read: in a backend,
// in the worker over SPI, or on a remote registry over libpq.
struct TableShape {
    bool exists = false;
    char relkind = 0;          // 'r' table, 'p' partitioned table, others refused
    std::string ts_type;       // format_type of column ts ("" when missing)
    std::string next_seq_type; // format_type of column next_seq ("" when missing)
    bool next_seq_not_null = false;
    bool ts_unique = false;     // a unique, immediate, non-partial index on (ts) alone
    std::string required_extra; // other NOT NULL columns without a default ("" for none)
};

// "" when rows can be reserved in the table as the Go library and crid do
// (INSERT (ts, next_seq) ... ON CONFLICT (ts) DO UPDATE); else why not, in
// words that follow "crid.registry_table names <table>, which ...".
std::string shape_problem(const TableShape &shape);

} // namespace crid::core::registry
