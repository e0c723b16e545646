#include "siphash.hpp"

#include <bit>
#include <cstring>

namespace crid::core {

namespace {

// Feeds bytes as little-endian 64-bit words; the final word carries the
// total length in its top byte, as the algorithm specifies.
class SipStream {
  public:
    explicit SipStream(const SipKey &k) noexcept : s_(k) {}

    void feed(const uint8_t *p, size_t n) noexcept {
        for (size_t i = 0; i < n; ++i) {
            word_ |= uint64_t(p[i]) << (8 * (total_ % 8));
            if (++total_ % 8 == 0) {
                s_.compress(word_);
                word_ = 0;
            }
        }
    }

    uint64_t finish() noexcept { return s_.finish(word_ | (uint64_t(total_ & 0xff) << 56)); }

  private:
    SipState s_;
    uint64_t word_ = 0;
    size_t total_ = 0;
};

} // namespace

uint64_t siphash24(const SipKey &key, const void *data, size_t len) noexcept {
    // Whole words are read in one load each (public ids hash on every row);
    // the tail goes through the stream, which then sees an aligned total.
    const auto *p = static_cast<const uint8_t *>(data);
    SipState state(key);
    size_t whole = len - len % 8;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m;
        std::memcpy(&m, p + i, 8);
        if constexpr (std::endian::native == std::endian::big)
            m = __builtin_bswap64(m);
        state.compress(m);
    }
    uint64_t last = uint64_t(len & 0xff) << 56;
    for (size_t i = whole; i < len; ++i)
        last |= uint64_t(p[i]) << (8 * (i - whole));
    return state.finish(last);
}

uint64_t siphash24(const SipKey &key, uint8_t prefix, const void *data, size_t len) noexcept {
    SipStream s(key);
    s.feed(&prefix, 1);
    s.feed(static_cast<const uint8_t *>(data), len);
    return s.finish();
}

} // namespace crid::core
