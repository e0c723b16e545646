#include "snowflake_node_set.hpp"

#include "error.hpp"
#include "text.hpp"

#include <charconv>

namespace crid::core {

namespace {

using text::trim;

int32_t node_number(std::string_view s, std::string_view item) {
    s = trim(s);
    int32_t v = -1;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0 || v > 65535)
        throw Error(ErrorKind::invalid_parameter, "invalid node \"" + std::string(item) + "\" in crid.snowflake_nodes",
                    "List node numbers from 0 to 65535 and ranges, separated by commas, e.g. '0-15,32'.");
    return v;
}

} // namespace

NodeSet NodeSet::parse(std::string_view text) {
    NodeSet set;
    if (trim(text).empty())
        return set;
    while (true) {
        size_t comma = text.find(',');
        std::string_view item = trim(text.substr(0, comma));
        size_t dash = item.find('-');
        Range r;
        r.first = node_number(item.substr(0, dash), item);
        r.last = dash == std::string_view::npos ? r.first : node_number(item.substr(dash + 1), item);
        if (r.last < r.first)
            throw Error(ErrorKind::invalid_parameter,
                        "node range \"" + std::string(item) + "\" in crid.snowflake_nodes ends before it starts");
        if (set.count_ == max_ranges)
            throw Error(ErrorKind::invalid_parameter,
                        "crid.snowflake_nodes lists more than " + std::to_string(max_ranges) + " ranges");
        set.ranges_[set.count_++] = r;
        if (comma == std::string_view::npos)
            break;
        text.remove_prefix(comma + 1);
    }
    return set;
}

bool NodeSet::contains(int64_t node) const noexcept {
    if (count_ == 0)
        return true;
    for (int i = 0; i < count_; ++i)
        if (node >= ranges_[i].first && node <= ranges_[i].last)
            return true;
    return false;
}

std::string NodeSet::describe() const {
    if (count_ == 0)
        return "all";
    std::string s;
    for (int i = 0; i < count_; ++i) {
        if (i)
            s += ',';
        s += std::to_string(ranges_[i].first);
        if (ranges_[i].last != ranges_[i].first)
            s += '-' + std::to_string(ranges_[i].last);
    }
    return s;
}

} // namespace crid::core
