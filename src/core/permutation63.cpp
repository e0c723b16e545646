#include "permutation63.hpp"

namespace crid::core {

namespace {

constexpr uint64_t mask_of(int bits) noexcept { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }

// Round key i: two SipHash-2-4 values of the message 'F', i, half (3 bytes),
// or 'F', i, half, domain (4 bytes) for a network with a domain.
SipState round_key(const SipKey &key, int i, int domain) noexcept {
    uint8_t msg[3] = {uint8_t(i), 0, uint8_t(domain)};
    const size_t size = domain == 0 ? 2 : 3;
    uint64_t k0 = siphash24(key, uint8_t('F'), msg, size);
    msg[1] = 1;
    uint64_t k1 = siphash24(key, uint8_t('F'), msg, size);
    return SipState(SipKey{k0, k1});
}

} // namespace

FeistelNetwork::FeistelNetwork(const SipKey &key, int high_bits, int low_bits, int domain) noexcept
    : high_bits_(high_bits), low_bits_(low_bits), high_mask_(mask_of(high_bits)), low_mask_(mask_of(low_bits)) {
    for (int i = 0; i < rounds; ++i)
        round_keys_[size_t(i)] = round_key(key, i, domain);
}

// Even rounds change the high half by a hash of the low one, odd rounds the
// low half by a hash of the high one; each is undone by running it again.
uint64_t FeistelNetwork::forward(uint64_t x) const noexcept {
    uint64_t high = x >> low_bits_, low = x & low_mask_;
    for (int i = 0; i < rounds; i += 2) {
        high ^= siphash24_u32(round_keys_[size_t(i)], uint32_t(low)) & high_mask_;
        low ^= siphash24_u32(round_keys_[size_t(i + 1)], uint32_t(high)) & low_mask_;
    }
    return (high << low_bits_) | low;
}

uint64_t FeistelNetwork::backward(uint64_t y) const noexcept {
    uint64_t high = y >> low_bits_, low = y & low_mask_;
    for (int i = rounds - 2; i >= 0; i -= 2) {
        low ^= siphash24_u32(round_keys_[size_t(i + 1)], uint32_t(high)) & low_mask_;
        high ^= siphash24_u32(round_keys_[size_t(i)], uint32_t(low)) & high_mask_;
    }
    return (high << low_bits_) | low;
}

} // namespace crid::core
