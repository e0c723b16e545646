#include "lease.hpp"

namespace crid::core::lease {

Ranges wanted(bool lease, int64_t node_id, const NodeSet &nodes, int64_t max_node) noexcept {
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

} // namespace crid::core::lease
