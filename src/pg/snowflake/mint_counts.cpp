#include "snowflake/mint_counts.hpp"

#include "common/minting.hpp"
#include "common/pg_compat.hpp"
#include "common/shared_struct.hpp"

extern "C" {
#include "storage/proc.h"
}

namespace crid::pg::snowflake {

namespace {

SlotMintCounts *counts = nullptr;

Size counts_size() { return mul_size(sizeof(SlotMintCounts), Size(process_slot_count())); }

// This process's entry for `node`, binding a free one the first time, or
// nullptr when its slot has none left. The last answer is kept: a backend
// mints for one node most of the time.
pg_atomic_uint64 *entry_for(int64_t node) {
    static int64_t cached_node = -1;
    static pg_atomic_uint64 *cached = nullptr;
    if (node == cached_node)
        return cached;
    if (!counts || !MyProc)
        return nullptr;
    SlotMintCounts &mine = counts[compat::my_proc_number()];
    const uint32 wanted = uint32(node + 1);
    for (int i = 0; i < mint_count_entries; ++i) {
        uint32 bound = pg_atomic_read_u32(&mine.node_plus_one[i]);
        if (bound == 0) {
            pg_atomic_write_u32(&mine.node_plus_one[i], wanted);
            // A reader that sees this entry's count sees its node too.
            pg_write_barrier();
            bound = wanted;
        }
        if (bound == wanted) {
            cached_node = node;
            cached = &mine.minted[i];
            return cached;
        }
    }
    return nullptr;
}

} // namespace

void request_mint_counts() { RequestAddinShmemSpace(counts_size()); }

void startup_mint_counts() {
    bool created = false;
    counts = shared_struct<SlotMintCounts>("crid snowflake mint counts", created, counts_size());
    if (!created)
        return;
    for (uint64_t p = 0; p < process_slot_count(); ++p)
        for (int i = 0; i < mint_count_entries; ++i) {
            pg_atomic_init_u32(&counts[p].node_plus_one[i], 0);
            pg_atomic_init_u64(&counts[p].minted[i], 0);
        }
}

void count_minted(NodeWord &word, int64_t node) {
    if (pg_atomic_uint64 *c = entry_for(node))
        pg_atomic_write_u64(c, pg_atomic_read_u64(c) + 1); // its only writer: no locked add
    else
        pg_atomic_fetch_add_u64(&word.minted, 1);
}

void add_minted(uint64 *per_node) {
    const int64_t nodes = node_word_count();
    NodeWord *words = node_words();
    for (int64_t n = 0; n < nodes; ++n)
        per_node[n] += pg_atomic_read_u64(&words[n].minted);
    for (uint64_t p = 0; p < process_slot_count(); ++p)
        for (int i = 0; i < mint_count_entries; ++i) {
            uint32 bound = pg_atomic_read_u32(&counts[p].node_plus_one[i]);
            pg_read_barrier();
            if (bound != 0 && int64_t(bound) <= nodes)
                per_node[bound - 1] += pg_atomic_read_u64(&counts[p].minted[i]);
        }
}

} // namespace crid::pg::snowflake
