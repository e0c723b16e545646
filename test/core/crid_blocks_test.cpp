// The crid block server: serving blocks in order, empty and refill, the
// producer's threshold and ring limits, a reader stalled across a slot reuse
// driven step by step, and one producer racing four consumer threads.
#include "check.hpp"

#include "../../src/core/crid_blocks.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

using namespace crid::core;
using namespace crid::core::crid_ids;

namespace {

using Kind = Result::Kind;

// ThreadWord that gives up the CPU before one operation in four, so a
// thread is often descheduled between fetching a ticket and reading a slot,
// or inside a seqlock read, even on a machine with few cores.
struct JitterAtomic {
    ThreadWord word;
    static void jitter() noexcept {
        thread_local uint32_t x = 0x9e3779b9u ^ uint32_t(std::hash<std::thread::id>{}(std::this_thread::get_id()));
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        if ((x & 3) == 0)
            std::this_thread::yield();
    }
    uint64_t load() const noexcept {
        jitter();
        return word.load();
    }
    void store(uint64_t v) noexcept {
        jitter();
        word.store(v);
    }
    uint64_t fetch_add(uint64_t v) noexcept {
        jitter();
        return word.fetch_add(v);
    }
    bool compare_exchange(uint64_t &expected, uint64_t desired) noexcept {
        jitter();
        return word.compare_exchange(expected, desired);
    }
};
template <size_t R = 8, class A = ThreadWord>
using Server = BlockServer<A, R>;

// A reset server on the heap (it is cache-line aligned and not movable).
template <size_t R = 8, class A = ThreadWord>
std::unique_ptr<Server<R, A>> fresh() {
    auto s = std::make_unique<Server<R, A>>();
    s->reset();
    return s;
}

// The id take() returns, or -1 when it returns anything else.
template <class S>
int64_t id_of(S &s) {
    Result r = s.take();
    return r.kind == Kind::id ? r.id : -1;
}

} // namespace

TEST(crid_blocks_empty_until_published) {
    auto s = fresh();
    CHECK(s->take().kind == Kind::empty);
    CHECK(s->take().kind == Kind::empty);
    CHECK_EQ(s->published(), uint64_t(0));
    CHECK_EQ(s->remaining(), uint64_t(0));
    CHECK(s->needs_block(5000));
    CHECK(s->needs_block(0));
    // Tickets given up while empty do not eat into the first block.
    CHECK(s->publish(1000, 3));
    CHECK_EQ(s->remaining(), uint64_t(3));
    CHECK_EQ(id_of(*s), 1000);
    CHECK_EQ(id_of(*s), 1001);
    CHECK_EQ(id_of(*s), 1002);
    CHECK(s->take().kind == Kind::empty);
}

TEST(crid_blocks_serve_each_block_in_order_then_switch) {
    auto s = fresh();
    CHECK(s->publish(100, 5));
    CHECK(s->publish(7000, 2));
    CHECK(s->publish(50, 1));
    std::vector<int64_t> got;
    for (int i = 0; i < 8; ++i)
        got.push_back(id_of(*s));
    CHECK(got == (std::vector<int64_t>{100, 101, 102, 103, 104, 7000, 7001, 50}));
    CHECK_EQ(s->current(), uint64_t(3));
    CHECK(s->take().kind == Kind::empty);
    CHECK(s->take().kind == Kind::empty);
    // After empties, the next block is served from its start.
    CHECK(s->publish(900, 2));
    CHECK_EQ(id_of(*s), 900);
    CHECK_EQ(id_of(*s), 901);
    CHECK(s->take().kind == Kind::empty);
}

TEST(crid_blocks_needs_block_threshold) {
    auto s = fresh();
    CHECK(s->needs_block(5));
    CHECK(s->publish(0, 10));
    for (int i = 0; i < 5; ++i)
        CHECK(id_of(*s) >= 0);
    CHECK_EQ(s->remaining(), uint64_t(5));
    CHECK(!s->needs_block(5)); // 5 left, not fewer than 5
    CHECK(s->needs_block(6));
    CHECK(!s->needs_block(0)); // threshold 0: only once used up
    CHECK(id_of(*s) >= 0);
    CHECK(s->needs_block(5));
    CHECK(s->publish(100, 10));
    CHECK_EQ(s->remaining(), uint64_t(14));
    CHECK(!s->needs_block(5));
    for (int i = 0; i < 14; ++i)
        CHECK(id_of(*s) >= 0);
    CHECK(s->needs_block(0));
    CHECK(s->take().kind == Kind::empty);
}

