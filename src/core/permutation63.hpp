// A keyed permutation of the non-negative bigints [0, 2^63): the opaque face
// of a snowflake or crid id. Every id has exactly one face and every face
// exactly one id, so a face can stand in for the id anywhere and turns back
// into it with the key (docs/public-ids.md argues the design).
//
// The construction is an alternating Feistel network on a 31-bit half (the
// high bits) and a 32-bit half (the low bits): each round XORs one half
// with SipHash-2-4 of the other under that round's key. A round changes one
// half by a function of the other, so it is undone by repeating it, and the
// network is a bijection of exactly 2^31 x 2^32 = 2^63 values: no value
// leaves the domain, so no cycle walking is needed.
#pragma once
#include "pure_cpp.hpp"
#include "siphash.hpp"

#include <array>
#include <cstdint>

namespace crid::core {

// A Feistel network over `high_bits` + `low_bits` (each 1 to 32): the same
// code serves the 63-bit face and the small domains the tests check
// exhaustively for bijectivity.
class FeistelNetwork {
  public:
    // Rounds: 6, the fewest Patarin proved secure up to about 2^n pairs of
    // input and output for n-bit halves (2^31 here); docs/public-ids.md
    // weighs this against 8 (FF3-1's count), which costs a third more.
    static constexpr int rounds = 6;

    // The round keys come from `key` by SipHash-2-4 of a message no other
    // use of a key hashes (UUIDv47's masks hash 10 bytes, these 3).
    // A nonzero `domain` is hashed into the round keys too (4-byte messages),
    // so the networks of one key over different widths are unrelated; 0
    // keeps the 63-bit face's round keys as they always were.
    FeistelNetwork(const SipKey &key, int high_bits, int low_bits, int domain = 0) noexcept;

    uint64_t forward(uint64_t x) const noexcept;
    uint64_t backward(uint64_t y) const noexcept;

    uint64_t domain_size() const noexcept { return uint64_t(1) << (high_bits_ + low_bits_); }

  private:
    // Round keys, keyed SipHash states ready to copy.
    std::array<SipState, rounds> round_keys_;
    int high_bits_, low_bits_;
    uint64_t high_mask_, low_mask_;
};

// The face of a 63-bit id under one key: FeistelNetwork(key, 31, 32).
class Permutation63 {
  public:
    explicit Permutation63(const SipKey &key) noexcept : net_(key, 31, 32) {}
    // Both take and give values in [0, 2^63); the caller refuses the rest.
    uint64_t face(uint64_t id) const noexcept { return net_.forward(id); }
    uint64_t id(uint64_t face) const noexcept { return net_.backward(face); }

  private:
    FeistelNetwork net_;
};

// The face of an id of at most 53 bits (a JavaScript-safe id) under one
// key: a permutation of [0, 2^53), so the face is as safe as the id.
// FeistelNetwork(key, 26, 27, domain 53): halves of 26 and 27 bits, round
// keys of their own.
class Permutation53 {
  public:
    static constexpr int bits = 53;
    static constexpr uint64_t max = (uint64_t(1) << bits) - 1;
    explicit Permutation53(const SipKey &key) noexcept : net_(key, 26, 27, bits) {}
    // Both take and give values in [0, 2^53); the caller refuses the rest.
    uint64_t face(uint64_t id) const noexcept { return net_.forward(id); }
    uint64_t id(uint64_t face) const noexcept { return net_.backward(face); }

  private:
    FeistelNetwork net_;
};

} // namespace crid::core
