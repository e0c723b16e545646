// crid.snowflake_nodes ("0-15,32"): any text is a node set or a core error,
// and a set prints as text that reads back to the same set.
#include "fuzz.hpp"

#include "../../src/core/snowflake_node_set.hpp"

using crid::core::NodeSet;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    NodeSet set;
    if (!crid::fuzz::accepted([&] { set = NodeSet::parse(crid::fuzz::text_of(data, size)); }))
        return 0;
    std::string text = set.describe();
    NodeSet again;
    crid::fuzz::require(crid::fuzz::accepted([&] { again = NodeSet::parse(text == "all" ? "" : text); }),
                        "describe() reads back");
    crid::fuzz::require(again.describe() == text, "describe() is stable");
    for (int64_t node : {INT64_C(-1), INT64_C(0), INT64_C(7), INT64_C(1023), INT64_C(65535), INT64_C(65536)})
        crid::fuzz::require(set.contains(node) == again.contains(node), "the same nodes");
    return 0;
}
