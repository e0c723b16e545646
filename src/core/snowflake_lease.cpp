#include "snowflake_lease.hpp"

namespace crid::core::lease {

namespace {

// The ranges without node `never`: the range holding it loses it, or is
// split around it.
Ranges without(const Ranges &in, int64_t never) noexcept {
    if (never < 0)
        return in;
    Ranges out;
    for (int i = 0; i < in.count; ++i) {
        int32_t first = in.first[i], last = in.last[i];
        if (never < first || never > last) {
            out.first[out.count] = first;
            out.last[out.count++] = last;
            continue;
        }
        if (never > first) {
            out.first[out.count] = first;
            out.last[out.count++] = int32_t(never - 1);
        }
        if (never < last && out.count < Ranges::max_ranges) {
            out.first[out.count] = int32_t(never + 1);
            out.last[out.count++] = last;
        }
    }
    return out;
}

Ranges wanted_ranges(bool lease, int64_t node_id, const NodeSet &nodes, int64_t max_node) noexcept {
    Ranges r;
    if (nodes.range_count() == 0) {
        if (lease) {
            r.first[0] = 0;
            r.last[0] = int32_t(max_node);
            r.count = 1;
        } else if (node_id >= 0 && node_id <= max_node) {
            r.first[0] = r.last[0] = int32_t(node_id);
            r.count = 1;
        }
        return r;
    }
    for (int i = 0; i < nodes.range_count(); ++i) {
        if (nodes.range_first(i) > max_node)
            continue;
        r.first[r.count] = nodes.range_first(i);
        r.last[r.count] = nodes.range_last(i) > max_node ? int32_t(max_node) : nodes.range_last(i);
        ++r.count;
    }
    return r;
}

} // namespace

Ranges wanted(bool lease, int64_t node_id, const NodeSet &nodes, int64_t max_node, int64_t never) noexcept {
    return without(wanted_ranges(lease, node_id, nodes, max_node), never);
}

} // namespace crid::core::lease
