#include "marks/high_water.hpp"

#include "common/boundary.hpp"
#include "common/clock_policy.hpp"
#include "common/shared_struct.hpp"
#include "marks/high_water_wal.hpp"
#include "marks/mark_io.hpp"

#include "core/clock.hpp"
#include "core/snowflake_layout_change.hpp"
#include "core/marks.hpp"
#include "core/time_units.hpp"
#include "core/uuidv7.hpp"
#include "core/uuidv7_clock.hpp"

extern "C" {
#include "access/xlog.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
}

#include <cstdio>

namespace crid::pg::marks {

namespace {

struct MarkShared {
    // No id may carry a later millisecond.
    alignas(PG_CACHE_LINE_SIZE) pg_atomic_uint64 mark_ms;
    pg_atomic_uint64 backend_writes; // how often it was written, by a minting backend
    pg_atomic_uint64 keeper_writes;  // ... and by the high-water keeper, ahead of the ids
    // Set by a minting backend when its id is within half the write lead of
    // the mark, so the keeper moves the mark ahead before any id catches up
    // with it and has to wait for an fsync.
    pg_atomic_uint32 mark_wanted;
    Latch *keeper_latch; // the keeper's latch, or nullptr while it does not run
    LWLock *lock;        // one writer of the file at a time; guards the fields below
    // Read on every id; written at start and by crid_accept_layout() and
    // crid_reset_high_water().
    pg_atomic_uint32 snowflake_refusal; // Refusal
    pg_atomic_uint32 uuidv7_refusal;    // Refusal: none or mark_damaged
    // The layout line written with the mark: the layout of the snowflake ids
    // it covers. While snowflake refuses a changed layout, UUIDv7 keeps
    // writing the old one, so the change stays visible until accepted.
    char mark_layout[256];
    // What a refusal is about, set when the refusal is (never changed while
    // it stands, so a refused caller may read it without the lock).
    char refusal_detail[512];
};

MarkShared *shared = nullptr;
char server_layout_text[256] = ""; // this server's snowflake layout, as the file writes it
WordsListener words_listener = nullptr;
constexpr const char *lock_tranche = "crid high-water mark";

void raise_words(int64_t unix_ms, bool exactly) {
    if (words_listener)
        words_listener(unix_ms, exactly);
}

constexpr const char *file_name = "crid_high_water";
constexpr const char *temp_name = "crid_high_water.tmp";

// How far ahead of an id the mark is written: half of crid.clock_borrow_ms,
// between 50 ms and 1 s. After a crash, ids resume at the mark, up to that
// far ahead of the clock; keeping it inside the borrow window lets a restarted
// server mint at once, at the price of a write every lead_ms while minting.
int64_t lead_ms() {
    int64_t half_borrow = clock_policy().borrow_ms / 2;
    return half_borrow < 50 ? 50 : half_borrow > 1000 ? 1000 : half_borrow;
}

// Where a minting backend whose id of `unix_ms` caught up with the mark
// moves it: a lead ahead of the clock, or, for ids borrowed ahead of the
// clock, a small step past the id. A full lead past a borrowed id would add
// a lead to how far ahead every later restart resumes, and restarts in a row
// with the clock behind would soon exceed crid.clock_borrow_ms.
int64_t target_for(int64_t unix_ms) {
    constexpr int64_t step_past_borrowed_ms = 50;
    int64_t ahead_of_clock = core::wall_clock_ns() / core::ns_per_ms + lead_ms();
    int64_t past_id = unix_ms + step_past_borrowed_ms;
    return ahead_of_clock > past_id ? ahead_of_clock : past_id;
}

// Writes the file with the layout of shared->mark_layout (lock held).
void write_file(int64_t unix_ms) {
    char text[512];
    const char *layout = shared->mark_layout;
    pg::guarded([&] {
        std::snprintf(text, sizeof text, "%s", core::marks::format(core::marks::HighWater{unix_ms, layout}).c_str());
    });
    write_mark_file(file_name, temp_name, text);
}

// Writes the mark (lock held): the file first, durably, then WAL for
// standbys, and only then the shared word that lets ids up to it be
// returned.
void write_mark(int64_t unix_ms) {
    write_file(unix_ms);
    if (!RecoveryInProgress())
        log_mark(unix_ms, shared->mark_layout);
    pg_atomic_write_u64(&shared->mark_ms, uint64(unix_ms));
}

// The mark of a standby follows its primary's through WAL; repairs belong
// on the primary, whose WAL carries them to every standby.
void refuse_during_recovery(const char *function) {
    if (RecoveryInProgress())
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("%s cannot run during recovery", function),
                 errhint("Run it on the primary: standbys take its high-water mark from the WAL.")));
}

