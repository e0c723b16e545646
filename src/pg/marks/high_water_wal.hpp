// The high-water mark carried through WAL, so a streaming standby knows the
// mark of its primary: after a promotion, snowflake ids and server-ordered
// UUIDv7 ids of the new primary sort after every id the old one minted,
// whatever the new primary's clock says (within crid.clock_borrow_ms). The
// mark file lives in the data directory, which a standby does not receive.
//
// A custom WAL resource manager (PostgreSQL 15) named "crid", id
// crid_rmgr_id. Every write of the mark also logs it; replay on a standby
// (and in crash recovery) raises the standby's mark, its file and its
// generator words to it. A server that replays crid records must have crid in
// shared_preload_libraries, as PostgreSQL says when it meets one without it.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::marks {

// The resource manager id: in the range PostgreSQL leaves to extensions
// (128 to 255; see https://wiki.postgresql.org/wiki/CustomWALResourceManagers).
inline constexpr uint8 crid_rmgr_id = 211;

// Registers the resource manager; from _PG_init while preloading.
void register_rmgr();

// Logs the mark (and the snowflake layout it covers) and flushes it, so a
// standby that replays up to here has it. Not during recovery.
void log_mark(int64_t unix_ms, const char *layout);

} // namespace crid::pg::marks
