// The high-water keeper: a background worker that writes the high-water mark
// ahead of the ids (high_water.hpp), so no minting backend waits for the
// write and fsync of the mark file in steady state. A backend whose id comes
// within half the write lead of the mark sets a flag and the keeper's latch;
// the keeper moves the mark a lead ahead. Only when ids catch up with the
// mark (keeper not running, clock jumped ahead) does a backend write it
// itself, exactly as without the keeper, so every restart and crash
// guarantee holds whether the keeper runs or not.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::marks {

// Registers the keeper (restarted a second after it exits); from _PG_init.
void register_keeper();

} // namespace crid::pg::marks

extern "C" {
// The keeper's entry point, found by name in crid.so.
PGDLLEXPORT void crid_high_water_keeper_main(Datum arg);
}
