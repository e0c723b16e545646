#include "worker/block_refill.hpp"

#include "crid_ids/block_shared.hpp"
#include "crid_ids/crid_ids_settings.hpp"
#include "common/boundary.hpp"
#include "marks/registry_mark.hpp"
#include "worker/registry_link.hpp"
#include "worker/worker_shared.hpp"

#include "core/clock.hpp"
#include "core/crid_block_sizing.hpp"
#include "core/registry_floor.hpp"
#include "core/registry_guard.hpp"
#include "core/time_units.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace crid::pg::worker {

namespace {

namespace ids = core::crid_ids;
using crid_ids::block_size;
using crid_ids::BlockShared;
using crid_ids::layout;
using crid_ids::max_blocks_per_second;
using crid_ids::min_evict_age_s;
using crid_ids::ring_blocks;
using crid_ids::threshold;

// At most this many blocks are reserved in one transaction.
constexpr int max_blocks_per_commit = 8;

// The reserve beyond crid.threshold grows up to most of the ring.
constexpr int64_t max_extra_blocks = int64_t(ring_blocks) - 4;

// What this worker last learnt of the registry's clock and continuity: the
// second wanted next is planned against it, and a change of identity is
// reported once.
struct Known {
    bool viewed = false;
    ids::RegistryView view;
    int64_t offset_ms = 0;   // the registry's clock minus this server's
    char identity[256] = ""; // the registry table's identity seen last
};

// Everything the refill keeps from one refill to the next, in the worker
// process (a new worker starts from the registry mark again).
struct RefillState {
    // What the worker has taken from the registry; restarted from the
    // registry mark at worker start and after crid_reset_high_water().
    ids::RegistryGuard guard;
    uint64_t guard_generation = UINT64_MAX; // the mark generation it was built from

    // The size of the blocks and the reserve kept ahead of demand, from the
    // rate ids are served at and the backends' waits
    // (core/crid_block_sizing.hpp): blocks grow under a high rate so that
    // the worker reserves at most crid.max_blocks_per_second of them, and
    // shrink back once demand falls.
    ids::BlockSizer sizer;

    Known known;

    // The second of the last regression reported: its row is not checked
    // again (one rebuild, one WARNING).
    int64_t regression_reported_ts = -1;

