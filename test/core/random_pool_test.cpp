// The random pool refills in chunks, never repeats bytes it handed out, and
// discards its contents when the process identity changes (a fork).
#include "check.hpp"

#include "../../src/core/random_pool.hpp"

#include <set>

using namespace crid::core;

namespace {
int fills = 0;
uint64_t counter = 0;
bool counting_fill(void *dst, size_t len) {
    ++fills;
    auto *p = static_cast<uint64_t *>(dst);
    for (size_t i = 0; i < len / 8; ++i)
        p[i] = ++counter;
    return true;
}
bool failing_fill(void *, size_t) { return false; }
} // namespace

TEST(random_pool_refills_in_chunks) {
    static RandomPool pool;
    fills = 0;
    std::set<uint64_t> seen;
    for (int i = 0; i < 5000; ++i)
        seen.insert(pool.next64(counting_fill, 1));
    CHECK_EQ(seen.size(), 5000u);
    CHECK_EQ(fills, 3); // 2,048 values per 16 KiB chunk
}

TEST(random_pool_discards_bytes_after_fork) {
    static RandomPool pool;
    fills = 0;
    uint64_t parent = pool.next64(counting_fill, 100);
    uint64_t child = pool.next64(counting_fill, 101);
    CHECK_EQ(fills, 2);
    CHECK(parent != child);
}

TEST(random_pool_failure_is_an_error) {
    static RandomPool pool;
    CHECK_THROWS(pool.next64(failing_fill, 1), internal);
}
