#include "crid_block_sizing.hpp"

namespace crid::core::crid_ids {

SizingSettings sizing_settings(const Layout &l, const ReservationSettings &usable, int64_t max_rate,
                               int64_t max_extra_blocks) noexcept {
    SizingSettings s;
    s.base = usable.block_size;
    s.threshold = usable.threshold;
    s.max_rate = max_rate < 0 ? 0 : max_rate > max_max_blocks_per_second ? max_max_blocks_per_second : max_rate;
    const int64_t share = sequence_space(l) / 64;
    s.cap = s.base > share ? s.base : share;
    s.max_extra_blocks = max_extra_blocks < 0 ? 0 : max_extra_blocks;
    return s;
}

int64_t block_for_rate(const SizingSettings &s, int64_t ids_per_s) noexcept {
    int64_t size = s.base;
    if (s.max_rate == 0)
        return size;
    while (size < s.cap && static_cast<__int128>(size) * s.max_rate < ids_per_s)
        size = size > s.cap / 2 ? s.cap : size * 2;
    return size;
}

// The rate of the last window: ids served since the newest sample at least a
// window old, or, while the history is shorter, since the oldest one once it
// spans a quarter of a window. A sample is kept at most every
// sample_every_ms, so the ring spans more than two windows.
int64_t BlockSizer::measure(int64_t now_ms, uint64_t served) noexcept {
    if (filled_ > 0 && (served < ring_[newest_].served || now_ms < ring_[newest_].ms))
        filled_ = 0; // counters that went back belong to another life of the server
    if (filled_ == 0 || now_ms - ring_[newest_].ms >= sample_every_ms) {
        newest_ = filled_ == 0 ? 0 : (newest_ + 1) % samples;
        ring_[newest_] = Sample{now_ms, served};
        if (filled_ < samples)
            ++filled_;
    }
    const Sample *from = nullptr;
    for (int back = 0; back < filled_; ++back) {
        const Sample &s = ring_[(newest_ - back + samples) % samples];
        from = &s;
        if (now_ms - s.ms >= rate_window_ms)
            break;
    }
    if (!from || now_ms - from->ms < rate_window_ms / 4)
        return rate_;
    return int64_t(static_cast<__int128>(served - from->served) * 1000 / (now_ms - from->ms));
}

int64_t BlockSizer::peak(int64_t now_ms) const noexcept {
    const int64_t first = (now_ms - shrink_after_ms) / 1000;
    int64_t highest = 0;
    for (const Peak &p : peaks_)
        if (p.second >= first && p.rate > highest)
            highest = p.rate;
    return highest;
}

// The rate at which the last block's worth of ids went: from the youngest
// look since which at least block_size() ids were served; 0 when the looks
// kept do not reach back that far.
int64_t BlockSizer::last_block_rate(int64_t now_ms, uint64_t served) noexcept {
    if (recent_filled_ > 0 && (served < recent_[recent_newest_].served || now_ms < recent_[recent_newest_].ms))
        recent_filled_ = 0;
    if (recent_filled_ == 0 || now_ms > recent_[recent_newest_].ms) {
        recent_newest_ = recent_filled_ == 0 ? 0 : (recent_newest_ + 1) % recent;
        if (recent_filled_ < recent)
            ++recent_filled_;
    }
    recent_[recent_newest_] = Sample{now_ms, served};
    for (int back = 1; back < recent_filled_; ++back) {
        const Sample &s = recent_[(recent_newest_ - back + recent) % recent];
        if (served - s.served >= uint64_t(size_))
            return int64_t(static_cast<__int128>(served - s.served) * 1000 / (now_ms - s.ms));
    }
    return 0;
}

void BlockSizer::observe(int64_t now_ms, uint64_t served, uint64_t waits, const SizingSettings &s) noexcept {
    if (s.base != base_) {
        // First use, or crid.block_size was reloaded: start from the base;
        // the demand makes it grow again at once.
        base_ = s.base;
        size_ = s.base;
        grown_ms_ = INT64_MIN;
    }
    rate_ = measure(now_ms, served);
    const int64_t block_rate = last_block_rate(now_ms, served);
    Peak &slot = peaks_[(now_ms / 1000) % peak_slots];
    if (slot.second != now_ms / 1000)
        slot = Peak{now_ms / 1000, 0};
    if (rate_ > slot.rate)
        slot.rate = rate_;

    const int64_t for_now = block_for_rate(s, rate_ > block_rate ? rate_ : block_rate);
    if (for_now > size_) {
        size_ = for_now;
        grown_ms_ = now_ms;
    } else if (grown_ms_ == INT64_MIN || now_ms - grown_ms_ >= shrink_after_ms) {
        const int64_t lasting = block_for_rate(s, peak(now_ms));
        if (lasting < size_)
            size_ = lasting;
    }
    if (size_ > s.cap)
        size_ = s.cap;

    if (!waits_known_) {
        waits_known_ = true;
        waits_seen_ = waits;
        quiet_since_ms_ = now_ms;
    } else if (waits != waits_seen_) {
        waits_seen_ = waits;
        extra_ = extra_ + 4 < s.max_extra_blocks ? extra_ + 4 : s.max_extra_blocks;
        quiet_since_ms_ = now_ms;
    } else if (extra_ > 0 && now_ms - quiet_since_ms_ >= shrink_after_ms) {
        extra_ /= 2;
        quiet_since_ms_ = now_ms;
    }
    if (extra_ > s.max_extra_blocks)
        extra_ = s.max_extra_blocks;
}

int64_t BlockSizer::reserve_target(const SizingSettings &s) const noexcept {
    // crid.threshold is a share of crid.block_size; it stays that share of a
    // grown block, so the next block is asked for as early in a block's life.
    const __int128 threshold = static_cast<__int128>(s.threshold) * size_ / (s.base > 0 ? s.base : 1);
    const __int128 target = threshold + static_cast<__int128>(extra_) * size_;
    return target > INT64_MAX ? INT64_MAX : int64_t(target);
}

} // namespace crid::core::crid_ids
