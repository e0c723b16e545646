#include "siphash.hpp"

namespace crid::core {

namespace {

constexpr uint64_t rotl(uint64_t x, int b) noexcept { return (x << b) | (x >> (64 - b)); }

struct SipState {
    uint64_t v0, v1, v2, v3;

    explicit SipState(const SipKey &k) noexcept
        : v0(k.k0 ^ UINT64_C(0x736f6d6570736575)), v1(k.k1 ^ UINT64_C(0x646f72616e646f6d)),
          v2(k.k0 ^ UINT64_C(0x6c7967656e657261)), v3(k.k1 ^ UINT64_C(0x7465646279746573)) {}

    // One SipRound, laid out as in the paper's figure.
    // clang-format off
    void round() noexcept {
        v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
        v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
        v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
        v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
    }
    // clang-format on

    void compress(uint64_t m) noexcept {
        v3 ^= m;
        round();
        round();
        v0 ^= m;
    }

    uint64_t finish(uint64_t last) noexcept {
        compress(last);
        v2 ^= 0xff;
        round();
        round();
        round();
        round();
        return v0 ^ v1 ^ v2 ^ v3;
    }
};

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
    SipStream s(key);
    s.feed(static_cast<const uint8_t *>(data), len);
    return s.finish();
}

uint64_t siphash24(const SipKey &key, uint8_t prefix, const void *data, size_t len) noexcept {
    SipStream s(key);
    s.feed(&prefix, 1);
    s.feed(static_cast<const uint8_t *>(data), len);
    return s.finish();
}

} // namespace crid::core