// The mark and layout of the file's text; throws core::Error for damage,
// including a millisecond no id can carry.
void parse_mark(const char *text, int64_t &unix_ms, char (&layout)[256]) {
    core::marks::HighWater m = core::marks::parse_high_water(text);
    if (uint64_t(m.unix_ms) > core::uuidv7::max_unix_ms)
        throw core::Error(core::ErrorKind::invalid_text, std::string(file_name) + " is damaged: its millisecond " +
                                                             std::to_string(m.unix_ms) + " is past the year 10889");
    if (m.layout.size() >= sizeof layout)
        throw core::Error(core::ErrorKind::invalid_text,
                          std::string(file_name) + " is damaged: its layout is too long");
    unix_ms = m.unix_ms;
    std::snprintf(layout, sizeof layout, "%s", m.layout.c_str());
}

// The file at start: its mark, with the refusals its state calls for.
int64_t read_at_start(const char *current) {
    char text[1024], why[512] = "";
    ReadResult r = read_mark_file(file_name, text, sizeof text, why, sizeof why);
    if (r == ReadResult::missing)
        return -1;
    // Plain bytes only in this frame: ereport may leave it.
    int64_t mark_ms = -1;
    char mark_layout[256] = "";
    pg::CaughtError error;
    bool parsed = r == ReadResult::read && pg::attempt([&] { parse_mark(text, mark_ms, mark_layout); }, error);
    if (r == ReadResult::read && !parsed)
        std::snprintf(why, sizeof why, "%s", error.message);
    if (why[0]) {
        // Never guess: without the mark, new ids could repeat or sort before
        // old ones. Both families that rely on it wait for a repair.
        std::snprintf(shared->refusal_detail, sizeof shared->refusal_detail, "%s", why);
        pg_atomic_write_u32(&shared->snowflake_refusal, uint32(Refusal::mark_damaged));
        pg_atomic_write_u32(&shared->uuidv7_refusal, uint32(Refusal::mark_damaged));
        warn_damaged(file_name, "snowflake ids and server-ordered UUIDv7 ids", why);
        return -1;
    }
    if (std::strcmp(mark_layout, current) != 0) {
        // The mark still covers UUIDv7, which does not depend on the layout.
        std::snprintf(shared->mark_layout, sizeof shared->mark_layout, "%s", mark_layout);
        std::snprintf(shared->refusal_detail, sizeof shared->refusal_detail,
                      "Ids were minted as \"%s\"; this server is set to \"%s\".", mark_layout, current);
        pg_atomic_write_u32(&shared->snowflake_refusal, uint32(Refusal::layout_changed));
        ereport(WARNING,
                (errmsg("crid: the snowflake layout changed: snowflake ids are refused until this is resolved"),
                 errdetail("%s", shared->refusal_detail),
                 errhint("Restore the old crid.snowflake_* settings and restart, or, as a superuser, run "
                         "SELECT crid_accept_layout(). UUIDv7 and crid ids are not affected.")));
    }
    return mark_ms;
}

} // namespace

void request_high_water() {
    RequestAddinShmemSpace(sizeof(MarkShared));
    RequestNamedLWLockTranche(lock_tranche, 1);
}

void listen(WordsListener listener) { words_listener = listener; }

int64_t startup_high_water(const char *current) {
    std::snprintf(server_layout_text, sizeof server_layout_text, "%s", current);
    bool created = false;
    shared = shared_struct<MarkShared>("crid high-water mark", created);
    if (!created)
        return high_water_ms();
    shared->lock = &GetNamedLWLockTranche(lock_tranche)[0].lock;
    for (pg_atomic_uint64 *c : {&shared->mark_ms, &shared->backend_writes, &shared->keeper_writes})
        pg_atomic_init_u64(c, 0);
    pg_atomic_init_u32(&shared->mark_wanted, 0);
    shared->keeper_latch = nullptr;
    std::snprintf(shared->mark_layout, sizeof shared->mark_layout, "%s", current);
    shared->refusal_detail[0] = '\0';
    pg_atomic_init_u32(&shared->snowflake_refusal, uint32(Refusal::none));
    pg_atomic_init_u32(&shared->uuidv7_refusal, uint32(Refusal::none));
    int64_t mark = read_at_start(current);
    pg_atomic_write_u64(&shared->mark_ms, uint64(mark < 0 ? 0 : mark));
    return mark;
}

pg_atomic_uint64 *high_water_word = nullptr;
int64_t quiet_margin_ms = INT64_MAX;

