#include "uuidv7_source.hpp"

#include "shared_memory.hpp"

#include "../core/clock.hpp"
#include "../core/random_pool.hpp"
#include "../core/uuidv7.hpp"

namespace crid::pg::uuidv7 {

namespace {

core::LocalWord backend_tick;
core::RandomPool random_pool;

bool strong_random(void *dst, size_t len) { return pg_strong_random(dst, len); }

} // namespace

uint64_t next_tick() {
    const uint64_t now = core::uuidv7::tick_from_unix_ns(core::wall_clock_ns());
    auto step = [now](uint64_t previous) { return core::uuidv7::next_tick(previous, now); };
    if (SharedState *shared = shared_state()) {
        SharedWord word{&shared->uuidv7_tick};
        return core::advance(word, step);
    }
    return core::advance(backend_tick, step);
}

uint64_t random64() { return random_pool.next64(strong_random, MyProcPid); }

core::Uuid next() {
    uint64_t tick = next_tick();
    return core::uuidv7::from_tick(tick, random64());
}

} // namespace crid::pg::uuidv7
