// The lock-free hot path of crid_next(): backends take ids from blocks that a
// single producer (the background worker) reserved in the registry and
// published here. The server is a template over a 64-bit atomic so the same
// code runs over pg_atomic_uint64 in shared memory and std::atomic in tests.
//
// Tickets. One word, `ticket`, counts every take() ever made: fetch_add(1)
// hands each caller a 64-bit ticket no other caller ever gets (it would take
// centuries to wrap). take_with_gene() claims a run of tickets instead, with
// one compare-and-swap from the value it read, so those are its alone too. Each published block owns a range of tickets
// [base, base + size) and maps ticket t to id first_id + (t - base). The
// producer gives each block base = max(end of the previous block, ticket now),
// so ticket ranges never overlap and, at a block switch, the next block
// continues exactly where the previous one ended.
//
// Descriptors. Blocks live in a ring of R slots {gen, base, size, first_id},
// written only by the producer under a seqlock: gen = writing, the fields,
// then gen = g (generations are 64-bit and start at 1, so never reused). A
// reader trusts a snapshot only when it saw gen == g before and after reading
// the fields. `current` is the generation readers look at first; it only moves
// from g to g + 1, once every ticket of g has been handed out (some reader
// holds a ticket at or past g's end) and g + 1 is published.
//
// Why an id is never returned twice:
//   1. each ticket goes to exactly one caller (one fetch_add, or the one
//      compare-and-swap that moved the word past it);
//   2. the ticket ranges of published blocks are disjoint (base is never below
//      the previous block's end), and their id ranges are disjoint (the
//      registry hands each block out once);
//   3. a reader maps its ticket only through a consistent snapshot of a block
//      whose range contains it (seqlock; the 64-bit gen never repeats, so a
//      reused slot is always detected).
// So an id comes from exactly one (block, ticket) pair, held by one caller. A
// reader descheduled for any length of time keeps a valid ticket: if its block
// is still in the ring it is served, otherwise the ticket is dropped. Drops,
// "empty" answers (the ticket is given up) and crashes leave gaps, never
// repeats.
//
// Ring: the producer never publishes more than R - 1 generations ahead of
// `current`, so a slot is reused only when every ticket of its old block was
// handed out; only readers stalled since then lose their ticket (a gap).
//
// After a crash the PostgreSQL side builds a fresh server (reset(): nothing
// published) and reserves new blocks from the registry; whatever the old
// blocks still held is a gap, never reused.
//
// Memory order required of A: load() is an acquire load (later loads stay
// after it), store() a release store (earlier loads and stores stay before
// it), fetch_add() and compare_exchange() are full barriers. std::atomic's
// defaults are stronger; over pg_atomic_uint64: pg_atomic_read_u64 then
// pg_read_barrier(), pg_memory_barrier() then pg_atomic_write_u64, and
// pg_atomic_fetch_add_u64 / pg_atomic_compare_exchange_u64 as they are.
#pragma once
#include "pure_cpp.hpp"

#include "bit_layout.hpp"
#include "error.hpp"
#include "monotonic_word.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace crid::core::crid_ids {

// The largest block publish() accepts; registry blocks are at most 2^35
// (28 timestamp bits), and the bound keeps ticket arithmetic far from wrap.
inline constexpr int64_t max_served_block = INT64_C(1) << 48;

// What take() and resolve() return.
struct Result {
    enum class Kind {
        id,      // `id` is yours
        empty,   // nothing published covers the ticket: wait for the producer
        dropped, // resolve() only: a stale ticket whose block left the ring
    };
    Kind kind = Kind::empty;
    int64_t id = 0;
};

template <AtomicWord A, size_t R = 8>
class BlockServer {
    static_assert(R >= 2, "the ring needs room for the current and the next block");

  public:
    // Empties the server: nothing published, the next block is generation 1.
    // Not concurrent with anything (shared-memory init, or tests); with
    // pg_atomic_uint64, pg_atomic_init_u64 every word first.
    void reset() noexcept {
        ticket_.store(0);
        current_.store(1);
        published_.store(0);
        last_end_.store(0);
        for (Slot &s : slots_) {
            s.gen.store(0);
            s.base.store(0);
            s.size.store(0);
            s.first_id.store(0);
        }
    }

    // Serves one id: one fetch_add and a seqlock read in the common case.
    // Returns empty when no published block covers the ticket (the caller
    // waits for the producer and calls again); never returns dropped.
    Result take() noexcept {
        for (;;) {
            Result r = resolve(fetch());
            if (r.kind != Result::Kind::dropped)
                return r;
        }
    }

    // The first half of take(): a ticket that is the caller's alone.
    uint64_t fetch() noexcept { return ticket_.fetch_add(1); }