// With R slots the producer stays at most R - 1 generations ahead of current.
TEST(crid_blocks_ring_full_is_refused) {
    auto s = fresh<4>();
    CHECK_EQ(s->room(), uint64_t(4));
    CHECK(s->publish(0, 2)); // generation 1, current
    CHECK_EQ(s->room(), uint64_t(3));
    CHECK(s->publish(10, 2));  // 2
    CHECK(s->publish(20, 2));  // 3
    CHECK(s->publish(30, 2));  // 4 = current + 3, in the slot no block used yet
    CHECK(!s->publish(40, 2)); // 5 would overwrite generation 1, still current
    CHECK_EQ(s->room(), uint64_t(0));
    CHECK(!s->needs_block(100));
    CHECK_EQ(s->published(), uint64_t(4));
    CHECK_EQ(id_of(*s), 0);
    CHECK_EQ(id_of(*s), 1);
    // Block 1 is handed out; the producer moves current on by itself.
    CHECK_EQ(s->room(), uint64_t(1));
    CHECK(s->needs_block(100));
    CHECK(s->publish(40, 2));
    CHECK_EQ(s->current(), uint64_t(2));
    CHECK(!s->publish(50, 2));
    for (int64_t want : {10, 11, 20, 21, 30, 31, 40, 41})
        CHECK_EQ(id_of(*s), want);
    CHECK(s->take().kind == Kind::empty);
}

TEST(crid_blocks_publish_rejects_impossible_blocks) {
    auto s = fresh();
    CHECK_THROWS(s->publish(0, 0), internal);
    CHECK_THROWS(s->publish(-1, 5), internal);
    CHECK_THROWS(s->publish(INT64_MAX, 2), internal);
    CHECK_THROWS(s->publish(0, max_served_block + 1), internal);
    CHECK(s->publish(INT64_MAX, 1));
    CHECK_EQ(id_of(*s), INT64_MAX);
}

// A reader takes a ticket and stalls; meanwhile the others use up its block,
// the ring wraps and its slot is reused. Its ticket must not map into the new
// block (that id goes to someone else): it is dropped.
TEST(crid_blocks_stalled_reader_across_slot_reuse_is_dropped) {
    auto s = fresh<2>();
    CHECK(s->publish(100, 3));     // generation 1 in slot 1
    uint64_t stalled = s->fetch(); // ticket 0: id 100 if served now
    CHECK_EQ(stalled, uint64_t(0));
    CHECK_EQ(id_of(*s), 101);
    CHECK_EQ(id_of(*s), 102);
    CHECK(s->publish(200, 3)); // generation 2 in slot 0
    CHECK(s->publish(300, 3)); // generation 3 reuses slot 1
    std::vector<int64_t> others;
    for (int i = 0; i < 6; ++i)
        others.push_back(id_of(*s));
    CHECK(others == (std::vector<int64_t>{200, 201, 202, 300, 301, 302}));
    Result r = s->resolve(stalled);
    CHECK(r.kind == Kind::dropped);
    CHECK(s->take().kind == Kind::empty);
}

// The same stall while the ring still holds the block: the ticket is served
// from its own block even though current moved past it.
TEST(crid_blocks_stalled_reader_served_from_an_older_block) {
    auto s = fresh<4>();
    CHECK(s->publish(100, 2));
    CHECK(s->publish(200, 2));
    uint64_t stalled = s->fetch(); // the first ticket of block 1
    CHECK_EQ(id_of(*s), 101);
    CHECK_EQ(id_of(*s), 200); // current is now generation 2
    CHECK_EQ(s->current(), uint64_t(2));
    Result r = s->resolve(stalled);
    CHECK(r.kind == Kind::id);
    CHECK_EQ(r.id, 100);
    CHECK_EQ(id_of(*s), 201);
}

// A ticket handed out while nothing was published, resolved after the block
// appeared: it lies below the block's tickets and is dropped, not mapped.
TEST(crid_blocks_ticket_from_before_a_block_is_dropped) {
    auto s = fresh();
    CHECK(s->take().kind == Kind::empty); // ticket 0 given up
    uint64_t early = s->fetch();          // ticket 1
    CHECK(s->publish(500, 2));            // its tickets start at 2
    CHECK(s->resolve(early).kind == Kind::dropped);
    CHECK_EQ(id_of(*s), 500);
    CHECK_EQ(id_of(*s), 501);
}

// A block published before the previous one runs out continues its ticket
// range, and tickets resolve to their own block in any order.
TEST(crid_blocks_next_block_continues_the_ticket_range) {
    auto s = fresh();
    CHECK(s->publish(0, 2));
    uint64_t a = s->fetch(), b = s->fetch();
    CHECK(s->publish(10, 4)); // published before the first block ran out: contiguous
    uint64_t c = s->fetch();
    CHECK_EQ(s->resolve(c).id, 10);
    CHECK_EQ(s->resolve(b).id, 1);
    CHECK_EQ(s->resolve(a).id, 0);
    CHECK_EQ(id_of(*s), 11);
}

