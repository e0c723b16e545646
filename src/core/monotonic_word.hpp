// The compare-and-swap loop behind every "strictly increasing" guarantee. It is
// written once against a tiny Word concept so the same loop runs over a
// pg_atomic_uint64 in shared memory, a per-backend variable, or std::atomic in
// the threaded unit tests.
#pragma once
#include "pure_cpp.hpp"

#include <atomic>
#include <concepts>
#include <cstdint>
#include <utility>

namespace crid::core {

// A Word offers load() and compare_exchange(expected&, desired), where a
// failed exchange stores the current value into `expected`.
template <class W>
concept Word = requires(W w, uint64_t &expected, uint64_t desired) {
    { w.load() } -> std::same_as<uint64_t>;
    { w.compare_exchange(expected, desired) } -> std::same_as<bool>;
};

// A Word that also offers store() and fetch_add(), for the crid block server
// (crid_blocks.hpp says which memory order each must have).
template <class A>
concept AtomicWord = Word<A> && requires(A a, uint64_t v) {
    a.store(v);
    { a.fetch_add(v) } -> std::same_as<uint64_t>;
};

// A word owned by one process (no other writer), e.g. the per-backend state
// used when crid is not preloaded.
struct LocalWord {
    uint64_t value = 0;
    uint64_t load() const noexcept { return value; }
    void store(uint64_t v) noexcept { value = v; }
    uint64_t fetch_add(uint64_t v) noexcept { return std::exchange(value, value + v); }
    bool compare_exchange(uint64_t &expected, uint64_t desired) noexcept {
        if (value != expected) {
            expected = value;
            return false;
        }
        value = desired;
        return true;
    }
};

// A word shared between threads (std::atomic, sequentially consistent), for
// unit tests of the lock-free paths. PostgreSQL's shared-memory counterpart is
// pg::SharedWord.
struct ThreadWord {
    std::atomic<uint64_t> value{0};
    uint64_t load() const noexcept { return value.load(); }
    void store(uint64_t v) noexcept { value.store(v); }
    uint64_t fetch_add(uint64_t v) noexcept { return value.fetch_add(v); }
    bool compare_exchange(uint64_t &expected, uint64_t desired) noexcept {
        return value.compare_exchange_strong(expected, desired);
    }
};

// Replaces the word by step(old) until no other writer raced us, and returns
// the value written. `step` must be pure: it may run more than once.
template <Word W, class Step>
uint64_t advance(W &word, Step step) {
    uint64_t old = word.load();
    for (;;) {
        uint64_t next = step(old);
        if (word.compare_exchange(old, next))
            return next;
    }
}

} // namespace crid::core
