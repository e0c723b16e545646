#include "uuidv47.hpp"

namespace crid::core {

namespace {

// The mask of a UUID's timestamp: SipHash-2-4 of its random bits. The
// version nibble and the variant bits are left out, so a face (version 4)
// and its UUIDv7 hash the same message.
uint64_t timestamp_mask(const Uuid &u, const SipKey &key) noexcept {
    uint8_t msg[10];
    msg[0] = u.bytes[6] & 0x0F;
    msg[1] = u.bytes[7];
    msg[2] = u.bytes[8] & 0x3F;
    for (int i = 0; i < 7; ++i)
        msg[3 + i] = u.bytes[size_t(9 + i)];
    return siphash24(key, msg, sizeof msg) & UINT64_C(0xFFFFFFFFFFFF);
}

Uuid with_timestamp_masked(const Uuid &u, const SipKey &key, int version) noexcept {
    Uuid out = u;
    uint64_t ts = u.high48() ^ timestamp_mask(u, key);
    for (int i = 0; i < 6; ++i)
        out.bytes[size_t(i)] = uint8_t(ts >> (8 * (5 - i)));
    out.bytes[6] = uint8_t((version << 4) | (u.bytes[6] & 0x0F));
    out.bytes[8] = uint8_t(0x80 | (u.bytes[8] & 0x3F));
    return out;
}

uint64_t load_le64(const uint8_t *p) noexcept {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

} // namespace

Uuid uuidv47_face(const Uuid &v7, const SipKey &key) noexcept { return with_timestamp_masked(v7, key, 4); }

Uuid uuidv47_id(const Uuid &face, const SipKey &key) noexcept { return with_timestamp_masked(face, key, 7); }

SipKey sip_key_from_bytes(const uint8_t bytes[16]) noexcept { return SipKey{load_le64(bytes), load_le64(bytes + 8)}; }

} // namespace crid::core
