// MurmurHash3 x86_32 (Austin Appleby, public domain): the hash gene_of() puts
// over text and uuid keys. Chosen because it is published and stable, so an
// application in any language computes the same gene (Guava's
// Hashing.murmur3_32_fixed(), the murmur3 packages of npm and PyPI), unlike
// PostgreSQL's hashtext(), which may change between major versions.
#pragma once
#include "pure_cpp.hpp"

#include <cstddef>
#include <cstdint>

namespace crid::core {

// MurmurHash3_x86_32 of `len` bytes with `seed`; blocks are read little-endian
// on every platform, as the reference implementation does on x86.
uint32_t murmur3_x86_32(const void *data, size_t len, uint32_t seed) noexcept;

} // namespace crid::core
