// What every generator checks before it mints: crid preloaded (its shared
// state exists), and the server out of recovery. Why a family may refuse
// while the server runs: history on disk that disagrees with valid settings,
// or a damaged crid file, stops only the minting that depends on it, until a
// superuser resolves it with a function.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg {

enum class Refusal : uint32 {
    none = 0,
    layout_changed = 1, // crid_high_water was written under another snowflake layout
    mark_damaged = 2,   // a mark file could not be read or parsed
};

// Set once shared memory is built (module/shared_memory.cpp).
void set_preloaded() noexcept;
bool preloaded() noexcept;

// ERROR unless this process may mint `family` ids ("snowflake", "crid"): not
// during recovery (a standby copied from its primary carries the primary's
// node ids, high-water mark and registry, so it would repeat its ids), and
// only with crid preloaded. `what` names the caller in the second message,
// `preload_hint` says what preloading brings.
void require_minting(const char *family, const char *what, const char *preload_hint);

// How many processes can mint at once (every PGPROC: backends, auxiliary
// processes, prepared transactions): the UUIDv7 slot width and the bound on
// snowflake adds racing past a unit (core/snowflake_generator.hpp).
uint64_t process_slot_count() noexcept;

} // namespace crid::pg