void ensure_high_water_slow(int64_t unix_ms) {
    high_water_word = &shared->mark_ms;
    quiet_margin_ms = lead_ms() / 2;
    int64_t mark = int64_t(pg_atomic_read_u64(&shared->mark_ms));
    if (mark >= unix_ms) {
        // Ask the keeper once, when the ids come near; the flag keeps the
        // shared line read-only until then.
        if (mark - unix_ms < lead_ms() / 2 && pg_atomic_read_u32(&shared->mark_wanted) == 0) {
            uint32 expected = 0;
            Latch *keeper = shared->keeper_latch;
            if (pg_atomic_compare_exchange_u32(&shared->mark_wanted, &expected, 1) && keeper)
                SetLatch(keeper);
        }
        return;
    }
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    // Another backend, or the keeper, may have written while we waited.
    if (int64_t(pg_atomic_read_u64(&shared->mark_ms)) < unix_ms) {
        write_mark(target_for(unix_ms));
        pg_atomic_fetch_add_u64(&shared->backend_writes, 1);
    }
    LWLockRelease(shared->lock);
}

void move_ahead() {
    if (pg_atomic_read_u32(&shared->mark_wanted) == 0)
        return;
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    int64_t mark = int64_t(pg_atomic_read_u64(&shared->mark_ms));
    int64_t target = core::wall_clock_ns() / core::ns_per_ms + lead_ms();
    // Ids borrowed ahead of the clock (after a restart or a step back) are
    // not followed: moving the mark a lead past them at every request would
    // add a lead to how far ahead of the clock every later restart resumes.
    // The flag stays set, so backends do not ask again, until the clock has
    // moved past where a write helps; ids that reach the mark meanwhile
    // write it themselves, a small step ahead.
    if (target - mark >= lead_ms() / 2) {
        // Cleared before writing: an id that comes near during the write asks again.
        pg_atomic_write_u32(&shared->mark_wanted, 0);
        write_mark(target);
        pg_atomic_fetch_add_u64(&shared->keeper_writes, 1);
    }
    LWLockRelease(shared->lock);
}

void apply_replayed(int64_t unix_ms, const char *layout) {
    if (!shared || unix_ms < 0 || uint64_t(unix_ms) > core::uuidv7::max_unix_ms)
        return;
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    if (int64_t(pg_atomic_read_u64(&shared->mark_ms)) < unix_ms ||
        Refusal(pg_atomic_read_u32(&shared->uuidv7_refusal)) == Refusal::mark_damaged) {
        std::snprintf(shared->mark_layout, sizeof shared->mark_layout, "%s", layout);
        // The primary's mark replaces whatever this server had: a damaged
        // file is repaired, and the layout is the one the primary minted in.
        CaughtError error;
        if (!catch_pg_error([](void *ms) { write_file(*static_cast<int64_t *>(ms)); }, &unix_ms, error))
            ereport(WARNING, (errmsg("crid: could not write the replayed high-water mark: %s", error.message),
                              errdetail("Ids stay above it in this server's memory; after a restart they resume "
                                        "from the file, which may be older.")));
        pg_atomic_write_u64(&shared->mark_ms, uint64(unix_ms));
        raise_words(unix_ms, false);
        const char *current = server_layout_text;
        pg_atomic_write_u32(&shared->uuidv7_refusal, uint32(Refusal::none));
        bool same_layout = std::strcmp(current, layout) == 0;
        if (same_layout)
            shared->refusal_detail[0] = '\0';
        else
            std::snprintf(shared->refusal_detail, sizeof shared->refusal_detail,
                          "Ids were minted as \"%s\"; this server is set to \"%s\".", layout, current);
        pg_atomic_write_u32(&shared->snowflake_refusal, uint32(same_layout ? Refusal::none : Refusal::layout_changed));
    }
    LWLockRelease(shared->lock);
}

namespace {

[[noreturn]] void raise_snowflake_refusal() {
    if (Refusal(pg_atomic_read_u32(&shared->snowflake_refusal)) == Refusal::layout_changed)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake ids cannot be minted: the snowflake layout changed since ids were minted"),
                 errdetail("%s New ids could be smaller than, or equal to, ids minted before.", shared->refusal_detail),
                 errhint("Restore the old crid.snowflake_* settings and restart the server, or, as a "
                         "superuser, accept the new layout with SELECT crid_accept_layout().")));
    raise_damaged(file_name, "snowflake ids", "snowflake id", shared->refusal_detail);
}

} // namespace

void check_snowflake() {
    if (pg_atomic_read_u32(&shared->snowflake_refusal) != uint32(Refusal::none))
        raise_snowflake_refusal();
}

