// crid.snowflake_nodes parsing: ranges, single nodes, the empty "all", and
// every malformed form refused.
#include "check.hpp"

#include "../../src/core/snowflake_node_set.hpp"

using namespace crid::core;

TEST(node_set_empty_means_every_node) {
    NodeSet all = NodeSet::parse("  ");
    CHECK(all.contains(0));
    CHECK(all.contains(65535));
    CHECK_EQ(all.describe(), std::string("all"));
}

TEST(node_set_ranges_and_singles) {
    NodeSet s = NodeSet::parse("0-3, 7 ,10-10");
    CHECK(s.contains(0));
    CHECK(s.contains(3));
    CHECK(!s.contains(4));
    CHECK(s.contains(7));
    CHECK(s.contains(10));
    CHECK(!s.contains(11));
    CHECK_EQ(s.describe(), std::string("0-3,7,10"));
}

TEST(node_set_refuses_malformed_text) {
    CHECK_THROWS(NodeSet::parse("a"), invalid_parameter);
    CHECK_THROWS(NodeSet::parse("1,"), invalid_parameter);
    CHECK_THROWS(NodeSet::parse("5-2"), invalid_parameter);
    CHECK_THROWS(NodeSet::parse("-1"), invalid_parameter);
    CHECK_THROWS(NodeSet::parse("65536"), invalid_parameter);
    CHECK_THROWS(NodeSet::parse("1-2-3"), invalid_parameter);
    CHECK_THROWS(NodeSet::parse("1 2"), invalid_parameter);
}