    // The settings last warned about.
    int64_t warned_block_size = -1, warned_threshold = -1;
};

RefillState state;

// How far the worker fills the block server this time: below `low`
// remaining ids it reserves, up to `batch_limit` blocks a commit.
struct Target {
    int64_t size = 0;
    int64_t low = 0;
    int64_t batch_limit = 0;
};

// What one reservation round asks of the registry.
struct Plan {
    int64_t ts = 0;         // the second reserved in
    int64_t size = 0;       // the block size
    int count = 0;          // blocks asked for, as one reservation
    int64_t wanted = 0;     // the second this server's clock names (wanted_ts)
    int64_t now_ts = 0;     // this server's second now
    bool check_row = false; // the guard's last second is read back too
    int64_t row_ts = 0;     // that second
    int64_t row_end = 0;    // how far this server had reserved in it
};

// One int8 column of one row into an int64 (found stays false for no row).
struct Int8Row {
    bool found = false;
    int64_t value = 0;
};

// What the registry answered, written by the statements' row sinks.
struct Answer {
    bool viewed = false;    // the registry's continuity state came back
    ids::RegistryView view; // ... and said this
    int64_t registry_epoch_ms = 0;
    bool registry_changed = false; // this round recorded a new identity
    char identity[256] = "";
    char reason[512] = "";
    Int8Row checked; // the guard's last second, as the registry holds it now
    Int8Row end;     // the reservation's end (no row: nothing reserved)
    int64_t sent_unix_ms = 0, received_unix_ms = 0;
};

// What the plan and the answer mean for this server: the blocks the
// registry gave, which of them the guard accepts, and how the guard stands
// once the round is committed.
struct Verdict {
    int got = 0; // blocks the registry gave
    int64_t starts[max_blocks_per_commit] = {};
    bool accepted[max_blocks_per_commit] = {};
    bool any_accepted = false;
    bool second_full = false;  // the next block did not fit in the second
    bool row_missing = false;  // the guard's last second lost its row (or part of it)
    int64_t row_sequence = -1; // what its row held (-1: no row)
    ids::RegistryGuard after;  // the guard once the round is committed
};

// Every one of them lives across calls that may raise an ERROR (SPI, the
// mark's write): plain bytes only.
static_assert(std::is_trivially_destructible_v<RefillState> && std::is_trivially_destructible_v<Plan> &&
              std::is_trivially_destructible_v<Answer> && std::is_trivially_destructible_v<Verdict> &&
              std::is_trivially_destructible_v<Stop>);

// A stop of the refill, said through report_stop() by refill() alone.
bool stop_with(Stop &stop, WorkerState state, int sqlstate, bool counted, const char *detail) {
    stop = Stop{state, Failure{}, counted};
    set_failure(stop.why, sqlstate, "%s", detail);
    return false;
}

// A failure outside SQL (settings, the clock): counted.
bool stop_on_error(Stop &stop, const pg::CaughtError &error) {
    return stop_with(stop, WorkerState::failing, error.sqlstate, true, error.message);
}

// A registry batch that failed: counted.
bool stop_on_failure(Stop &stop, const Failure &failure) {
    stop = Stop{WorkerState::failing, failure, true};
    return false;
}

// The Unix second a registry second begins in.
int64_t unix_second_of(const ids::Layout &l, int64_t ts) { return l.epoch_unix_ms / core::ms_per_s + ts; }

// The settings as they can be used, with a WARNING naming both settings
// whenever a clamp starts or changes (a reload never stops minting).
ids::ReservationSettings usable_settings(const ids::Layout &l) {
    ids::ReservationSettings r = ids::usable_settings(l, block_size(), threshold());
    bool clamped = r.block_size_clamped || r.threshold_clamped;
    if (clamped && (r.block_size != state.warned_block_size || r.threshold != state.warned_threshold)) {
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
    state.warned_block_size = clamped ? r.block_size : -1;
    state.warned_threshold = clamped ? r.threshold : -1;
    return r;
}

// The registry mark can be built on: not damaged, and the guard starts
// (again) from it when it changed generation (at worker start and after
// crid_reset_high_water()). False with `stop` when the mark is damaged or
// lies outside the crid layout.
bool sync_guard(const ids::Layout &l, Stop &stop) {
    if (marks::registry_mark_refusal() != Refusal::none)
        return stop_with(stop, WorkerState::failing, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, false,
                         "the registry mark crid_registry_mark is damaged; waiting for crid_reset_high_water()");
    marks::RegistryMarkState mark = marks::registry_mark();
    if (mark.generation == state.guard_generation)
        return true;
    state.guard = ids::RegistryGuard{};
    int64_t epoch_s = l.epoch_unix_ms / core::ms_per_s;
    if (mark.known && mark.unix_s >= epoch_s) {
        if (mark.unix_s - epoch_s > ids::max_ts(l)) {
            char detail[256];
            std::snprintf(detail, sizeof detail,
                          "the registry mark (Unix second %lld) is past the last second crid.timestamp_bits holds",
                          static_cast<long long>(mark.unix_s));
            return stop_with(stop, WorkerState::failing, 0, false, detail);
        }
        state.guard.restore(mark.unix_s - epoch_s, mark.sequence);
    }
    state.guard_generation = mark.generation;
    return true;
}

void int8_sink(void *context, int columns, const char *const *values) noexcept {
    auto *row = static_cast<Int8Row *>(context);
    if (columns < 1 || !values[0])
        return;
    row->found = true;
    row->value = std::strtoll(values[0], nullptr, 10);
}

// The reservation every writer runs (crid_registry_reserve in the
// registry's schema, named by the location, never found through a
// search_path): $2 sequences of second $1 in table $4, only where the second
// has room for them ($3 is the largest next_seq they may start from), the
// registry's continuity check allows the second and its crid.epoch is this
// server's ($5, Unix ms). It returns the new next_seq, or NULL having
// reserved nothing; the check statement before it in the same transaction
// says why.
// clang-format off
void upsert_sql(char *out, size_t size, const char *reserve) {
    std::snprintf(out, size,
                  "SELECT %s($4::pg_catalog.regclass, $1::pg_catalog.int8, $2::pg_catalog.int8,"
                  " $3::pg_catalog.int8, $5::pg_catalog.int8)",
                  reserve);
}
// clang-format on

// The registry's continuity state for table $1 (made current, recording a
// new identity when the table changed).
// clang-format off
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
    auto *a = static_cast<Answer *>(context);
    if (columns != 9 || !v[1] || !v[2] || !v[3] || !v[4] || !v[5])
        return;
    a->viewed = true;
    a->view.refuses = v[0] != nullptr;
    a->view.refused_from = v[0] ? std::strtoll(v[0], nullptr, 10) : 0;
    a->view.floor = std::strtoll(v[1], nullptr, 10);
    a->view.live_max = std::strtoll(v[2], nullptr, 10);
    a->view.now_unix_ms = std::strtoll(v[3], nullptr, 10);
    a->registry_epoch_ms = std::strtoll(v[4], nullptr, 10);
    a->view.epoch_unix_ms = a->registry_epoch_ms;
    a->view.skew_ms = std::strtoll(v[5], nullptr, 10);
    a->registry_changed = v[6] && v[6][0] == 't';
    std::snprintf(a->identity, sizeof a->identity, "%s", v[7] ? v[7] : "");
    std::snprintf(a->reason, sizeof a->reason, "%s", v[8] ? v[8] : "");
}

// The registry's next_seq of second $1 (no row when it has none), in table
// $2 when read here. This server's own registry is read through crid_registry_next_seq,
// as the table's owner: the worker is a superuser, and the table may belong
// to a less privileged role (registry/registry_access.cpp). A remote registry is read
// with the fleet role's own rights, and may be one without crid's C code.
void row_sql(char *out, size_t size, const Location &where, bool remote) {
    if (remote)
        std::snprintf(out, size, "SELECT a.next_seq FROM %s a WHERE a.ts OPERATOR(pg_catalog.=) $1::pg_catalog.int8",
                      where.table);
    else
        std::snprintf(out, size, "SELECT %s($2::pg_catalog.regclass, $1::pg_catalog.int8)", where.next_seq);
}

// Makes the registry mark cover a second before any of its ids is served;
// false (a gap: the blocks are reserved, never served) when it cannot.
bool cover_mark(int64_t unix_s, int64_t sequence, Failure &failure) {
    struct Mark {
        int64_t unix_s, sequence;
    } mark{unix_s, sequence};
    return run_catching(
        [](void *m) { marks::cover_registry_mark(static_cast<Mark *>(m)->unix_s, static_cast<Mark *>(m)->sequence); },
        &mark, failure);
}

// The statements of one reservation round and the bytes they need: the
// registry's continuity state, the row check of the guard's last second
// (when planned) and the reservation, their rows into the answer.
struct RoundStatements {
    char check[sizeof Location::check + 400];
    char row[sizeof Location::table + sizeof Location::next_seq + 200];
    char upsert[sizeof Location::reserve + 200];
    char ts[24], span[24], limit[24], row_ts[24], epoch[24];
    Statement st[3];
    int count = 0;
};

void build_statements(RoundStatements &q, const Plan &p, Answer &a, const Location &where, const ids::Layout &l) {
    check_sql(q.check, sizeof q.check, where.check);
    row_sql(q.row, sizeof q.row, where, session().remote());
    upsert_sql(q.upsert, sizeof q.upsert, where.reserve);
    // The round's blocks are one reservation of p.count blocks: one upsert,
    // one pass of the registry's checks, however many blocks it takes.
    const int64_t span = p.size * p.count;
    std::snprintf(q.ts, sizeof q.ts, "%lld", static_cast<long long>(p.ts));
    std::snprintf(q.span, sizeof q.span, "%lld", static_cast<long long>(span));
    std::snprintf(q.limit, sizeof q.limit, "%lld", static_cast<long long>(ids::sequence_space(l) - span));
    std::snprintf(q.epoch, sizeof q.epoch, "%lld", static_cast<long long>(l.epoch_unix_ms));
    q.st[q.count++].set(q.check, {where.table}, view_sink, &a);
    if (p.check_row) {
        std::snprintf(q.row_ts, sizeof q.row_ts, "%lld", static_cast<long long>(p.row_ts));
        if (session().remote())
            q.st[q.count++].set(q.row, {q.row_ts}, int8_sink, &a.checked);
        else
            q.st[q.count++].set(q.row, {q.row_ts, where.table}, int8_sink, &a.checked);
    }
    q.st[q.count++].set(q.upsert, {q.ts, q.span, q.limit, where.table, q.epoch}, int8_sink, &a.end);
}

// What the committed round's rows say: whether the guard's last row went
// back, the blocks reserved and which of them the guard accepts.
Verdict judge(const Plan &p, const Answer &a, const ids::Layout &l) {
    Verdict v;
    v.after = state.guard;
    if (p.check_row) {
        v.row_sequence = a.checked.found ? a.checked.value : -1;
        v.row_missing = v.row_sequence < p.row_end;
        if (v.row_missing)
            v.after.went_backwards();
    }
    // The reservation ends at end.value: its blocks, in order. One that did
    // not fit leaves the second full for this round (the next takes a later
    // second; the rest of this one is a gap).
    const int64_t span = p.size * p.count;
    if (a.end.found)
        for (int i = 0; i < p.count; ++i)
            v.starts[v.got++] = a.end.value - span + int64_t(i) * p.size;
    v.second_full = !a.end.found && a.view.allows(p.ts) && a.registry_epoch_ms == l.epoch_unix_ms;
    for (int i = 0; i < v.got; ++i) {
        v.accepted[i] = v.after.accept(p.ts, v.starts[i], p.size);
        v.any_accepted |= v.accepted[i];
    }
    return v;
}

// One registry transaction, committed before anything of it is used; then
// the verdict, and the registry mark over the accepted blocks before any is
// published. A remote registry gets the whole transaction in one round
// trip. False with `stop` when the registry or the mark failed.
bool reserve(const Plan &p, Answer &a, Verdict &v, const ids::Layout &l, Stop &stop) {
    const Location *where = located(stop);
    if (!where)
        return false;
    RoundStatements q;
    build_statements(q, p, a, *where, l);
    Failure failure;
    a.sent_unix_ms = core::wall_clock_ns() / core::ns_per_ms;
    bool ran = run(q.st, q.count, true, failure);
    a.received_unix_ms = core::wall_clock_ns() / core::ns_per_ms;
    if (!ran)
        return stop_on_failure(stop, failure);
    if (!a.viewed) {
        set_failure(failure, ERRCODE_INTERNAL_ERROR, "crid_registry_check in %s returned no state", session().name());
        return stop_on_failure(stop, failure);
    }
    v = judge(p, a, l);
    // The blocks are committed; none is served before the mark covers it.
    // A mark ahead of blocks never served is harmless, a served block
    // beyond the mark is not.
    if (v.any_accepted && !cover_mark(unix_second_of(l, p.ts), v.after.last_end(), failure))
        return stop_on_failure(stop, failure);
    return true;
}

// WARNING and counter for a registry that went backwards; the guard has
// already moved past the second concerned.
void report_regression(const char *what, int64_t ts, int64_t next_ts) {
    state.regression_reported_ts = ts;
    pg_atomic_fetch_add_u64(&status()->regressions, 1);
    ereport(WARNING,
            (errmsg("crid: the registry went backwards: %s", what),
             errdetail("This server reserves again only in second %lld or later, above every id it served, and "
                       "only where the registry's own check allows (second %lld is left behind).",
                       static_cast<long long>(next_ts), static_cast<long long>(ts)),
             errhint("The registry table was rebuilt, truncated, restored or failed over: see \"Restoring the "
                     "registry\" in crid's docs/fleet.md.")));
}

// The second this server's clock names, or the registry's when this
// server's runs ahead of it (the registry refuses seconds further ahead of
// its own clock than the fleet's skew).
int64_t wanted_ts(const ids::Layout &l) {
    int64_t ms = core::wall_clock_ns() / core::ns_per_ms;
    if (state.known.viewed && state.known.offset_ms < 0)
        ms += state.known.offset_ms;
    return ids::ts_of_unix_ms(l, ms);
}

// Remembers the registry's answer; a table identity other than the one seen
// before (or one this round recorded) means the registry went backwards, or
// may have: said once per change, and counted.
void learn(const Answer &a) {
    Known &known = state.known;
    bool first = !known.viewed;
    known.viewed = true;
    known.view = a.view;
    known.offset_ms = ids::clock_offset_ms(a.view.now_unix_ms, a.sent_unix_ms, a.received_unix_ms);
    note_registry_clock(known.offset_ms, (a.received_unix_ms - a.sent_unix_ms + 1) / 2, a.view.skew_ms,
                        a.received_unix_ms);
    bool changed = a.registry_changed || (!first && std::strcmp(known.identity, a.identity) != 0);
    std::snprintf(known.identity, sizeof known.identity, "%s", a.identity);
    if (!changed)
        return;
    pg_atomic_fetch_add_u64(&status()->regressions, 1);
    ereport(WARNING,
            (errmsg("crid: the registry went backwards, or may have: its table changed (%s)", a.reason),
             errdetail("Every node of the registry now reserves after second %lld, above every second a reservation "
                       "lost with the old table may have used, so no id is served twice.",
                       static_cast<long long>(a.view.floor)),
             errhint("The registry was truncated, re-created, restored or failed over. Reservations resume within "
                     "about two seconds; see \"Restoring the registry\" in crid's docs/fleet.md.")));
}

// The registry records another crid.epoch than this server's: every id
// would name another second than the other nodes' ids of the same block.
bool epoch_differs(const Answer &a, const ids::Layout &l, Stop &stop) {
    char detail[512];
    std::snprintf(detail, sizeof detail,
                  "crid.epoch of this server is Unix ms %lld, but the registry's state (crid_registry_state) records "
                  "Unix ms %lld: every node of one registry must use the same epoch",
                  static_cast<long long>(l.epoch_unix_ms), static_cast<long long>(a.registry_epoch_ms));
    return stop_with(stop, WorkerState::failing, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, true, detail);
}

// No reservation before the registry's clock allows the planned second.
bool hold_back(const ids::FloorPlan &plan, Stop &stop) {
    char detail[512];
    const ids::RegistryView &v = state.known.view;
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
    stop_with(stop, WorkerState::held_back, 0, false, detail);
    // Looked at again soon rather than once: the registry's clock may be
    // stepped meanwhile (NTP), and a round trip that asks costs little.
    constexpr int64_t max_hold_ms = 250;
    stop.hold_ms = std::min(plan.wait_ms, max_hold_ms);
    return false;
}

Target fill_target(BlockShared *s, const ids::Layout &l) {
    const ids::SizingSettings sizing =
        ids::sizing_settings(l, usable_settings(l), max_blocks_per_second(), max_extra_blocks);
    // Tickets handed out: ids served, gaps of crid_next(gene, bits) included,
    // which use up registry ids as fast.
    const uint64 reserved = pg_atomic_read_u64(&s->ids_reserved), unserved = s->server.remaining();
    state.sizer.observe(core::monotonic_ns() / core::ns_per_ms, reserved > unserved ? reserved - unserved : 0,
                        pg_atomic_read_u64(&s->sync_waits), sizing);
    Target t;
    t.size = state.sizer.block_size();
    t.low = state.sizer.reserve_target(sizing);
    pg_atomic_write_u64(&s->wake_below, uint64(t.low));
    pg_atomic_write_u64(&s->block_size_now, uint64(t.size));
    t.batch_limit = std::min<int64_t>(max_blocks_per_commit, ids::sequence_space(l) / t.size);
    return t;
}

// The round's second, its size of reservation and the row check; false
// with `stop` when the clock or the layout refuses.
bool plan_round(Plan &p, BlockShared *s, const ids::Layout &l, const Target &t, Stop &stop) {
    pg::CaughtError error;
    if (!pg::attempt(
            [&] {
                p.wanted = wanted_ts(l);
                p.now_ts = ids::ts_of_unix_ms(l, core::wall_clock_ns() / core::ns_per_ms);
            },
            error))
        return stop_on_error(stop, error);
    // The last view of the registry picks the second past what it refuses;
    // only a fresh answer makes the worker wait, since the registry's clock
    // may have been stepped since.
    const ids::RegistryGuard &guard = state.guard;
    p.ts = std::max(p.wanted, guard.earliest_ts());
    if (state.known.viewed)
        p.ts = ids::plan_second(state.known.view, p.wanted, guard.earliest_ts()).ts;
    p.size = t.size;
    if (!pg::attempt([&] { ids::check_allocation(l, p.ts, t.size); }, error))
        return stop_on_error(stop, error);
    // As many blocks as reach the target, as the ring can take, in one commit.
    int64_t missing = t.low - int64_t(s->server.remaining());
    int64_t count = missing > t.size ? (missing + t.size - 1) / t.size : 1;
    p.count = int(std::min<int64_t>({count, t.batch_limit, int64_t(s->server.room())}));
    // (A mark set by crid_reset_high_water() names a second, not a block:
    // sequence 0, nothing to find.)
    p.check_row = guard.known() && guard.last_end() > 0 && p.ts > guard.last_ts() &&
                  guard.last_ts() >= p.now_ts - min_evict_age_s && guard.last_ts() != state.regression_reported_ts;
    p.row_ts = p.check_row ? guard.last_ts() : 0;
    p.row_end = p.check_row ? guard.last_end() : 0;
    return true;
}

// Counts a committed round and reports what it found gone backwards.
void account(const Plan &p, const Verdict &v, int64_t us) {
    WorkerStatus *worker = status();
    pg_atomic_fetch_add_u64(&worker->us_total, uint64(us));
    if (uint64(us) > pg_atomic_read_u64(&worker->us_max))
        pg_atomic_write_u64(&worker->us_max, uint64(us));
    pg_atomic_fetch_add_u64(&worker->commits, 1);
    if (v.row_missing) {
        char what[256];
        std::snprintf(what, sizeof what, "the row of second %lld, where this server reserved sequences up to %lld, %s",
                      static_cast<long long>(p.row_ts), static_cast<long long>(p.row_end),
                      v.row_sequence < 0 ? "is gone" : "fell back");
        report_regression(what, p.row_ts, p.ts);
    }
    for (int i = 0; i < v.got; ++i)
        if (!v.accepted[i]) {
            char what[256];
            std::snprintf(what, sizeof what,
                          "second %lld handed out sequences from %lld again, below blocks this server served",
                          static_cast<long long>(p.ts), static_cast<long long>(v.starts[i]));
            report_regression(what, p.ts, state.guard.earliest_ts());
            break;
        }
}

// Publishes the accepted blocks of a committed round. The ring had room for
// p.count blocks, so publish() succeeds; a block it refused anyway would be
// a gap, never reused. False with `stop` when the layout refuses a block.
bool publish_accepted(const Plan &p, const Verdict &v, BlockShared *s, const ids::Layout &l, Stop &stop) {
    bool published_any = false;
    pg::CaughtError error;
    for (int i = 0; i < v.got; ++i) {
        if (!v.accepted[i])
            continue;
        bool published = false;
        if (!pg::attempt(
                [&] {
                    ids::Block b = ids::block_of_allocation(l, p.ts, p.size, v.starts[i] + p.size);
                    published = s->server.publish(b.first_id, b.size);
                },
                error))
            return stop_on_error(stop, error);
        if (!published)
            break;
        published_any = true;
        pg_atomic_fetch_add_u64(&s->blocks_reserved, 1);
        pg_atomic_fetch_add_u64(&s->ids_reserved, uint64(p.size));
        if (uint64(p.size) > pg_atomic_read_u64(&s->block_size_largest))
            pg_atomic_write_u64(&s->block_size_largest, uint64(p.size));
    }
    if (published_any) {
        WorkerStatus *worker = status();
        SpinLockAcquire(&worker->lock);
        worker->worker_failures = 0;
        SpinLockRelease(&worker->lock);
        report(WorkerState::serving, 0, nullptr);
        ConditionVariableBroadcast(&s->block_published);
    }
    return true;
}

// A round the registry refused (past its floor, or ahead of its clock): the
// guard skips what the registry refuses, and the next round is planned at
// once, or after the pause the registry's clock asks for (`stop`). After a
// few refusals in a row the worker pauses briefly, saying nothing new.
bool refused(const Plan &p, const Answer &a, int &refused_rounds, Stop &stop) {
    const ids::RegistryView &view = a.view;
    if (view.refuses && p.ts >= view.refused_from && p.ts <= view.floor)
        state.guard.second_full(view.floor);
    ids::FloorPlan next = ids::plan_second(view, p.wanted, state.guard.earliest_ts());
    if (next.wait_ms > 0)
        return hold_back(next, stop);
    if (++refused_rounds > 3) {
        stop = Stop{WorkerState::held_back, Failure{}, false, 10, true};
        return false;
    }
    return true;
}

// Rounds until the server has its reserve: true when it has, false with
// `stop` saying why a round stopped short.
bool fill(Stop &stop) {
    BlockShared *s = crid_ids::shared();
    const ids::Layout &l = layout();
    if (!sync_guard(l, stop))
        return false;
    int refused_rounds = 0;
    for (;;) {
        // Planned again each round: backends that waited meanwhile make the
        // next round reserve more, while this refill is still going.
        Target target = fill_target(s, l);
        if (!s->server.needs_block(target.low))
            return true;
        Plan p;
        if (!plan_round(p, s, l, target, stop))
            return false;
        if (p.count <= 0)
            return true;
        Answer a;
        Verdict v;
        int64_t t0 = core::monotonic_ns();
        if (!reserve(p, a, v, l, stop))
            return false;
        int64_t us = (core::monotonic_ns() - t0) / core::ns_per_us;
        learn(a);
        if (a.registry_epoch_ms != l.epoch_unix_ms)
            return epoch_differs(a, l, stop);
        state.guard = v.after;
        account(p, v, us);
        if (!a.view.allows(p.ts)) {
            if (!refused(p, a, refused_rounds, stop))
                return false;
            continue;
        }
        if (v.second_full)
            state.guard.second_full(p.ts);
        if (!publish_accepted(p, v, s, l, stop))
            return false;
    }
}

} // namespace

bool refill(int64_t &hold_ms) {
    Stop stop;
    bool filled = fill(stop);
    hold_ms = filled ? 0 : stop.hold_ms;
    if (!filled && !stop.quiet)
        report_stop(stop);
    return filled;
}

} // namespace crid::pg::worker