Refusal snowflake_refusal() { return Refusal(pg_atomic_read_u32(&shared->snowflake_refusal)); }
Refusal uuidv7_refusal() { return Refusal(pg_atomic_read_u32(&shared->uuidv7_refusal)); }
uint64_t high_water_writes() { return pg_atomic_read_u64(&shared->backend_writes); }
uint64_t high_water_keeper_writes() { return pg_atomic_read_u64(&shared->keeper_writes); }
void set_keeper_latch(Latch *latch) {
    if (shared)
        shared->keeper_latch = latch;
}

void check_uuidv7() {
    if (pg_atomic_read_u32(&shared->uuidv7_refusal) == uint32(Refusal::none))
        return;
    throw core::Error(core::ErrorKind::prerequisite_state,
                      std::string("UUIDv7 ids cannot be minted in server-wide order: the high-water file \"") +
                          file_name + "\" is damaged (" + shared->refusal_detail + ")",
                      "As a superuser, repair it with SELECT crid_reset_high_water(at), at a time no earlier than "
                      "the newest UUIDv7 of this server; or restore the file from a backup and restart the server. "
                      "crid.uuidv7_order = backend needs no mark.");
}

int64_t accept_layout(bool force, const core::snowflake::Layout &layout, const char *layout_text) {
    if (!shared)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("crid_accept_layout needs crid in shared_preload_libraries")));
    refuse_during_recovery("crid_accept_layout");
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    Refusal refusal = Refusal(pg_atomic_read_u32(&shared->snowflake_refusal));
    if (refusal == Refusal::mark_damaged)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the high-water file \"%s\" is damaged: there is no layout to accept", file_name),
                        errhint("Repair it with SELECT crid_reset_high_water(at).")));
    if (refusal == Refusal::none) {
        LWLockRelease(shared->lock);
        ereport(NOTICE, (errmsg("the snowflake layout has not changed; nothing to accept")));
        return -1;
    }
    int64_t mark = int64_t(pg_atomic_read_u64(&shared->mark_ms));
    int64_t now_ms = core::wall_clock_ns() / core::ns_per_ms;
    int64_t borrow_ms = clock_policy().borrow_ms;
    const char *old_text = shared->mark_layout;
    core::snowflake::LayoutChange change;
    char old_describe[256];
    pg::guarded([&] {
        core::snowflake::Layout old_layout = core::snowflake::layout_named(old_text);
        change = core::snowflake::first_unit_above(old_layout, mark, layout);
        std::snprintf(old_describe, sizeof old_describe, "%s", old_text);
    });
    int64_t resume_ms = mark + 1;
    if (!change.possible && !force)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("the new snowflake layout cannot mint ids greater than those minted as \"%s\"", old_describe),
                 errdetail("Ids up to %s under the old layout are larger than any id the new layout's time field "
                           "can hold.",
                           timestamp_text(mark)),
                 errhint("Restore the old crid.snowflake_* settings, or run SELECT crid_accept_layout(force => true) "
                         "if no old id must stay unique against new ones.")));
    if (change.possible && change.first_unix_ms > now_ms + borrow_ms && !force)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("under the new snowflake layout, ids greater than every old one start only at %s, %lld ms "
                        "ahead of the clock",
                        timestamp_text(change.first_unix_ms), static_cast<long long>(change.first_unix_ms - now_ms)),
                 errdetail("Ids were minted as \"%s\" up to %s. snowflake_next() would refuse until the clock is "
                           "within crid.clock_borrow_ms (%lld) of that time.",
                           old_describe, timestamp_text(mark), static_cast<long long>(borrow_ms)),
                 errhint("Restore the old crid.snowflake_* settings; or call again when the clock is closer; or run "
                         "SELECT crid_accept_layout(force => true) if no old id must stay unique against new ones.")));
    if (change.possible && !force && change.first_unix_ms - 1 > mark) {
        mark = change.first_unix_ms - 1;
        resume_ms = change.first_unix_ms;
    }
    const char *current = layout_text;
    std::snprintf(shared->mark_layout, sizeof shared->mark_layout, "%s", current);
    write_mark(mark);
    raise_words(mark, false);
    pg_atomic_write_u32(&shared->snowflake_refusal, uint32(Refusal::none));
    LWLockRelease(shared->lock);
    ereport(LOG,
            (errmsg("crid: snowflake layout \"%s\" accepted%s; snowflake ids resume from %s", current,
                    force ? " (forced: new ids may equal or sort before old ones)" : "", timestamp_text(resume_ms))));
    return resume_ms;
}

