#include "registry_table.hpp"

#include "error.hpp"
#include "text.hpp"

namespace crid::core::registry {

namespace {

[[noreturn]] void refuse(std::string_view text, const std::string &why) {
    throw Error(ErrorKind::invalid_parameter,
                "crid.registry_table \"" + std::string(text) + "\" is not a table name: " + why,
                "Write it as the Go services' postgres.WithTable() does: crid_allocations or "
                "schema.crid_allocations (a \"double quoted\" part keeps its case).");
}

constexpr bool starts_identifier(unsigned char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

constexpr bool continues_identifier(unsigned char c) noexcept {
    return starts_identifier(c) || (c >= '0' && c <= '9') || c == '$';
}

// Reads one identifier from the front of `rest` into `out`.
void read_part(std::string_view text, std::string_view &rest, std::string &out) {
    out.clear();
    if (rest.empty())
        refuse(text, "a name is missing");
    if (rest.front() == '"') {
        size_t i = 1;
        for (;;) {
            if (i >= rest.size())
                refuse(text, "a quoted name is not closed");
            if (rest[i] == '"') {
                if (i + 1 < rest.size() && rest[i + 1] == '"') {
                    out.push_back('"');
                    i += 2;
                    continue;
                }
                break;
            }
            if (rest[i] == '\0')
                refuse(text, "it contains a zero byte");
            out.push_back(rest[i++]);
        }
        if (out.empty())
            refuse(text, "a quoted name is empty");
        rest.remove_prefix(i + 1);
    } else {
        if (!starts_identifier(static_cast<unsigned char>(rest.front())))
            refuse(text, "a name must start with a letter or _, or be \"double quoted\"");
        size_t i = 0;
        while (i < rest.size() && continues_identifier(static_cast<unsigned char>(rest[i])))
            ++i;
        out = text::lower(rest.substr(0, i));
        rest.remove_prefix(i);
    }
    if (out.size() > max_identifier_bytes)
        refuse(text, "\"" + out + "\" is longer than " + std::to_string(max_identifier_bytes) + " bytes");
}

} // namespace

TableName parse_table_name(std::string_view text) {
    std::string_view rest = text::trim(text);
    TableName t;
    std::string first;
    read_part(text, rest, first);
    if (rest.empty()) {
        t.schema = "public";
        t.name = first;
        return t;
    }
    if (rest.front() != '.')
        refuse(text, "only letters, digits, _ and $ may follow a name, or a dot and a table name");
    rest.remove_prefix(1);
    read_part(text, rest, t.name);
    if (!rest.empty())
        refuse(text, rest.front() == '.' ? "name it as schema.table, without a database"
                                         : "there is text after the table name");
    t.schema = first;
    return t;
}

std::string quoted(const TableName &table) {
    std::string out;
    for (const std::string *part : {&table.schema, &table.name}) {
        if (!out.empty())
            out.push_back('.');
        out.push_back('"');
        for (char c : *part) {
            if (c == '"')
                out.push_back('"');
            out.push_back(c);
        }
        out.push_back('"');
    }
    return out;
}

std::string shape_problem(const TableShape &s) {
    if (!s.exists)
        return "does not exist";
    if (s.relkind != 'r' && s.relkind != 'p')
        return "is not a table";
    if (s.ts_type.empty())
        return "has no column ts";
    if (s.ts_type != "bigint")
        return "has a column ts of type " + s.ts_type + ", not bigint";
    if (s.next_seq_type.empty())
        return "has no column next_seq";
    if (s.next_seq_type != "bigint")
        return "has a column next_seq of type " + s.next_seq_type + ", not bigint";
    if (!s.next_seq_not_null)
        return "lets next_seq be NULL";
    if (!s.ts_unique)
        return "has no primary key (or unique index) on ts alone";
    if (!s.required_extra.empty())
        return "has other columns that need a value (" + s.required_extra + ")";
    return "";
}

} // namespace crid::core::registry
