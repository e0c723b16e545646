#include "snowflake/node_words.hpp"

#include "common/boundary.hpp"
#include "common/shared_struct.hpp"
#include "marks/high_water.hpp"
#include "snowflake/snowflake_settings.hpp"

namespace crid::pg::snowflake {

namespace {

NodeWord *words = nullptr;

Size words_size() { return mul_size(sizeof(NodeWord), Size(node_word_count())); }

// The word every node starts from after a restart at that mark.
uint64_t state_after(int64_t mark_ms) {
    const core::snowflake::Layout &layout = server_layout();
    return pg::guarded([&] { return core::snowflake::state_after_restart(layout, mark_ms); });
}

} // namespace

void request_words() { RequestAddinShmemSpace(words_size()); }

void startup_words(int64_t mark_ms) {
    bool created = false;
    words = shared_struct<NodeWord>("crid snowflake nodes", created, words_size());
    if (!created)
        return;
    uint64_t start = state_after(mark_ms);
    for (int64_t i = 0; i < node_word_count(); ++i) {
        NodeWord &w = words[i];
        w.state.init(start);
        for (pg_atomic_uint64 *c :
             {&w.minted, &w.clock_waits, &w.clock_borrows, &w.clock_refusals, &w.exhaustion_waits})
            pg_atomic_init_u64(c, 0);
    }
}

NodeWord *node_words() noexcept { return words; }

int64_t node_word_count() noexcept { return int64_t(1) << server_layout().node_bits; }

void raise_all_words(int64_t unix_ms, bool exactly) {
    uint64_t start = state_after(unix_ms);
    for (int64_t i = 0; i < node_word_count(); ++i) {
        if (exactly)
            words[i].state.store(start);
        else
            core::advance(words[i].state, [start](uint64_t old) { return old > start ? old : start; });
    }
}

void raise_node_above(int64_t node, int64_t unix_ms) {
    marks::ensure_high_water(unix_ms);
    uint64_t start = state_after(unix_ms);
    core::advance(words[node].state, [start](uint64_t old) { return old > start ? old : start; });
}

int64_t node_last_unix_ms(int64_t node) {
    if (node < 0 || node >= node_word_count())
        return 0;
    const core::snowflake::Layout &l = server_layout();
    uint64_t state = words[node].state.load();
    return state == 0 ? 0 : core::snowflake::unit_start_unix_ms(l, core::snowflake::state_unit(l, state));
}

} // namespace crid::pg::snowflake