// The first id of the block whose low four bits are the gene, skipping the
// ids before it (a gap); plain take() goes on after it.
TEST(crid_blocks_take_with_gene_claims_up_to_the_gene) {
    auto s = fresh();
    const BitField gene{.name = "gene", .width = 4, .shift = 0};
    CHECK(s->publish(1000, 100)); // 1000 & 15 = 8
    Result r = s->take_with_gene(gene, 5);
    CHECK(r.kind == Kind::id);
    CHECK_EQ(r.id, 1013);
    CHECK_EQ(id_of(*s), 1014);
    CHECK_EQ(s->take_with_gene(gene, 15).id, 1023);
    CHECK_EQ(s->take_with_gene(gene, 0).id, 1024); // the next id already carries it
    CHECK_EQ(s->remaining(), uint64_t(100 - 25));
}

// A block whose rest holds no id of the gene is claimed whole (a gap) and
// the id comes from the next block; with none published, nothing is taken.
TEST(crid_blocks_take_with_gene_moves_to_the_next_block) {
    auto s = fresh();
    const BitField gene{.name = "gene", .width = 4, .shift = 0};
    CHECK(s->take_with_gene(gene, 1).kind == Kind::empty);
    CHECK(s->publish(1000, 10)); // 1000 .. 1009: genes 8 .. 15, then 0 .. 1
    CHECK(s->take_with_gene(gene, 7).kind == Kind::empty);
    CHECK_EQ(s->remaining(), uint64_t(0)); // the block was claimed as a gap
    CHECK(s->take_with_gene(gene, 7).kind == Kind::empty);
    CHECK(s->publish(2000, 100));
    CHECK_EQ(s->take_with_gene(gene, 7).id, 2007);
    CHECK_EQ(id_of(*s), 2008);
    // A gene reached at the very last id of a block.
    auto t = fresh();
    CHECK(t->publish(1000, 10));
    CHECK_EQ(t->take_with_gene(gene, 1).id, 1009);
    CHECK(t->take().kind == Kind::empty);
}

// A run of consecutive ids from one block; a block whose rest is too short
// is claimed as a gap and the run comes from the next; a block shorter than
// the run is never claimed.
TEST(crid_blocks_take_run_claims_consecutive_ids) {
    auto s = fresh();
    CHECK(s->take_run(5).kind == Kind::empty);
    CHECK(s->publish(1000, 12));
    Result r = s->take_run(5);
    CHECK(r.kind == Kind::id);
    CHECK_EQ(r.id, 1000);
    CHECK_EQ(s->take_run(5).id, 1005);
    CHECK_EQ(id_of(*s), 1010);
    CHECK(s->take_run(5).kind == Kind::empty); // 1011 .. 1011 left: a gap
    CHECK_EQ(s->remaining(), uint64_t(0));
    CHECK(s->publish(2000, 4));
    CHECK(s->take_run(5).kind == Kind::dropped); // never fits a block of 4
    CHECK_EQ(s->remaining(), uint64_t(4));
    CHECK_EQ(s->take_run(4).id, 2000);
    CHECK(s->publish(3000, 100));
    CHECK_EQ(s->take_run(1).id, 3000);
}

// Threads taking runs and single ids at once: every id is handed out once.
TEST(crid_blocks_take_run_races_take) {
    auto s = fresh<8, JitterAtomic>();
    std::atomic<bool> stop{false};
    std::thread producer([&] {
        int64_t next = 0;
        while (!stop.load()) {
            if (s->needs_block(500) && s->publish(next, 1000))
                next += 1000 + 7; // a hole between blocks
            std::this_thread::yield();
        }
    });
    std::vector<std::vector<int64_t>> got(4);
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; ++t)
        pool.emplace_back([&, t] {
            while (got[size_t(t)].size() < 20000) {
                const uint64_t count = t % 2 ? 1 + uint64_t(got[size_t(t)].size() % 37) : 1;
                Result r = count == 1 ? s->take() : s->take_run(count);
                if (r.kind != Kind::id) {
                    std::this_thread::yield();
                    continue;
                }
                for (uint64_t i = 0; i < count; ++i)
                    got[size_t(t)].push_back(r.id + int64_t(i));
            }
        });
    for (auto &th : pool)
        th.join();
    stop = true;
    producer.join();
    std::vector<int64_t> all;
    for (auto &g : got)
        all.insert(all.end(), g.begin(), g.end());
    std::sort(all.begin(), all.end());
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
    for (int64_t id : all)
        if (id % 1007 >= 1000) { // in a hole between blocks
            CHECK(id % 1007 < 1000);
            break;
        }
}

