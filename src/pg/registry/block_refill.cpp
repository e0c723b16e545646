#include "registry/block_refill.hpp"

#include "common/boundary.hpp"
#include "blocks/crid_settings.hpp"
#include "registry/registry_link.hpp"
#include "marks/registry_mark.hpp"

#include "core/clock.hpp"
#include "core/registry_floor.hpp"
#include "core/registry_guard.hpp"
#include "core/time_units.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace crid::pg::crid_ids {

namespace {

namespace ids = core::crid_ids;

// What the worker has taken from the registry; restarted from the registry
// mark at worker start and after crid_reset_high_water().
ids::RegistryGuard guard;
uint64_t guard_generation = UINT64_MAX; // the mark generation it was built from

// Blocks kept in reserve beyond crid.threshold. It grows by four each time
// backends had to wait for a block, up to most of the ring, so a server whose
// rate outruns one registry commit per threshold stops waiting after a few
// blocks. The price is a bigger gap after a crash, harmless in a 2^32
// sequence space.
int64_t extra_blocks = 0;
constexpr int64_t max_extra_blocks = int64_t(ring_blocks) - 4;
uint64_t waits_seen = 0;

// The second of the last regression reported: its row is not checked again
// (one rebuild, one WARNING).
int64_t regression_reported_ts = -1;

// At most this many blocks are reserved in one transaction.
constexpr int max_blocks_per_commit = 8;

// The last condition logged, and the settings last warned about.
WorkerState logged_state = WorkerState::serving;
int logged_sqlstate = 0;
int64_t warned_block_size = -1, warned_threshold = -1;

// One reservation transaction.
struct Round {
    int64_t ts = 0;   // the second reserved in
    int64_t size = 0; // the block size
    int count = 0;    // blocks asked for
    int got = 0;      // blocks the registry gave
    int64_t starts[max_blocks_per_commit] = {};
    bool accepted[max_blocks_per_commit] = {};
    bool second_full = false;  // the next block did not fit in the second
    bool row_missing = false;  // the guard's last second lost its row (or part of it)
    int64_t row_ts = 0;        // that second
    int64_t row_end = 0;       // how far this server had reserved in it
    int64_t row_sequence = -1; // what its row held (-1: no row)
    ids::RegistryGuard after;  // the guard once the round is committed
    bool viewed = false;       // the registry's continuity state came back
    ids::RegistryView view;    // ... and said this
    int64_t registry_epoch_ms = 0;
    bool registry_changed = false; // this round recorded a new identity
    char identity[256] = "";
    char reason[512] = "";
    int64_t sent_unix_ms = 0, received_unix_ms = 0;
};

enum class Outcome { committed, unavailable, failed };

// What this worker last learnt of the registry's clock and continuity: the
// second wanted next is planned against it, and a change of identity is
// reported once.
struct Known {
    bool viewed = false;
    ids::RegistryView view;
    int64_t offset_ms = 0;   // the registry's clock minus this server's
    char identity[256] = ""; // the registry table's identity seen last
} known;

// The Unix second a registry second begins in.
int64_t unix_second_of(const ids::Layout &l, int64_t ts) { return l.epoch_unix_ms / core::ms_per_s + ts; }

// The settings as they can be used, with a WARNING naming both settings
// whenever a clamp starts or changes (a reload never stops minting).
ids::ReservationSettings usable_settings(const ids::Layout &l) {
    ids::ReservationSettings r = ids::usable_settings(l, block_size(), threshold());
    bool clamped = r.block_size_clamped || r.threshold_clamped;
    if (clamped && (r.block_size != warned_block_size || r.threshold != warned_threshold)) {
        if (r.block_size_clamped)
            ereport(WARNING, (errmsg("crid.block_size (%d) is larger than the %lld ids one second holds with "
                                     "crid.timestamp_bits = %d; reserving blocks of %lld",
                                     block_size(), static_cast<long long>(ids::sequence_space(l)), l.timestamp_bits,
                                     static_cast<long long>(r.block_size))));
        if (r.threshold_clamped)
            ereport(WARNING,
                    (errmsg("crid.threshold (%d) is outside 0 to crid.block_size (%lld); using %lld", threshold(),
                            static_cast<long long>(r.block_size), static_cast<long long>(r.threshold)),
                     errhint("Set crid.threshold at most crid.block_size and reload.")));
    }
    warned_block_size = clamped ? r.block_size : -1;
    warned_threshold = clamped ? r.threshold : -1;
    return r;
}

// The guard starts (again) from the registry mark when the mark changed
// generation: at worker start and after crid_reset_high_water(). False when
// the mark lies outside the crid layout.
bool sync_guard(const ids::Layout &l) {
    CridShared *s = shared();
    LWLockAcquire(s->mark_lock, LW_SHARED);
    uint64_t generation = s->mark_generation;
    bool known = s->mark_known;
    int64_t unix_s = s->mark_unix_s, sequence = s->mark_sequence;
    LWLockRelease(s->mark_lock);
    if (generation == guard_generation)
        return true;
    guard = ids::RegistryGuard{};
    int64_t epoch_s = l.epoch_unix_ms / core::ms_per_s;
    if (known && unix_s >= epoch_s) {
        if (unix_s - epoch_s > ids::max_ts(l)) {
            char detail[256];
            std::snprintf(detail, sizeof detail,
                          "the registry mark (Unix second %lld) is past the last second crid.timestamp_bits holds",
                          static_cast<long long>(unix_s));
            report(WorkerState::failing, 0, detail);
            return false;
        }
        guard.restore(unix_s - epoch_s, sequence);
    }
    guard_generation = generation;
    return true;
}

// One int8 column of one row into an int64 (found stays false for no row).
struct Int8Row {
    bool found = false;
    int64_t value = 0;
};
void int8_sink(void *context, int columns, const char *const *values) noexcept {
    auto *row = static_cast<Int8Row *>(context);
    if (columns < 1 || !values[0])
        return;
    row->found = true;
    row->value = std::strtoll(values[0], nullptr, 10);
}

// The registry primitive of the Go crid library, run directly rather than
// through crid_allocate(), so no function, operator or setting a database
// owner can create changes what runs: one upsert that reserves $2 sequences
// of second $1 and returns the new next_seq. A second without room for the
// block ($3 is the largest next_seq the block may start from) is left
// untouched and returns no row, its own condition rather than an error.
//
// The upsert takes its row from the registry's continuity check
// (crid_registry_check, $4 the table, $5 this server's crid.epoch in Unix
// ms): a second the registry refuses, or an epoch other than the registry's,
// inserts nothing, and the check statement before it in the same
// transaction says which.
// clang-format off
void upsert_sql(char *out, size_t size, const char *table, const char *check) {
    std::snprintf(out, size,
                  "INSERT INTO %s AS a (ts, next_seq) SELECT $1::pg_catalog.int8, $2::pg_catalog.int8"
                  " FROM %s($4::pg_catalog.regclass) c"
                  " WHERE $1::pg_catalog.int8 OPERATOR(pg_catalog.<=) c.live_max_ts"
                  " AND (c.refused_from_ts IS NULL OR $1::pg_catalog.int8 OPERATOR(pg_catalog.<) c.refused_from_ts"
                  "      OR $1::pg_catalog.int8 OPERATOR(pg_catalog.>) c.floor_ts)"
                  " AND (pg_catalog.date_part('epoch', c.epoch) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8"
                  "     OPERATOR(pg_catalog.=) $5::pg_catalog.int8"
                  " ON CONFLICT (ts) DO UPDATE SET next_seq = a.next_seq OPERATOR(pg_catalog.+) EXCLUDED.next_seq"
                  " WHERE a.next_seq OPERATOR(pg_catalog.<=) $3::pg_catalog.int8 RETURNING a.next_seq",
                  table, check);
}

// The registry's continuity state for table $1 (made current, recording a
// new identity when the table changed).
void check_sql(char *out, size_t size, const char *check) {
    std::snprintf(out, size,
                  "SELECT c.refused_from_ts, c.floor_ts, c.live_max_ts, c.now_unix_ms,"
                  " (pg_catalog.date_part('epoch', c.epoch) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8,"
                  " c.max_skew_ms, c.changed, c.identity, c.reason"
                  " FROM %s($1::pg_catalog.regclass) c",
                  check);
}
// clang-format on

void view_sink(void *context, int columns, const char *const *v) noexcept {
    auto *r = static_cast<Round *>(context);
    if (columns != 9 || !v[1] || !v[2] || !v[3] || !v[4] || !v[5])
        return;
    r->viewed = true;
    r->view.refuses = v[0] != nullptr;
    r->view.refused_from = v[0] ? std::strtoll(v[0], nullptr, 10) : 0;
    r->view.floor = std::strtoll(v[1], nullptr, 10);
    r->view.live_max = std::strtoll(v[2], nullptr, 10);
    r->view.now_unix_ms = std::strtoll(v[3], nullptr, 10);
    r->registry_epoch_ms = std::strtoll(v[4], nullptr, 10);
    r->view.epoch_unix_ms = r->registry_epoch_ms;
    r->view.skew_ms = std::strtoll(v[5], nullptr, 10);
    r->registry_changed = v[6] && v[6][0] == 't';
    std::snprintf(r->identity, sizeof r->identity, "%s", v[7] ? v[7] : "");
    std::snprintf(r->reason, sizeof r->reason, "%s", v[8] ? v[8] : "");
}

// The registry's next_seq of second $1 (no row when it has none).
void row_sql(char *out, size_t size, const char *table) {
    std::snprintf(out, size, "SELECT a.next_seq FROM %s a WHERE a.ts OPERATOR(pg_catalog.=) $1::pg_catalog.int8",
                  table);
}

// Makes the registry mark cover a second before any of its ids is served;
// false (a gap: the blocks are reserved, never served) when it cannot.
bool cover_mark(int64_t unix_s, int64_t sequence, registry::Failure &failure) {
    struct Mark {
        int64_t unix_s, sequence;
    } mark{unix_s, sequence};
    return registry::run_catching(
        [](void *m) { registry_mark::cover(static_cast<Mark *>(m)->unix_s, static_cast<Mark *>(m)->sequence); }, &mark,
        failure);
}

// One registry transaction, committed before anything of it is used: the
// row check of the guard's last second (when the round moves to a later one
// that crid_evict could not have deleted yet) and one reservation of
// r.count blocks of r.ts; then the guard's verdict on each block, and the registry mark for the
// accepted ones before any is published. A remote registry gets the whole
// transaction in one round trip.
Outcome reserve(Round &r, const ids::Layout &l, int64_t now_ts) {
    registry::Failure failure;
    const registry::Location *where = registry::located(failure);
    if (!where)
        return Outcome::unavailable;
    char upsert[sizeof where->table + sizeof where->check + 800], row[sizeof where->table + 160];
    char check[sizeof where->check + 400];
    upsert_sql(upsert, sizeof upsert, where->table, where->check);
    row_sql(row, sizeof row, where->table);
    check_sql(check, sizeof check, where->check);
    char ts_text[24], size_text[24], limit_text[24], row_ts_text[24], epoch_text[24];
    std::snprintf(ts_text, sizeof ts_text, "%lld", static_cast<long long>(r.ts));
    // The round's blocks are one reservation of r.count blocks: one upsert,
    // one pass of the registry's checks, however many blocks it takes.
    const int64_t span = r.size * r.count;
    std::snprintf(size_text, sizeof size_text, "%lld", static_cast<long long>(span));
    std::snprintf(limit_text, sizeof limit_text, "%lld", static_cast<long long>(ids::sequence_space(l) - span));
    std::snprintf(epoch_text, sizeof epoch_text, "%lld", static_cast<long long>(l.epoch_unix_ms));

    registry::Statement statements[3];
    int n = 0;
    registry::Statement &viewing = statements[n++];
    viewing.sql = check;
    viewing.nparams = 1;
    viewing.params[0] = where->table;
    viewing.sink = view_sink;
    viewing.context = &r;
    r.after = guard;
    Int8Row checked;
    // (A mark set by crid_reset_high_water() names a second, not a block:
    // sequence 0, nothing to find.)
    bool check_row = guard.known() && guard.last_end() > 0 && r.ts > guard.last_ts() &&
                     guard.last_ts() >= now_ts - min_evict_age_s && guard.last_ts() != regression_reported_ts;
    if (check_row) {
        r.row_ts = guard.last_ts();
        r.row_end = guard.last_end();
        std::snprintf(row_ts_text, sizeof row_ts_text, "%lld", static_cast<long long>(r.row_ts));
        registry::Statement &st = statements[n++];
        st.sql = row;
        st.nparams = 1;
        st.params[0] = row_ts_text;
        st.sink = int8_sink;
        st.context = &checked;
    }
    Int8Row end;
    registry::Statement &upserting = statements[n++];
    upserting.sql = upsert;
    upserting.nparams = 5;
    upserting.params[0] = ts_text;
    upserting.params[1] = size_text;
    upserting.params[2] = limit_text;
    upserting.params[3] = where->table;
    upserting.params[4] = epoch_text;
    upserting.sink = int8_sink;
    upserting.context = &end;
    r.sent_unix_ms = core::wall_clock_ns() / core::ns_per_ms;
    bool ran = registry::run(statements, n, true, failure);
    r.received_unix_ms = core::wall_clock_ns() / core::ns_per_ms;
    if (!ran) {
        registry::report_failure(failure);
        return Outcome::failed;
    }
    if (!r.viewed) {
        registry::set_failure(failure, ERRCODE_INTERNAL_ERROR, "crid_registry_check in %s returned no state",
                              registry::session().name());
        registry::report_failure(failure);
        return Outcome::failed;
    }
    if (check_row) {
        r.row_sequence = checked.found ? checked.value : -1;
        r.row_missing = r.row_sequence < r.row_end;
        if (r.row_missing)
            r.after.went_backwards();
    }
    // The reservation ends at end.value: its blocks, in order. One that did
    // not fit leaves the second full for this round (the next takes a later
    // second; the rest of this one is a gap).
    if (end.found)
        for (int i = 0; i < r.count; ++i)
            r.starts[r.got++] = end.value - span + int64_t(i) * r.size;
    r.second_full = !end.found && r.view.allows(r.ts) && r.registry_epoch_ms == l.epoch_unix_ms;
    bool any = false;
    for (int i = 0; i < r.got; ++i)
        any |= r.accepted[i] = r.after.accept(r.ts, r.starts[i], r.size);
    // The blocks are committed; none is served before the mark covers it.
    // A mark ahead of blocks never served is harmless, a served block
    // beyond the mark is not.
    if (any && !cover_mark(unix_second_of(l, r.ts), r.after.last_end(), failure)) {
        registry::report_failure(failure);
        return Outcome::failed;
    }
    return Outcome::committed;
}

// WARNING and counter for a registry that went backwards; the guard has
// already moved past the second concerned.
void report_regression(const char *what, int64_t ts, int64_t next_ts) {
    regression_reported_ts = ts;
    pg_atomic_fetch_add_u64(&shared()->registry_regressions, 1);
    ereport(WARNING,
            (errmsg("crid: the registry went backwards: %s", what),
             errdetail("This server reserves again only in second %lld or later, above every id it served, and "
                       "only where the registry's own check allows (second %lld is left behind).",
                       static_cast<long long>(next_ts), static_cast<long long>(ts)),
             errhint("The registry table was rebuilt, truncated, restored or failed over: see \"Restoring the "
                     "registry\" in crid's README.")));
}

// A failure outside SQL (settings, the clock): reported, counted.
bool fail(const pg::CaughtError &error) {
    pg_atomic_fetch_add_u64(&shared()->registry_failures, 1);
    report(WorkerState::failing, error.sqlstate, error.message);
    return false;
}

// The second this server's clock names, or the registry's when this
// server's runs ahead of it (the registry refuses seconds further ahead of
// its own clock than the fleet's skew).
int64_t wanted_ts(const ids::Layout &l) {
    int64_t ms = core::wall_clock_ns() / core::ns_per_ms;
    if (known.viewed && known.offset_ms < 0)
        ms += known.offset_ms;
    return ids::ts_of_unix_ms(l, ms);
}

// Remembers the registry's answer; a table identity other than the one seen
// before (or one this round recorded) means the registry went backwards, or
// may have: said once per change, and counted.
void learn(const Round &r) {
    bool first = !known.viewed;
    known.viewed = true;
    known.view = r.view;
    known.offset_ms = ids::clock_offset_ms(r.view.now_unix_ms, r.sent_unix_ms, r.received_unix_ms);
    bool changed = r.registry_changed || (!first && std::strcmp(known.identity, r.identity) != 0);
    std::snprintf(known.identity, sizeof known.identity, "%s", r.identity);
    if (!changed)
        return;
    pg_atomic_fetch_add_u64(&shared()->registry_regressions, 1);
    ereport(WARNING,
            (errmsg("crid: the registry went backwards, or may have: its table changed (%s)", r.reason),
             errdetail("Every node of the registry now reserves after second %lld, above every second a reservation "
                       "lost with the old table may have used, so no id is served twice.",
                       static_cast<long long>(r.view.floor)),
             errhint("The registry was truncated, re-created, restored or failed over. Reservations resume within "
                     "about two seconds; see \"Restoring the registry\" in crid's README.")));
}

// The registry records another crid.epoch than this server's: every id
// would name another second than the other nodes' ids of the same block.
bool epoch_differs(const Round &r, const ids::Layout &l) {
    char detail[512];
    std::snprintf(detail, sizeof detail,
                  "crid.epoch of this server is Unix ms %lld, but the registry's state (crid_registry_state) records "
                  "Unix ms %lld: every node of one registry must use the same epoch",
                  static_cast<long long>(l.epoch_unix_ms), static_cast<long long>(r.registry_epoch_ms));
    pg_atomic_fetch_add_u64(&shared()->registry_failures, 1);
    report(WorkerState::failing, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, detail);
    return false;
}

// No reservation before the registry's clock allows the planned second.
bool hold_back(const ids::FloorPlan &plan, int64_t &hold_ms) {
    char detail[512];
    const ids::RegistryView &v = known.view;
    if (v.refuses && plan.ts == v.floor + 1)
        std::snprintf(detail, sizeof detail,
                      "the registry refuses seconds %lld to %lld, which reservations it lost may hold; reservations "
                      "resume in second %lld, in %lld ms",
                      static_cast<long long>(v.refused_from), static_cast<long long>(v.floor),
                      static_cast<long long>(plan.ts), static_cast<long long>(plan.wait_ms));
    else
        std::snprintf(detail, sizeof detail,
                      "second %lld is ahead of the registry's clock by more than its %lld ms of allowed skew; "
                      "reserving in %lld ms",
                      static_cast<long long>(plan.ts), static_cast<long long>(v.skew_ms),
                      static_cast<long long>(plan.wait_ms));
    report(WorkerState::held_back, 0, detail);
    // Looked at again soon rather than once: the registry's clock may be
    // stepped meanwhile (NTP), and a round trip that asks costs little.
    constexpr int64_t max_hold_ms = 250;
    hold_ms = std::min(plan.wait_ms, max_hold_ms);
    return false;
}

} // namespace

