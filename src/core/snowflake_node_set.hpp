// The set of snowflake nodes a server may mint for (crid.snowflake_nodes):
// text such as "0-15,32,40-47". An empty text means every node.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace crid::core {

class NodeSet {
  public:
    static constexpr int max_ranges = 64;

    // Parses the text; throws invalid_parameter naming the bad part. Node
    // numbers are 0 .. 65535.
    static NodeSet parse(std::string_view text);

    // True when `node` is in the set (always, for the empty text).
    bool contains(int64_t node) const noexcept;

    // The text it was parsed from, normalised ("all" when empty).
    std::string describe() const;

    // The ranges as parsed, for callers that walk the set (none: every node).
    int range_count() const noexcept { return count_; }
    int32_t range_first(int i) const noexcept { return ranges_[i].first; }
    int32_t range_last(int i) const noexcept { return ranges_[i].last; }

  private:
    struct Range {
        int32_t first, last;
    };
    Range ranges_[max_ranges] = {};
    int count_ = 0; // 0: every node
};

} // namespace crid::core
