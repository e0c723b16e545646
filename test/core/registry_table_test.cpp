// crid.registry_table: every name the Go library's postgres.WithTable()
// accepts, read as PostgreSQL reads it; quoted names; every malformed form
// refused; and the shape rule for the table it names.
#include "check.hpp"

#include "../../src/core/registry_table.hpp"

using namespace crid::core;
using registry::parse_table_name;
using registry::TableName;

TEST(registry_table_go_names) {
    CHECK(parse_table_name("crid_allocations") == (TableName{"public", "crid_allocations"}));
    CHECK(parse_table_name("app.crid_allocations") == (TableName{"app", "crid_allocations"}));
    CHECK(parse_table_name("_x9._Y_") == (TableName{"_x9", "_y_"}));
    // Unquoted names fold to lower case, as in the Go services' own SQL.
    CHECK(parse_table_name("App.Crid_Allocations") == (TableName{"app", "crid_allocations"}));
    CHECK(parse_table_name("  ids.registry  ") == (TableName{"ids", "registry"}));
}

TEST(registry_table_quoted_names) {
    CHECK(parse_table_name("\"My Schema\".\"Reg\"\"istry\"") == (TableName{"My Schema", "Reg\"istry"}));
    CHECK(parse_table_name("\"public\".crid") == (TableName{"public", "crid"}));
    CHECK(parse_table_name("s.\"a.b\"") == (TableName{"s", "a.b"}));
    TableName odd{"we\"ird", "ta.ble"};
    CHECK(parse_table_name(registry::quoted(odd)) == odd);
    CHECK_EQ(registry::quoted(TableName{"public", "crid_allocations"}), std::string("\"public\".\"crid_allocations\""));
}

TEST(registry_table_refuses_malformed_names) {
    for (const char *bad : {"", "  ", "1abc", "a.", ".a", "a..b", "a.b.c", "a b", "a;drop table x", "\"", "\"\"",
                            "\"open", "a.\"\"", "a-b", "a.b c", "'a'"})
        CHECK_THROWS(parse_table_name(bad), invalid_parameter);
    CHECK(crid::test::contains(crid::test::message_of([] { parse_table_name("a.b.c"); }), "crid.registry_table"));
    CHECK(crid::test::contains(crid::test::message_of([] { parse_table_name("a.b.c"); }), "without a database"));
    std::string long_name(64, 'x');
    CHECK_THROWS(parse_table_name(long_name), invalid_parameter);
    CHECK(parse_table_name(std::string(63, 'x')).name.size() == 63);
}

TEST(registry_table_shape) {
    registry::TableShape go;
    go.exists = true;
    go.relkind = 'r';
    go.ts_type = "bigint";
    go.next_seq_type = "bigint";
    go.next_seq_not_null = true;
    go.ts_unique = true;
    CHECK_EQ(registry::shape_problem(go), std::string(""));
    registry::TableShape s = go;
    s.exists = false;
    CHECK_EQ(registry::shape_problem(s), std::string("does not exist"));
    s = go;
    s.relkind = 'v';
    CHECK_EQ(registry::shape_problem(s), std::string("is not a table"));
    s = go;
    s.relkind = 'p';
    CHECK_EQ(registry::shape_problem(s), std::string(""));
    s = go;
    s.ts_type = "integer";
    CHECK(crid::test::contains(registry::shape_problem(s), "ts of type integer"));
    s = go;
    s.next_seq_type = "";
    CHECK_EQ(registry::shape_problem(s), std::string("has no column next_seq"));
    s = go;
    s.next_seq_not_null = false;
    CHECK_EQ(registry::shape_problem(s), std::string("lets next_seq be NULL"));
    s = go;
    s.ts_unique = false;
    CHECK(crid::test::contains(registry::shape_problem(s), "no primary key"));
    s = go;
    s.required_extra = "owner";
    CHECK(crid::test::contains(registry::shape_problem(s), "(owner)"));
}
