// The server's high-water mark on disk (crid_high_water in the data
// directory, format in core/marks.hpp): a Unix millisecond that no snowflake
// id and no server-ordered UUIDv7 of this server has passed, with the
// snowflake layout those ids were minted under. Read once when shared memory
// is (re)built, and pushed ahead of the ids, about once a second, so a restart
// or crash resumes above every id handed out, even with the clock behind.
// Written with fsync and an atomic rename.
//
// History on disk never stops the server: a file whose layout differs from
// the settings stops snowflake minting only, a damaged file stops snowflake
// and server-ordered UUIDv7 minting, each with ERROR 55000 until a superuser
// accepts the layout or repairs the mark.
//
// The mark knows no family: the families start their words from it, and
// whoever moves it back or replays it tells them through the listener given
// to listen().
#pragma once

#include "common/minting.hpp"
#include "common/postgres_headers.hpp"

#include "core/snowflake_layout.hpp"

namespace crid::pg::marks {

// Its shared state: from shmem_request_hook, then in the postmaster at start
// and after every crash. startup_high_water() reads the file for a server whose
// snowflake layout is `layout_text`, decides which families may mint, logs a
// WARNING for each that may not, and returns the mark (-1: none, or
// unknown). Never raises an ERROR.
void request_high_water();
int64_t startup_high_water(const char *layout_text);

// How the families' words follow the mark when it moves other than ahead
// of their ids (WAL replay, crid_accept_layout, crid_reset_high_water):
// every word at least at `unix_ms`, or exactly there when `exactly`.
using WordsListener = void (*)(int64_t unix_ms, bool exactly);
void listen(WordsListener listener);

// Makes sure the mark on disk is at least `unix_ms` before an id of that
// millisecond is returned. In steady state the keeper has already written it
// ahead (one atomic read here; when the id is within half the lead of the
// mark, a flag and a latch ask the keeper to move it on). Only when an id
// caught up with the mark (keeper not running, clock jumped) does the caller
// write and fsync it itself, jumping it ahead by the lead.
//
// The first test is inline, as every snowflake id and server-ordered UUIDv7
// passes it: an id at least `quiet_margin_ms` (half the lead as this
// backend's last slow call found it, never 0) below the mark returns at
// once. Whatever that margin is, it only returns with the mark ahead of the
// id; a stale one after a reload changes only when the keeper is asked.
extern pg_atomic_uint64 *high_water_word; // nullptr until the first slow call
extern int64_t quiet_margin_ms;           // INT64_MAX until then
void ensure_high_water_slow(int64_t unix_ms);
inline void ensure_high_water(int64_t unix_ms) {
    if (high_water_word && int64_t(pg_atomic_read_u64(high_water_word)) - unix_ms >= quiet_margin_ms)
        return;
    ensure_high_water_slow(unix_ms);
}

// The mark as it stands (Unix ms), written ahead of every id returned.
int64_t high_water_ms();

// The keeper (high_water_keeper.hpp): its latch, and its step: when a
// backend asked, moves the mark a lead ahead of the clock or of itself.
void set_keeper_latch(Latch *latch);
void move_ahead();

// Replay of a logged mark (high_water_wal.hpp), on a standby or in crash
// recovery: raises this server's mark, file and words to it and takes its
// layout, so a promoted standby mints above its old primary. A file that
// cannot be written is a WARNING, never a failed recovery.
void apply_replayed(int64_t unix_ms, const char *layout);

// ERROR 55000 unless snowflake ids may be minted (checked on every id: one
// atomic read).
void check_snowflake();
// For the UUIDv7 path, which runs inside guarded(): throws core::Error
// (55000) unless server-ordered UUIDv7 ids may be minted.
void check_uuidv7();
// What refuses each family now, for crid_stats().
Refusal snowflake_refusal();
Refusal uuidv7_refusal();
// How often the mark was written: by a minting backend, and by the keeper.
uint64_t high_water_writes();
uint64_t high_water_keeper_writes();

// crid_accept_layout(force): accepts `layout` (this server's, described as
// `layout_text`) after a change. Returns the Unix ms from which new snowflake
// ids are minted, or -1 when the layout had not changed.
int64_t accept_layout(bool force, const core::snowflake::Layout &layout, const char *layout_text);

// crid_reset_high_water(at, force) for the time mark. check_reset_time()
// refuses, before anything moves, a time before the clock minus
// crid.clock_borrow_ms, past the end of the layouts (`snowflake_last_ms`,
// `crid_last_ms`) or beyond the borrow window ahead, unless forced. reset_high_water()
// moves an intact mark only forward unless forced, replaces a damaged one
// (with the layout `layout_text`), and returns the mark it left.
void check_reset_time(int64_t at_unix_ms, bool force, int64_t snowflake_last_ms, int64_t crid_last_ms);
int64_t reset_high_water(int64_t at_unix_ms, bool force, const char *layout_text);

// A Unix millisecond as the server shows timestamps (palloc'd), for messages.
const char *timestamp_text(int64_t unix_ms);

} // namespace crid::pg::marks
