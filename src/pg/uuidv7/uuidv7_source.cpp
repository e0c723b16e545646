#include "uuidv7/uuidv7_source.hpp"

#include "common/pg_compat.hpp"

#include "common/minting.hpp"
#include "marks/high_water.hpp"
#include "uuidv7/server_clock.hpp"

#include "core/clock.hpp"
#include "core/random_pool.hpp"
#include "core/uuidv7.hpp"
#include "core/uuidv7_clock.hpp"

extern "C" {
#include "storage/proc.h"
}

namespace crid::pg::uuidv7 {

namespace {

core::LocalWord backend_tick;
// Server order: this backend's side of the server clock, and the width
// of the process-slot field (fixed once the server's limits are known).
core::uuidv7::ServerClockLocal clock_local;
int slot_bits = 0;
// A real clock ahead of the ids by more than this is followed (NTP step,
// resumed VM); less is the two clocks' reading noise.
constexpr int64_t resync_ns = 1000 * 1000;
core::RandomPool random_pool;

// crid.uuidv7_order: 'server' orders ids across all backends through one
// shared word; 'backend' orders them per backend, as PostgreSQL 18 does, and
// scales with cores because no cache line is shared between backends.
enum Order { order_server, order_backend };
int order = order_server;
const struct config_enum_entry order_options[] = {
    {"server", order_server, false}, {"backend", order_backend, false}, {nullptr, 0, false}};

bool strong_random(void *dst, size_t len) { return pg_strong_random(dst, len); }

// SHOW crid.uuidv7_order: without preloading there is no server-wide word,
// so the order is per backend whatever the setting says.
const char *show_order() {
    return order == order_server && !clock_words() ? "backend (crid is not in shared_preload_libraries)"
           : order == order_server                 ? "server"
                                                   : "backend";
}

} // namespace

void define_settings() {
    DefineCustomEnumVariable("crid.uuidv7_order", "Whether UUIDv7 ids increase across the server or per backend.",
                             "server needs crid in shared_preload_libraries; backend scales better on many cores.",
                             &order, order_server, order_options, PGC_SIGHUP, 0, nullptr, nullptr, show_order);
}

bool server_order() { return order == order_server && clock_words(); }

uint64_t next_tick() {
    ClockWords *words = clock_words();
    if (words && order == order_server) {
        marks::check_uuidv7();
        return core::uuidv7::server_tick(*words, clock_local, core::monotonic_ns, core::wall_clock_ns, resync_ns);
    }
    const uint64_t now = core::uuidv7::tick_from_unix_ns(core::wall_clock_ns());
    return core::advance(backend_tick, [now](uint64_t previous) { return core::uuidv7::next_tick(previous, now); });
}

core::Uuid compose(uint64_t tick, uint64_t random) {
    if (!server_order())
        return core::uuidv7::from_tick(tick, random);
    // Backends that read the same tick differ in their process slot.
    if (slot_bits == 0)
        slot_bits = core::uuidv7::slot_bits_for(process_slot_count());
    return core::uuidv7::from_tick_and_slot(tick, uint64_t(compat::my_proc_number()), slot_bits, random);
}

void keep_high_water(uint64_t unix_ms) {
    if (clock_words() && order == order_server)
        marks::ensure_high_water(int64_t(unix_ms));
}

uint64_t random64() { return random_pool.next64(strong_random, MyProcPid); }

core::Uuid next() {
    uint64_t tick = next_tick();
    return compose(tick, random64());
}

} // namespace crid::pg::uuidv7