    // The second half of take(): the id of a ticket, or empty (the ticket is
    // given up) or dropped (its block left the ring; take a new ticket).
    Result resolve(uint64_t t) noexcept {
        uint64_t g = current_.load();
        for (;;) {
            Snapshot s;
            if (!read(g, s)) {
                // Slot g holds another generation: our `current` is stale, or
                // generation 1 is not published yet.
                uint64_t now = current_.load();
                if (now == g)
                    return {Result::Kind::empty, 0};
                g = now;
                continue;
            }
            if (t < s.base)
                return resolve_older(t, g);
            if (t - s.base < s.size)
                return {Result::Kind::id, s.first_id + int64_t(t - s.base)};
            // Past the end of g: every ticket of g is handed out, so move on
            // once g + 1 is published.
            Snapshot next;
            if (!read(g + 1, next)) {
                uint64_t now = current_.load();
                if (now == g)
                    return {Result::Kind::empty, 0};
                g = now;
                continue;
            }
            uint64_t expected = g;
            g = current_.compare_exchange(expected, g + 1) ? g + 1 : expected;
        }
    }

    // Serves the next id whose low bits (`gene`, a field at bit 0) equal
    // `value`, for crid_next(gene, bits). One compare-and-swap on the ticket
    // word claims every ticket from the next one up to the first whose id
    // carries the gene, all within one block: the ids skipped (fewer than
    // 2^gene.width) are a gap that nobody is ever served, so ids with and
    // without a gene, of this server and of every other node of the registry,
    // never meet. When the rest of a block holds no such id, the claim takes
    // that rest (a gap too) and goes on in the next block. Returns empty, and
    // claims nothing, when no published block covers the next ticket.
    Result take_with_gene(const BitField &gene, uint64_t value) noexcept {
        for (;;) {
            uint64_t t = ticket_.load();
            Snapshot s;
            Cover cover = covering(t, s);
            if (cover == Cover::none)
                return {Result::Kind::empty, 0};
            if (cover == Cover::stale)
                continue;
            const uint64_t end = s.base + s.size;
            const uint64_t id_of_t = uint64_t(s.first_id) + (t - s.base);
            const uint64_t want = t + ((value - gene.get(id_of_t)) & gene.max());
            // The ticket word still reads t, so block s still owns t (its slot
            // is reused only once every ticket of it is handed out): tickets
            // t .. want map through s.
            if (!ticket_.compare_exchange(t, want < end ? want + 1 : end))
                continue;
            if (want < end)
                return {Result::Kind::id, s.first_id + int64_t(want - s.base)};
        }
    }

    // Serves `count` consecutive ids of one block (a converted sequence whose
    // INCREMENT BY asks for a run of keys per value) and returns the first.
    // One compare-and-swap on the ticket word claims the run, as
    // take_with_gene() claims its tickets; when the rest of a block is too
    // short, the claim takes that rest (a gap) and goes on in the next block.
    // Returns empty, claiming nothing, when no published block covers the
    // next ticket, and dropped, claiming nothing, when the block that does
    // is shorter than `count` (only a larger crid.block_size can serve it).
    Result take_run(uint64_t count) noexcept {
        for (;;) {
            uint64_t t = ticket_.load();
            Snapshot s;
            Cover cover = covering(t, s);
            if (cover == Cover::none)
                return {Result::Kind::empty, 0};
            if (cover == Cover::stale)
                continue;
            if (s.size < count)
                return {Result::Kind::dropped, 0};
            const uint64_t end = s.base + s.size;
            const bool fits = end - t >= count;
            if (!ticket_.compare_exchange(t, fits ? t + count : end))
                continue;
            if (fits)
                return {Result::Kind::id, s.first_id + int64_t(t - s.base)};
        }
    }

    // Producer: true when a block should be reserved: nothing is published,
    // or fewer than `threshold` ids remain in the published blocks (with
    // crid.threshold <= crid.block_size: the current block runs low and the
    // next is not published yet). False while the ring is full.
    bool needs_block(int64_t threshold) noexcept {
        help_advance();
        if (published_.load() >= current_.load() + R - 1)
            return false;
        uint64_t left = remaining();
        return left == 0 || left < uint64_t(std::max<int64_t>(threshold, 0));
    }

