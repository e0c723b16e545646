// UUIDv47 (github.com/stateless-me/uuidv47): a UUIDv7 shown as a
// UUIDv4-looking face. The 48-bit timestamp is XORed with the low 48 bits of
// SipHash-2-4 of the UUID's 74 random bits (10 bytes, version and variant
// bits cleared), and the version nibble says 4. The random bits stay as they
// are, so the same mask undoes it: bit for bit the reference's mapping, so a
// face made here decodes in every UUIDv47 port with the same key.
#pragma once
#include "pure_cpp.hpp"
#include "siphash.hpp"
#include "uuid.hpp"

namespace crid::core {

// The face of a UUIDv7 (the caller checks the version and variant).
Uuid uuidv47_face(const Uuid &v7, const SipKey &key) noexcept;

// The UUIDv7 behind a face (version 4 on the wire). A wrong key gives a
// UUIDv7 with a wrong timestamp: nothing in a face can tell.
Uuid uuidv47_id(const Uuid &face, const SipKey &key) noexcept;

// A 16-byte key as SipHash reads it: k0 from bytes 0-7, k1 from 8-15, each
// little-endian (the reference's key {k0, k1} is these two numbers).
SipKey sip_key_from_bytes(const uint8_t bytes[16]) noexcept;

} // namespace crid::core