namespace {

struct Published {
    int64_t first_id, size;
};

// One producer publishing blocks of `sizes` in turn, ids spaced so a stray id
// falls outside every block, against `consumers` threads each taking
// `per_thread` ids (spinning on empty). With gene_bits > 0, every other
// thread takes ids with a gene of that many bits (its own number) instead.
// Checks uniqueness, membership, genes and the per-thread order inside each
// block.
template <size_t R = 8, class A = ThreadWord>
void race(int64_t threshold, std::vector<int64_t> sizes, int consumers, int per_thread, bool lazy_producer,
          int gene_bits = 0) {
    auto s = fresh<R, A>();
    std::atomic<bool> done{false};
    std::vector<Published> blocks;
    std::thread producer([&] {
        int64_t next_first = 1000;
        size_t turn = 0;
        while (!done.load()) {
            if (s->needs_block(threshold)) {
                int64_t size = sizes[turn % sizes.size()];
                if (s->publish(next_first, size)) {
                    blocks.push_back({next_first, size});
                    next_first += size + 1000;
                    ++turn;
                }
            }
            if (lazy_producer || turn % 16 == 0)
                std::this_thread::yield();
        }
    });
    std::vector<std::vector<int64_t>> ids(static_cast<size_t>(consumers));
    std::vector<std::thread> pool;
    for (int t = 0; t < consumers; ++t)
        pool.emplace_back([&, t] {
            auto &mine = ids[size_t(t)];
            mine.reserve(size_t(per_thread));
            const BitField gene{.name = "gene", .width = gene_bits, .shift = 0};
            const bool with_gene = gene_bits > 0 && t % 2 == 1;
            while (int(mine.size()) < per_thread) {
                Result r = with_gene ? s->take_with_gene(gene, uint64_t(t) & gene.max()) : s->take();
                if (r.kind == Kind::id)
                    mine.push_back(r.id);
                else
                    std::this_thread::yield();
            }
        });
    for (auto &th : pool)
        th.join();
    done.store(true);
    producer.join();

    // Which block an id belongs to (blocks are published in increasing order).
    auto block_of = [&](int64_t id) -> int64_t {
        auto it = std::upper_bound(blocks.begin(), blocks.end(), id,
                                   [](int64_t v, const Published &b) { return v < b.first_id; });
        if (it == blocks.begin())
            return -1;
        --it;
        return id < it->first_id + it->size ? int64_t(it - blocks.begin()) : -1;
    };
    std::vector<int64_t> all;
    for (int t = 0; t < consumers; ++t) {
        auto &mine = ids[size_t(t)];
        CHECK_EQ(int(mine.size()), per_thread);
        int64_t last_block = -1, last_id = -1;
        int out_of_order = 0, stray = 0, wrong_gene = 0;
        const bool with_gene = gene_bits > 0 && t % 2 == 1;
        for (int64_t id : mine) {
            int64_t b = block_of(id);
            if (b < 0)
                ++stray;
            if (with_gene && (id & ((INT64_C(1) << gene_bits) - 1)) != (t & ((1 << gene_bits) - 1)))
                ++wrong_gene;
            if (b == last_block && id <= last_id)
                ++out_of_order;
            last_block = b;
            last_id = id;
        }
        CHECK_EQ(stray, 0);
        CHECK_EQ(out_of_order, 0);
        CHECK_EQ(wrong_gene, 0);
        all.insert(all.end(), mine.begin(), mine.end());
    }
    std::sort(all.begin(), all.end());
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
}

} // namespace

TEST(crid_blocks_threads_eager_producer_small_blocks) { race(150, {7, 100}, 4, 100000, false); }

// Threshold 0: the producer only refills once the server is empty, so the
// consumers keep hitting empty, switching blocks and resolving stale tickets.
TEST(crid_blocks_threads_lazy_producer_empty_often) { race(0, {7, 1, 100, 3}, 4, 100000, true); }

// Two slots: every publish reuses the slot of the block before current, so
// stalled readers meet reused slots all the time.
TEST(crid_blocks_threads_two_slot_ring) { race<2>(50, {7, 2, 100}, 4, 100000, false); }

// Threads descheduled at random points of take() and publish().
TEST(crid_blocks_threads_jittery_scheduling) {
    race<2, JitterAtomic>(20, {7, 1, 30}, 4, 50000, false);
    race<4, JitterAtomic>(0, {7, 100}, 4, 50000, true);
}

// crid_next(gene, bits): genes from the same blocks as plain ids, never the
// same id twice, with small blocks that often hold no id of a thread's gene.
TEST(crid_blocks_threads_with_and_without_genes) {
    race(150, {7, 100, 33}, 4, 30000, false, 3);
    race<2, JitterAtomic>(20, {7, 1, 30}, 4, 20000, false, 2);
}