    // Producer: publishes ids first_id .. first_id + size - 1 as the next
    // generation. Returns false, publishing nothing, when that would be R - 1
    // generations ahead of `current`. Calls must be serialized (one producer).
    // Throws internal for a block no registry can produce.
    bool publish(int64_t first_id, int64_t size) {
        if (size < 1 || size > max_served_block || first_id < 0 || first_id > INT64_MAX - (size - 1))
            throw Error(ErrorKind::internal, "crid block server: cannot publish " + std::to_string(size) +
                                                 " ids from " + std::to_string(first_id));
        help_advance();
        uint64_t g = published_.load() + 1;
        if (g > current_.load() + R - 1)
            return false;
        // Tickets already handed out stay below the new block (no id of it is
        // lost to a caller that gave up), and ranges never overlap.
        uint64_t base = std::max(last_end_.load(), ticket_.load());
        Slot &slot = slots_[g % R];
        slot.gen.store(writing);
        slot.base.store(base);
        slot.size.store(uint64_t(size));
        slot.first_id.store(uint64_t(first_id));
        slot.gen.store(g);
        last_end_.store(base + uint64_t(size));
        published_.store(g);
        return true;
    }

    // Producer: how many publish() calls would succeed now (generations up to
    // current + R - 1), so a batch reservation never reserves a block the ring
    // cannot take.
    uint64_t room() noexcept {
        help_advance();
        uint64_t last = published_.load(), limit = current_.load() + R - 1;
        return limit > last ? limit - last : 0;
    }

    // Ids published and not yet handed out. Tickets between blocks all lie
    // below the ticket counter, so this is the last block's end minus it.
    uint64_t remaining() const noexcept {
        uint64_t end = last_end_.load(), t = ticket_.load();
        return end > t ? end - t : 0;
    }

    // The last published generation (0: none yet) and the current one.
    uint64_t published() const noexcept { return published_.load(); }
    uint64_t current() const noexcept { return current_.load(); }

  private:
    static constexpr uint64_t writing = ~UINT64_C(0); // gen while the producer rewrites a slot

    struct Slot {
        A gen, base, size, first_id;
    };

    // A consistent copy of one slot.
    struct Snapshot {
        uint64_t base = 0, size = 0;
        int64_t first_id = 0;
    };

    // Copies the slot of generation g under the seqlock; false when the slot
    // holds another generation or changed while we read it.
    bool read(uint64_t g, Snapshot &s) const noexcept {
        const Slot &slot = slots_[g % R];
        if (slot.gen.load() != g)
            return false;
        s.base = slot.base.load();
        s.size = slot.size.load();
        s.first_id = int64_t(slot.first_id.load());
        return slot.gen.load() == g;
    }

    // Where a ticket loaded from the ticket word lies.
    enum class Cover {
        inside, // in the block copied out
        stale,  // below `current`: the word has moved on since it was loaded
        none,   // past every published block
    };

    // The published block that contains ticket t, moving `current` past
    // blocks whose tickets are all handed out, as resolve() does.
    Cover covering(uint64_t t, Snapshot &s) noexcept {
        uint64_t g = current_.load();
        for (;;) {
            if (!read(g, s)) {
                uint64_t now = current_.load();
                if (now == g)
                    return Cover::none;
                g = now;
                continue;
            }
            if (t < s.base)
                return Cover::stale;
            if (t - s.base < s.size)
                return Cover::inside;
            Snapshot next;
            if (!read(g + 1, next)) {
                uint64_t now = current_.load();
                if (now == g)
                    return Cover::none;
                g = now;
                continue;
            }
            uint64_t expected = g;
            g = current_.compare_exchange(expected, g + 1) ? g + 1 : expected;
        }
    }

    // A ticket below block g: a caller stalled since an older block was
    // current. Served from that block while the ring still holds it.
    Result resolve_older(uint64_t t, uint64_t g) const noexcept {
        for (uint64_t k = g - 1; k >= 1 && g - k < R; --k) {
            Snapshot s;
            if (!read(k, s))
                break;
            if (t >= s.base)
                return t - s.base < s.size ? Result{Result::Kind::id, s.first_id + int64_t(t - s.base)}
                                           : Result{Result::Kind::dropped, 0};
        }
        return {Result::Kind::dropped, 0};
    }

    // Moves `current` past blocks whose tickets are all handed out, so an
    // idle server does not look full to the producer.
    void help_advance() noexcept {
        for (;;) {
            uint64_t g = current_.load();
            Snapshot s;
            if (g >= published_.load() || !read(g, s) || ticket_.load() < s.base + s.size)
                return;
            uint64_t expected = g;
            current_.compare_exchange(expected, g + 1);
        }
    }

    // The ticket counter is hammered by every take(); the rest is read-mostly,
    // so each group gets its own cache line (place the server at a cache-line
    // aligned address, as ShmemInitStruct memory is).
    alignas(64) A ticket_;
    alignas(64) A current_;
    A published_; // written by the producer only
    A last_end_;  // ticket end of the last published block; producer only
    alignas(64) Slot slots_[R];
};

} // namespace crid::core::crid_ids
