// The server's high-water mark on disk (crid_high_water in the data
// directory, format in core/marks.hpp): a Unix millisecond that no snowflake
// id and no server-ordered UUIDv7 of this server has passed, with the
// snowflake layout those ids were minted under. Read once when shared memory
// is (re)built, and pushed ahead of the ids, about once a second, so a restart
// or crash resumes above every id handed out, even with the clock behind.
// Written with fsync and an atomic rename.
//
// History on disk never stops the server (DESIGN.md, Availability): a file
// whose layout differs from the settings stops snowflake minting only, a
// damaged file stops snowflake and server-ordered UUIDv7 minting, each with
// ERROR 55000 until a superuser accepts the layout or repairs the mark.
#pragma once

#include "common/postgres_headers.hpp"

#include "module/shared_memory.hpp"

namespace crid::pg::high_water {

// At start and after a crash, in the postmaster: reads the file into
// `shared`, decides which families may mint, and logs a WARNING for each that
// may not. Never raises an ERROR. Returns the mark, or -1 when there is none
// or it is unknown.
int64_t load_at_start(SharedState *shared);

// The generator word every node starts from after a restart at that mark.
uint64_t snowflake_state_after_restart(int64_t high_water_ms);

// Makes sure the mark on disk is at least `unix_ms` before an id of that
// millisecond is returned. In steady state the keeper has already written it
// ahead (one atomic read here; when the id is within half the lead of the
// mark, a flag and a latch ask the keeper to move it on). Only when an id
// caught up with the mark (keeper not running, clock jumped) does the caller
// write and fsync it itself, jumping it ahead by the lead.
void ensure(int64_t unix_ms);

// The keeper's step (high_water_keeper.hpp): when a backend asked, moves the
// mark a lead ahead of the clock or of itself, whichever is later.
void move_ahead();

// Replay of a logged mark (high_water_wal.hpp), on a standby or in crash
// recovery: raises this server's mark, file and generator words to it and
// takes its layout, so a promoted standby mints above its old primary. A
// file that cannot be written is a WARNING, never a failed recovery.
void apply_replayed(int64_t unix_ms, const char *layout);

// ERROR 55000 saying why snowflake ids are refused and the ways out.
[[noreturn]] void raise_snowflake_refusal(SharedState *shared);

// ERROR 55000 unless snowflake ids may be minted (checked on every id: one
// atomic read).
inline void check_snowflake(SharedState *shared) {
    if (pg_atomic_read_u32(&shared->snowflake_refusal) != uint32(Refusal::none))
        raise_snowflake_refusal(shared);
}

// For the UUIDv7 path, which runs inside guarded(): throws core::Error
// (55000) unless server-ordered UUIDv7 ids may be minted.
void check_uuidv7(SharedState *shared);

// crid_accept_layout(force): see the SQL function. Returns the Unix ms from
// which new snowflake ids are minted, or -1 when the layout had not changed.
int64_t accept_layout(bool force);

// crid_reset_high_water(at, force): ERROR unless `at` may become the marks,
// before either moves. Outside the mark's range (1970 to 10889) always;
// unless forced, a time before the clock minus crid.clock_borrow_ms (ids
// could repeat), more than that window ahead of it, or past the end of this
// server's snowflake or crid layout (minting would stop until the clock got
// there, or for good). `crid_last_unix_ms` is the last millisecond of the crid
// layout.
void check_reset_time(int64_t at_unix_ms, bool force, int64_t crid_last_unix_ms);

// crid_reset_high_water(at, force) for the time mark (after
// check_reset_time): an intact mark moves only forward unless forced; a
// damaged one is replaced (with this server's layout) and minting resumes.
// Returns the mark it holds now, later than `at` when it kept an intact mark.
int64_t reset(int64_t at_unix_ms, bool force);

// A Unix millisecond as the server prints a timestamptz, in palloc'd memory,
// for messages.
const char *timestamp_text(int64_t unix_ms);

// For snowflake node leases (lease_worker.cpp), the only two ways they use
// the mark: the mark as it stands (Unix ms, written ahead of every id this
// server returned), and, when this server takes over a node another server
// held, raising that node's generator word above the previous holder's
// bound (and the mark to it, so a restart stays above it too). ERROR when
// the mark cannot be written.
int64_t current_mark_ms();
void raise_node_above(int64_t node, int64_t unix_ms);

// The Unix ms of the last id claimed on `node` (0 when none), read after
// the lease fence went up: every id a backend may still return is at or
// below it or the mark.
int64_t node_last_unix_ms(int64_t node);

} // namespace crid::pg::high_water
