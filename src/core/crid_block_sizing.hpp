// How large the block reserver's blocks are and how far ahead of demand it
// reserves, sized from the rate its server hands ids out at: one server
// makes a bounded number of reservations a second however fast it mints,
// and its blocks come back to crid.block_size once its demand falls.
//
// The bound. With R = crid.max_blocks_per_second and base = crid.block_size,
// the block for a demand of r ids a second is the least base * 2^k that lasts
// at least 1/R s at that rate (base * 2^k >= r / R), capped below. A server
// whose demand is steady therefore reserves at most R blocks a second, and a
// registry shared by N servers sees at most N * R block reservations a
// second from them (a registry transaction carries one block or more, so
// transactions are fewer still). Below R * base ids a second nothing changes:
// every block is crid.block_size.
//
// Demand that jumps. Besides the rate of the last second, which lags a
// jump, the size follows the time the last block's worth of ids took: once
// one block's worth was served in less than 1/R s, the next block is sized
// for that rate. So a jump of demand costs a few blocks too small, not a
// second of them (and the extra blocks of the reserve, below, when backends
// had to wait meanwhile).
//
// Falling demand. A block's ids all name the second it was reserved in, so a
// big block of a server whose demand fell would hand out ids naming a second
// long past. The size follows the highest rate of the last `shrink_after_ms`:
// a brief dip keeps it (and the power-of-two steps keep a rate near a step
// from flapping), a lasting fall brings it back to crid.block_size.
//
// Caps. A block never passes 1/64 of a second's sequence space (unless
// crid.block_size itself does), so one server never takes a large share of a
// second, and a second holds at least 64 such blocks of the fleet; a demand
// above R times that cap is served with more blocks instead. A block is one
// reservation in one second: it never spans seconds.
//
// The reserve. Backends wake the reserver once fewer than `reserve_target()`
// ids remain: crid.threshold scaled with the block (the same share of it),
// plus extra blocks that grow by four each time a backend had to wait for a
// block and halve after every `shrink_after_ms` without a wait.
//
// Off. With crid.max_blocks_per_second = 0 every block is crid.block_size,
// as the Go library's are: a fleet whose registry load must follow its
// settings alone (or a test that needs a reservation after a known number
// of ids) turns the sizing off. The reserve still follows the waits.
//
// Nothing here decides which ids are served: sizes only. Every block is still
// reserved in the registry and covered by the registry mark before any of its
// ids is served (worker/block_refill.cpp).
#pragma once
#include "pure_cpp.hpp"

#include "crid_layout.hpp"

#include <cstdint>

namespace crid::core::crid_ids {

inline constexpr int64_t default_max_blocks_per_second = 4;
inline constexpr int64_t max_max_blocks_per_second = 1000;

// What the sizing works within: crid.block_size and crid.threshold as usable
// (usable_settings), crid.max_blocks_per_second, the largest block, and the
// most extra blocks the reserve may hold.
struct SizingSettings {
    int64_t base = default_block_size;
    int64_t threshold = default_threshold;
    int64_t max_rate = default_max_blocks_per_second;
    int64_t cap = default_block_size;
    int64_t max_extra_blocks = 0;
};

// The settings for `layout`: the cap is 1/64 of a second's sequences, or the
// base block when that is larger; max_rate 0 is off (every block the base).
SizingSettings sizing_settings(const Layout &layout, const ReservationSettings &usable, int64_t max_rate,
                               int64_t max_extra_blocks) noexcept;

// The least base * 2^k (capped) that lasts at least 1/max_rate s at
// `ids_per_s`; the base when the sizing is off.
int64_t block_for_rate(const SizingSettings &s, int64_t ids_per_s) noexcept;

class BlockSizer {
  public:
    // The window the rate is measured over, and how long a fall of demand
    // (or a time without waits) must last before blocks (or the extra
    // reserve) shrink.
    static constexpr int64_t rate_window_ms = 1000;
    static constexpr int64_t shrink_after_ms = 5000;

    // Looks at demand at monotonic `now_ms`: `served` ids handed out and
    // `waits` crid_next() calls that found no id, both counted since the
    // server started. Grows or shrinks the block, and the extra reserve.
    void observe(int64_t now_ms, uint64_t served, uint64_t waits, const SizingSettings &s) noexcept;

    // The size of the next block.
    int64_t block_size() const noexcept { return size_; }

    // Reserve more once fewer ids than this remain.
    int64_t reserve_target(const SizingSettings &s) const noexcept;

    // The rate measured at the last observe(), ids a second.
    int64_t rate() const noexcept { return rate_; }

    int64_t extra_blocks() const noexcept { return extra_; }

  private:
    struct Sample {
        int64_t ms = 0;
        uint64_t served = 0;
    };
    // A sample at most every 1/16 of the window: the ring spans more than two windows.
    static constexpr int samples = 40;
    static constexpr int64_t sample_every_ms = rate_window_ms / 16;
    // The highest rate of each of the last seconds.
    static constexpr int peak_slots = 8;
    static_assert(peak_slots * 1000 > shrink_after_ms + 1000);
    // Every look of the last moments, for the time the last block's worth
    // of ids took.
    static constexpr int recent = 16;

    int64_t measure(int64_t now_ms, uint64_t served) noexcept;
    int64_t last_block_rate(int64_t now_ms, uint64_t served) noexcept;
    int64_t peak(int64_t now_ms) const noexcept;

    Sample ring_[samples] = {};
    int newest_ = 0; // index of the newest sample
    int filled_ = 0; // samples in the ring
    struct Peak {
        int64_t second = -1;
        int64_t rate = 0;
    } peaks_[peak_slots] = {};
    Sample recent_[recent] = {};
    int recent_newest_ = 0;
    int recent_filled_ = 0;

    int64_t size_ = default_block_size;
    int64_t base_ = -1; // the base block size_ was sized for
    int64_t rate_ = 0;
    int64_t grown_ms_ = INT64_MIN; // when the size last grew; INT64_MIN: never (no subtraction then)
    int64_t extra_ = 0;
    uint64_t waits_seen_ = 0;
    bool waits_known_ = false;
    int64_t quiet_since_ms_ = 0; // the last wait, or the last halving of the extra blocks
};

} // namespace crid::core::crid_ids
