// Shared by the libFuzzer targets of src/core (one file per parser or
// decoder, fuzz_*.cpp). A target feeds the input to the code under test and
// lets only crid::core::Error pass: any other exception escapes and libFuzzer
// reports it as a crash, as it does every sanitizer report, because at the
// PostgreSQL boundary such an exception would be an internal error (XX000)
// instead of the SQLSTATE a bad input deserves. A target also asserts what a
// parse promises (what it prints reads back the same).
#pragma once

#include "../../src/core/error.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace crid::fuzz {

// Runs `f`; a core::Error is a rejected input, which is fine.
template <class F>
bool accepted(F f) {
    try {
        f();
        return true;
    } catch (const crid::core::Error &) {
        return false;
    }
}

// Aborts, which libFuzzer reports as a crash, when a promise is broken.
inline void require(bool ok, const char *what) {
    if (!ok) {
        std::fprintf(stderr, "crid fuzz: broken promise: %s\n", what);
        std::abort();
    }
}

inline std::string_view text_of(const uint8_t *data, size_t size) {
    return {reinterpret_cast<const char *>(data), size};
}

// The first 8 bytes of the input (zero-padded) as an integer, and so on.
inline uint64_t word_at(const uint8_t *data, size_t size, size_t index) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i) {
        size_t at = index * 8 + i;
        v = v << 8 | (at < size ? data[at] : 0);
    }
    return v;
}

} // namespace crid::fuzz