void report(WorkerState state, int sqlstate, const char *detail) {
    set_status(state, detail);
    if (state == WorkerState::serving) {
        if (logged_state != WorkerState::serving)
            ereport(LOG, (errmsg("crid: reserving blocks again in %s", registry::session().name())));
        logged_state = state;
        logged_sqlstate = 0;
        return;
    }
    if (state == logged_state && sqlstate == logged_sqlstate)
        return;
    logged_state = state;
    logged_sqlstate = sqlstate;
    if (state == WorkerState::held_back) {
        ereport(LOG, (errmsg("crid: reservations wait: %s", detail ? detail : "the registry holds them back")));
        return;
    }
    ereport(LOG, (errmsg("crid: could not reserve a block: %s", detail ? detail : "unknown reason"),
                  errdetail("The worker tries again with a pause that grows up to 10 s; this is logged again only "
                            "when the cause changes.")));
}

bool refill(int64_t &hold_ms) {
    hold_ms = 0;
    CridShared *s = shared();
    const ids::Layout &l = layout();
    if (pg_atomic_read_u32(&s->mark_refusal) != uint32(Refusal::none)) {
        report(WorkerState::failing, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
               "the registry mark crid_registry_mark is damaged; waiting for crid_reset_high_water()");
        return false;
    }
    if (!sync_guard(l))
        return false;
    ids::ReservationSettings settings = usable_settings(l);
    int64_t size = settings.block_size;
    uint64_t waits = pg_atomic_read_u64(&s->sync_waits);
    if (waits != waits_seen)
        extra_blocks = std::min(extra_blocks + 4, max_extra_blocks);
    waits_seen = waits;
    int64_t low = settings.threshold + extra_blocks * size;
    pg_atomic_write_u64(&s->wake_below, uint64(low));
    int64_t batch_limit = std::min<int64_t>(max_blocks_per_commit, ids::sequence_space(l) / size);
    pg::CaughtError error;
    int refused_rounds = 0;
    while (s->server.needs_block(low)) {
        Round r;
        int64_t wanted = 0, now_ts = 0;
        if (!pg::attempt(
                [&] {
                    wanted = wanted_ts(l);
                    now_ts = ids::ts_of_unix_ms(l, core::wall_clock_ns() / core::ns_per_ms);
                },
                error))
            return fail(error);
        // The last view of the registry picks the second past what it
        // refuses; only a fresh answer (below) makes the worker wait, since
        // the registry's clock may have been stepped since.
        r.ts = std::max(wanted, guard.earliest_ts());
        if (known.viewed)
            r.ts = ids::plan_second(known.view, wanted, guard.earliest_ts()).ts;
        r.size = size;
        if (!pg::attempt([&] { ids::check_allocation(l, r.ts, size); }, error))
            return fail(error);
        // As many blocks as reach the target, as the ring can take, in one commit.
        int64_t missing = low - int64_t(s->server.remaining());
        int64_t count = missing > size ? (missing + size - 1) / size : 1;
        count = std::min<int64_t>({count, batch_limit, int64_t(s->server.room())});
        if (count <= 0)
            break;
        r.count = int(count);
        int64_t t0 = core::monotonic_ns();
        Outcome outcome = reserve(r, l, now_ts);
        int64_t us = (core::monotonic_ns() - t0) / core::ns_per_us;
        if (outcome != Outcome::committed)
            return false;
        learn(r);
        if (r.registry_epoch_ms != l.epoch_unix_ms)
            return epoch_differs(r, l);
        guard = r.after;
        pg_atomic_fetch_add_u64(&s->registry_us_total, uint64(us));
        if (uint64(us) > pg_atomic_read_u64(&s->registry_us_max))
            pg_atomic_write_u64(&s->registry_us_max, uint64(us));
        pg_atomic_fetch_add_u64(&s->registry_commits, 1);
        if (r.row_missing) {
            char what[256];
            std::snprintf(what, sizeof what,
                          "the row of second %lld, where this server reserved sequences up to %lld, %s",
                          static_cast<long long>(r.row_ts), static_cast<long long>(r.row_end),
                          r.row_sequence < 0 ? "is gone" : "fell back");
            report_regression(what, r.row_ts, r.ts);
        }
        if (!r.view.allows(r.ts)) {
            // Refused by the registry: past its floor, or ahead of its clock.
            if (r.view.refuses && r.ts >= r.view.refused_from && r.ts <= r.view.floor)
                guard.second_full(r.view.floor);
            ids::FloorPlan plan = ids::plan_second(r.view, wanted, guard.earliest_ts());
            if (plan.wait_ms > 0)
                return hold_back(plan, hold_ms);
            if (++refused_rounds > 3) {
                hold_ms = 10;
                return false;
            }
            continue;
        }
        for (int i = 0; i < r.got; ++i)
            if (!r.accepted[i]) {
                char what[256];
                std::snprintf(what, sizeof what,
                              "second %lld handed out sequences from %lld again, below blocks this server served",
                              static_cast<long long>(r.ts), static_cast<long long>(r.starts[i]));
                report_regression(what, r.ts, guard.earliest_ts());
                break;
            }
        if (r.second_full)
            guard.second_full(r.ts);
        bool published_any = false;
        for (int i = 0; i < r.got; ++i) {
            if (!r.accepted[i])
                continue;
            // The ring had room for r.count blocks, so publish() succeeds; a
            // block it refused anyway would be a gap, never reused.
            bool published = false;
            if (!pg::attempt(
                    [&] {
                        ids::Block b = ids::block_of_allocation(l, r.ts, size, r.starts[i] + size);
                        published = s->server.publish(b.first_id, b.size);
                    },
                    error))
                return fail(error);
            if (!published)
                break;
            published_any = true;
            pg_atomic_fetch_add_u64(&s->blocks_reserved, 1);
            pg_atomic_fetch_add_u64(&s->ids_reserved, uint64(size));
        }
        if (published_any) {
            SpinLockAcquire(&s->status_lock);
            s->worker_failures = 0;
            SpinLockRelease(&s->status_lock);
            report(WorkerState::serving, 0, nullptr);
            ConditionVariableBroadcast(&s->block_published);
        }
    }
    return true;
}

} // namespace crid::pg::crid_ids
