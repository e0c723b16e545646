#include "worker/block_refill.hpp"

#include "crid_ids/block_shared.hpp"
#include "crid_ids/crid_ids_settings.hpp"
#include "common/boundary.hpp"
#include "marks/registry_mark.hpp"
#include "worker/registry_link.hpp"
#include "worker/worker_shared.hpp"

#include "core/clock.hpp"
#include "core/registry_floor.hpp"
#include "core/registry_guard.hpp"
#include "core/time_units.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace crid::pg::worker {

namespace {

namespace ids = core::crid_ids;
using crid_ids::block_size;
using crid_ids::BlockShared;
using crid_ids::layout;
using crid_ids::min_evict_age_s;
using crid_ids::ring_blocks;
using crid_ids::threshold;

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

// When backends still wait with the extra blocks at their most, the ring's
// ids last less than a registry commit: a gene of k bits takes up to 2^k
// registry ids per id. Then each further wait doubles the block reserved
// (ids::grown_block_size), so such a loop mints at crid_next()'s speed
// instead of the worker's commit rate. Like the extra blocks, the growth
// lasts as long as the worker; it costs a bigger gap after a crash.
int64_t block_growth = 1;

// The second of the last regression reported: its row is not checked again
// (one rebuild, one WARNING).
int64_t regression_reported_ts = -1;

// At most this many blocks are reserved in one transaction.
constexpr int max_blocks_per_commit = 8;

// The settings last warned about.
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
    marks::RegistryMarkState mark = marks::registry_mark();
    uint64_t generation = mark.generation;
    bool known = mark.known;
    int64_t unix_s = mark.unix_s, sequence = mark.sequence;
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
// (when wanted) and the reservation.
struct RoundStatements {
    char check[sizeof Location::check + 400];
    char row[sizeof Location::table + sizeof Location::next_seq + 200];
    char upsert[sizeof Location::reserve + 200];
    char ts[24], span[24], limit[24], row_ts[24], epoch[24];
    Statement st[3];
    int count = 0;
    bool check_row = false;
    Int8Row checked; // the guard's last second, as the registry holds it now
    Int8Row end;     // the reservation's end (no row: nothing reserved)
};

void build_statements(RoundStatements &q, Round &r, const Location &where, const ids::Layout &l, int64_t now_ts) {
    check_sql(q.check, sizeof q.check, where.check);
    row_sql(q.row, sizeof q.row, where, session().remote());
    upsert_sql(q.upsert, sizeof q.upsert, where.reserve);
    // The round's blocks are one reservation of r.count blocks: one upsert,
    // one pass of the registry's checks, however many blocks it takes.
    const int64_t span = r.size * r.count;
    std::snprintf(q.ts, sizeof q.ts, "%lld", static_cast<long long>(r.ts));
    std::snprintf(q.span, sizeof q.span, "%lld", static_cast<long long>(span));
    std::snprintf(q.limit, sizeof q.limit, "%lld", static_cast<long long>(ids::sequence_space(l) - span));
    std::snprintf(q.epoch, sizeof q.epoch, "%lld", static_cast<long long>(l.epoch_unix_ms));
    q.st[q.count++].set(q.check, {where.table}, view_sink, &r);
    // (A mark set by crid_reset_high_water() names a second, not a block:
    // sequence 0, nothing to find.)
    q.check_row = guard.known() && guard.last_end() > 0 && r.ts > guard.last_ts() &&
                  guard.last_ts() >= now_ts - min_evict_age_s && guard.last_ts() != regression_reported_ts;
    if (q.check_row) {
        r.row_ts = guard.last_ts();
        r.row_end = guard.last_end();
        std::snprintf(q.row_ts, sizeof q.row_ts, "%lld", static_cast<long long>(r.row_ts));
        if (session().remote())
            q.st[q.count++].set(q.row, {q.row_ts}, int8_sink, &q.checked);
        else
            q.st[q.count++].set(q.row, {q.row_ts, where.table}, int8_sink, &q.checked);
    }
    q.st[q.count++].set(q.upsert, {q.ts, q.span, q.limit, where.table, q.epoch}, int8_sink, &q.end);
}

// What the committed round's rows say: whether the guard's last row went
// back, the blocks reserved and which of them the guard accepts.
void read_results(Round &r, const RoundStatements &q, const ids::Layout &l) {
    r.after = guard;
    if (q.check_row) {
        r.row_sequence = q.checked.found ? q.checked.value : -1;
        r.row_missing = r.row_sequence < r.row_end;
        if (r.row_missing)
            r.after.went_backwards();
    }
    // The reservation ends at end.value: its blocks, in order. One that did
    // not fit leaves the second full for this round (the next takes a later
    // second; the rest of this one is a gap).
    const int64_t span = r.size * r.count;
    if (q.end.found)
        for (int i = 0; i < r.count; ++i)
            r.starts[r.got++] = q.end.value - span + int64_t(i) * r.size;
    r.second_full = !q.end.found && r.view.allows(r.ts) && r.registry_epoch_ms == l.epoch_unix_ms;
    for (int i = 0; i < r.got; ++i)
        r.accepted[i] = r.after.accept(r.ts, r.starts[i], r.size);
}

// One registry transaction, committed before anything of it is used; then
// the guard's verdict on each block, and the registry mark for the accepted
// ones before any is published. A remote registry gets the whole
// transaction in one round trip.
Outcome reserve(Round &r, const ids::Layout &l, int64_t now_ts) {
    Failure failure;
    const Location *where = located(failure);
    if (!where)
        return Outcome::unavailable;
    RoundStatements q;
    build_statements(q, r, *where, l, now_ts);
    r.sent_unix_ms = core::wall_clock_ns() / core::ns_per_ms;
    bool ran = run(q.st, q.count, true, failure);
    r.received_unix_ms = core::wall_clock_ns() / core::ns_per_ms;
    if (!ran) {
        report_failure(failure);
        return Outcome::failed;
    }
    if (!r.viewed) {
        set_failure(failure, ERRCODE_INTERNAL_ERROR, "crid_registry_check in %s returned no state", session().name());
        report_failure(failure);
        return Outcome::failed;
    }
    read_results(r, q, l);
    bool any = std::any_of(r.accepted, r.accepted + r.got, [](bool a) { return a; });
    // The blocks are committed; none is served before the mark covers it.
    // A mark ahead of blocks never served is harmless, a served block
    // beyond the mark is not.
    if (any && !cover_mark(unix_second_of(l, r.ts), r.after.last_end(), failure)) {
        report_failure(failure);
        return Outcome::failed;
    }
    return Outcome::committed;
}

// WARNING and counter for a registry that went backwards; the guard has
// already moved past the second concerned.
void report_regression(const char *what, int64_t ts, int64_t next_ts) {
    regression_reported_ts = ts;
    pg_atomic_fetch_add_u64(&status()->regressions, 1);
    ereport(WARNING,
            (errmsg("crid: the registry went backwards: %s", what),
             errdetail("This server reserves again only in second %lld or later, above every id it served, and "
                       "only where the registry's own check allows (second %lld is left behind).",
                       static_cast<long long>(next_ts), static_cast<long long>(ts)),
             errhint("The registry table was rebuilt, truncated, restored or failed over: see \"Restoring the "
                     "registry\" in crid's docs/fleet.md.")));
}

// A failure outside SQL (settings, the clock): reported, counted.
bool fail(const pg::CaughtError &error) {
    pg_atomic_fetch_add_u64(&status()->failures, 1);
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
    pg_atomic_fetch_add_u64(&status()->regressions, 1);
    ereport(WARNING,
            (errmsg("crid: the registry went backwards, or may have: its table changed (%s)", r.reason),
             errdetail("Every node of the registry now reserves after second %lld, above every second a reservation "
                       "lost with the old table may have used, so no id is served twice.",
                       static_cast<long long>(r.view.floor)),
             errhint("The registry was truncated, re-created, restored or failed over. Reservations resume within "
                     "about two seconds; see \"Restoring the registry\" in crid's docs/fleet.md.")));
}

// The registry records another crid.epoch than this server's: every id
// would name another second than the other nodes' ids of the same block.
bool epoch_differs(const Round &r, const ids::Layout &l) {
    char detail[512];
    std::snprintf(detail, sizeof detail,
                  "crid.epoch of this server is Unix ms %lld, but the registry's state (crid_registry_state) records "
                  "Unix ms %lld: every node of one registry must use the same epoch",
                  static_cast<long long>(l.epoch_unix_ms), static_cast<long long>(r.registry_epoch_ms));
    pg_atomic_fetch_add_u64(&status()->failures, 1);
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

// How far the worker fills the block server this time: below `low`
// remaining ids it reserves, up to `batch_limit` blocks a commit.
struct Target {
    int64_t size = 0;
    int64_t low = 0;
    int64_t batch_limit = 0;
};

Target fill_target(BlockShared *s, const ids::Layout &l) {
    ids::ReservationSettings settings = usable_settings(l);
    Target t;
    uint64_t waits = pg_atomic_read_u64(&s->sync_waits);
    if (waits != waits_seen) {
        if (extra_blocks == max_extra_blocks)
            block_growth = std::min(block_growth * 2, ids::max_block_growth);
        extra_blocks = std::min(extra_blocks + 4, max_extra_blocks);
    }
    waits_seen = waits;
    t.size = ids::grown_block_size(l, settings.block_size, block_growth);
    t.low = settings.threshold + extra_blocks * t.size;
    pg_atomic_write_u64(&s->wake_below, uint64(t.low));
    t.batch_limit = std::min<int64_t>(max_blocks_per_commit, ids::sequence_space(l) / t.size);
    return t;
}

// The round's second and size of reservation (r.ts, r.count); false with
// `error` when the clock or the layout refuses.
bool plan_round(Round &r, BlockShared *s, const ids::Layout &l, const Target &t, int64_t &wanted, int64_t &now_ts,
                pg::CaughtError &error) {
    if (!pg::attempt(
            [&] {
                wanted = wanted_ts(l);
                now_ts = ids::ts_of_unix_ms(l, core::wall_clock_ns() / core::ns_per_ms);
            },
            error))
        return false;
    // The last view of the registry picks the second past what it refuses;
    // only a fresh answer makes the worker wait, since the registry's clock
    // may have been stepped since.
    r.ts = std::max(wanted, guard.earliest_ts());
    if (known.viewed)
        r.ts = ids::plan_second(known.view, wanted, guard.earliest_ts()).ts;
    r.size = t.size;
    if (!pg::attempt([&] { ids::check_allocation(l, r.ts, t.size); }, error))
        return false;
    // As many blocks as reach the target, as the ring can take, in one commit.
    int64_t missing = t.low - int64_t(s->server.remaining());
    int64_t count = missing > t.size ? (missing + t.size - 1) / t.size : 1;
    r.count = int(std::min<int64_t>({count, t.batch_limit, int64_t(s->server.room())}));
    return true;
}

// Counts a committed round and reports what it found gone backwards.
void account(const Round &r, int64_t us) {
    WorkerStatus *worker = status();
    pg_atomic_fetch_add_u64(&worker->us_total, uint64(us));
    if (uint64(us) > pg_atomic_read_u64(&worker->us_max))
        pg_atomic_write_u64(&worker->us_max, uint64(us));
    pg_atomic_fetch_add_u64(&worker->commits, 1);
    if (r.row_missing) {
        char what[256];
        std::snprintf(what, sizeof what, "the row of second %lld, where this server reserved sequences up to %lld, %s",
                      static_cast<long long>(r.row_ts), static_cast<long long>(r.row_end),
                      r.row_sequence < 0 ? "is gone" : "fell back");
        report_regression(what, r.row_ts, r.ts);
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
}

// Publishes the accepted blocks of a committed round. The ring had room for
// r.count blocks, so publish() succeeds; a block it refused anyway would be
// a gap, never reused. False with `error` when the layout refuses a block.
bool publish_accepted(const Round &r, BlockShared *s, const ids::Layout &l, pg::CaughtError &error) {
    bool published_any = false;
    for (int i = 0; i < r.got; ++i) {
        if (!r.accepted[i])
            continue;
        bool published = false;
        if (!pg::attempt(
                [&] {
                    ids::Block b = ids::block_of_allocation(l, r.ts, r.size, r.starts[i] + r.size);
                    published = s->server.publish(b.first_id, b.size);
                },
                error))
            return false;
        if (!published)
            break;
        published_any = true;
        pg_atomic_fetch_add_u64(&s->blocks_reserved, 1);
        pg_atomic_fetch_add_u64(&s->ids_reserved, uint64(r.size));
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

} // namespace

bool refill(int64_t &hold_ms) {
    hold_ms = 0;
    BlockShared *s = crid_ids::shared();
    const ids::Layout &l = layout();
    if (marks::registry_mark_refusal() != Refusal::none) {
        report(WorkerState::failing, ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
               "the registry mark crid_registry_mark is damaged; waiting for crid_reset_high_water()");
        return false;
    }
    if (!sync_guard(l))
        return false;
    pg::CaughtError error;
    int refused_rounds = 0;
    for (;;) {
        // Planned again each round: backends that waited meanwhile make the
        // next round reserve more, while this refill is still going.
        Target target = fill_target(s, l);
        if (!s->server.needs_block(target.low))
            break;
        Round r;
        int64_t wanted = 0, now_ts = 0;
        if (!plan_round(r, s, l, target, wanted, now_ts, error))
            return fail(error);
        if (r.count <= 0)
            break;
        int64_t t0 = core::monotonic_ns();
        Outcome outcome = reserve(r, l, now_ts);
        int64_t us = (core::monotonic_ns() - t0) / core::ns_per_us;
        if (outcome != Outcome::committed)
            return false;
        learn(r);
        if (r.registry_epoch_ms != l.epoch_unix_ms)
            return epoch_differs(r, l);
        guard = r.after;
        account(r, us);
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
        if (r.second_full)
            guard.second_full(r.ts);
        if (!publish_accepted(r, s, l, error))
            return fail(error);
    }
    return true;
}

} // namespace crid::pg::worker