void check_reset_time(int64_t at_unix_ms, bool force, int64_t snowflake_last_ms, int64_t crid_last_unix_ms) {
    refuse_during_recovery("crid_reset_high_water");
    int64_t now_ms = core::wall_clock_ns() / core::ns_per_ms;
    int64_t borrow_ms = clock_policy().borrow_ms;
    if (at_unix_ms < 0 || uint64_t(at_unix_ms) > core::uuidv7::max_unix_ms)
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("crid_reset_high_water: %s is outside 1970-01-01 to 10889-08-02, the range of the mark",
                               timestamp_text(at_unix_ms))));
    if (force)
        return;
    if (at_unix_ms < now_ms - borrow_ms)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("crid_reset_high_water: %s is earlier than the clock minus crid.clock_borrow_ms (%lld ms)",
                        timestamp_text(at_unix_ms), static_cast<long long>(borrow_ms)),
                 errdetail("Ids minted before may carry times up to the clock, or ahead of it by the borrow window; a "
                           "mark before them could let new ids repeat or sort before them."),
                 errhint("Pass a later time, such as now() + interval '1 second', or force => true if you know the "
                         "newest id of this server is older.")));
    // A mark past a layout's end stops that family for good; one beyond the
    // borrow window stops snowflake and crid minting until the clock
    // catches up with it. Both are refused unless forced.
    const char *family = at_unix_ms > snowflake_last_ms   ? "snowflake"
                         : at_unix_ms > crid_last_unix_ms ? "crid"
                                                          : nullptr;
    if (family)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("crid_reset_high_water: %s is past the end of this server's %s layout, %s",
                        timestamp_text(at_unix_ms), family,
                        timestamp_text(*family == 's' ? snowflake_last_ms : crid_last_unix_ms)),
                 errdetail("No %s id could be minted after such a mark.", family),
                 errhint("Pass a time within crid.clock_borrow_ms of the clock, such as now(); or force => true to "
                         "set it anyway.")));
    if (at_unix_ms > now_ms + borrow_ms)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("crid_reset_high_water: %s is %lld ms ahead of the clock, more than crid.clock_borrow_ms "
                        "(%lld ms)",
                        timestamp_text(at_unix_ms), static_cast<long long>(at_unix_ms - now_ms),
                        static_cast<long long>(borrow_ms)),
                 errdetail("New ids follow the mark, and are minted at most crid.clock_borrow_ms ahead of the clock: "
                           "snowflake_next() and crid_next() would refuse until the clock reached %s.",
                           timestamp_text(at_unix_ms - borrow_ms)),
                 errhint("Pass a time within crid.clock_borrow_ms of the clock, such as now(); or force => true to "
                         "set it anyway.")));
}

int64_t reset_high_water(int64_t at_unix_ms, bool force, const char *layout_text) {
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    bool damaged = Refusal(pg_atomic_read_u32(&shared->uuidv7_refusal)) == Refusal::mark_damaged;
    // An intact mark never moves back unless forced: it may be ahead of
    // `at` by the write lead, and moving it back could let ids repeat.
    int64_t mark = int64_t(pg_atomic_read_u64(&shared->mark_ms));
    if (!damaged && !force && mark > at_unix_ms)
        at_unix_ms = mark;
    // A damaged file names no layout: the ids up to `at` count as minted
    // under this server's. A changed layout stays for crid_accept_layout().
    if (damaged)
        std::snprintf(shared->mark_layout, sizeof shared->mark_layout, "%s", layout_text);
    write_mark(at_unix_ms);
    raise_words(at_unix_ms, force || damaged);
    if (damaged) {
        pg_atomic_write_u32(&shared->snowflake_refusal, uint32(Refusal::none));
        pg_atomic_write_u32(&shared->uuidv7_refusal, uint32(Refusal::none));
    }
    LWLockRelease(shared->lock);
    ereport(LOG, (errmsg("crid: high-water mark reset to %s%s", timestamp_text(at_unix_ms),
                         damaged ? " (the damaged file is replaced)" : "")));
    return at_unix_ms;
}

// timestamptz_to_str reuses one buffer: each text is copied.
const char *timestamp_text(int64_t unix_ms) {
    if (unix_ms < 0 || unix_ms > INT64_C(9000000000000000))
        return psprintf("%lld ms after 1970-01-01", static_cast<long long>(unix_ms));
    return pstrdup(timestamptz_to_str(core::pg_us_from_unix_ms(unix_ms)));
}

int64_t high_water_ms() { return int64_t(pg_atomic_read_u64(&shared->mark_ms)); }

} // namespace crid::pg::marks
