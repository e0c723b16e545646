#include "worker/lease_rounds.hpp"

#include "registry/registry_settings.hpp"
#include "marks/high_water.hpp"
#include "snowflake/node_fence.hpp"
#include "snowflake/node_words.hpp"
#include "common/clock_policy.hpp"
#include "worker/registry_link.hpp"
#include "snowflake/snowflake_settings.hpp"

#include "core/clock.hpp"
#include "core/snowflake_lease.hpp"
#include "core/time_units.hpp"

extern "C" {
#include "access/xlog.h"
#include "postmaster/postmaster.h"
}

#include <algorithm>
#include <initializer_list>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <unistd.h>

namespace crid::pg::worker {

using registry::RowSink;
using registry::run_catching;
using registry::set_failure;
using snowflake::held;
using snowflake::max_nodes;
using snowflake::no_node;
using snowflake::NodeFence;

namespace {

// What the lease rounds keep from one round to the next, in the worker.
struct LeaseState {
    int64_t next_due_ns = 0;                           // the next round is due then (monotonic)
    int64_t failures = 0;                              // rounds failed in a row, for the pause before the next
    char logged_failure[sizeof Failure::message] = ""; // the last failure logged, so a repeated one is said once
    // The generation this worker claims its rows with (fencing, sql/registry/
    // crid_node_leases_fencing.sql): this server's monotonic clock when the
    // worker started or last sent a take, so it only grows across the
    // worker processes of a postmaster and their attempts; 0 before the
    // first round.
    int64_t generation = 0;
} leases;

core::lease::Timing timing() { return core::lease::Timing{registry::lease_ttl_ms()}; }

// Parameters of the lease statements, each statement taking those it uses
// (PostgreSQL refuses a parameter a statement does not use, its type
// unknown): the wanted node ranges (first[], last[]), this server for
// people, its token, the bound written into held rows, the TTL in ms, the
// takeover delay in ms, the kind and the generation; in this order they are
// $1 to $9 of the statements that take them all.
constexpr size_t ranges_text = core::lease::Ranges::max_ranges * 7 + 3;
struct Params {
    char first[ranges_text], last[ranges_text];
    char holder[256], token[24], bound[24], ttl[24], delay[24], kind[8], generation[24];
    const char *values[9];
    void fill(const core::lease::Ranges &r, const NodeFence *s, int64_t bound_ms, const core::lease::Timing &t,
              bool lease_mode) {
        size_t a = 0, b = 0;
        a += std::snprintf(first + a, sizeof first - a, "{");
        b += std::snprintf(last + b, sizeof last - b, "{");
        for (int i = 0; i < r.count; ++i) {
            a += std::snprintf(first + a, sizeof first - a, "%s%d", i ? "," : "", r.first[i]);
            b += std::snprintf(last + b, sizeof last - b, "%s%d", i ? "," : "", r.last[i]);
        }
        std::snprintf(first + a, sizeof first - a, "}");
        std::snprintf(last + b, sizeof last - b, "}");
        std::snprintf(holder, sizeof holder, "%s", s->holder);
        std::snprintf(token, sizeof token, "%s", s->token);
        std::snprintf(bound, sizeof bound, "%lld", static_cast<long long>(bound_ms));
        std::snprintf(ttl, sizeof ttl, "%lld", static_cast<long long>(t.ttl_ms));
        std::snprintf(delay, sizeof delay, "%lld", static_cast<long long>(t.takeover_delay_ms()));
        std::snprintf(kind, sizeof kind, "%s", lease_mode ? "lease" : "static");
        std::snprintf(generation, sizeof generation, "%lld", static_cast<long long>(leases.generation));
        const char *all[9] = {first, last, holder, token, bound, ttl, delay, kind, generation};
        std::memcpy(values, all, sizeof values);
    }
    // `st` runs `sql` with the parameters of indexes `which` as $1, $2, ...
    void use(Statement &st, const char *sql, std::initializer_list<int> which, RowSink sink, void *context) const {
        st.set(sql, {}, sink, context);
        st.nparams = 0;
        for (int i : which)
            st.params[st.nparams++] = values[i];
    }
};

// SQL of the lease statements, for the lease table `%1$s`. A row is this
// server's only when it carries this server's token ($4): a clone or a
// restarted server with the same host, port and data directory is another
// holder. Every statement reaches rows through an index (the primary key on
// node, or the token): none reads the whole table, whatever the number of
// nodes and of leases held.
// clang-format off
#define IN_RANGES(col)                                                                                 \
    "EXISTS (SELECT FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.int4[]),"                        \
    " pg_catalog.unnest($2::pg_catalog.int4[])) r(lo, hi)"                                             \
    " WHERE " col " OPERATOR(pg_catalog.>=) r.lo AND " col " OPERATOR(pg_catalog.<=) r.hi)"
#define LEASE_UNTIL                                                                                    \
    "pg_catalog.now() OPERATOR(pg_catalog.+)"                                                          \
    " ($6::pg_catalog.float8 OPERATOR(pg_catalog.*) '1 millisecond'::pg_catalog.interval)"
#define UNTIL_MS(col)                                                                                  \
    "(pg_catalog.date_part('epoch', " col ") OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8"
#define WANTED                                                                                         \
    "SELECT g.n FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.int4[]),"                            \
    " pg_catalog.unnest($2::pg_catalog.int4[])) r(lo, hi), pg_catalog.generate_series(r.lo, r.hi) g(n)"

// Static nodes, step 1: lock the wanted rows of other holders and show them
// (so step 2 sees them unchanged and the refusal can name their holders);
// $3 this server's token.
constexpr const char *lock_sql =
    "SELECT l.node, l.holder, " UNTIL_MS("l.lease_until") ","
    " l.lease_until OPERATOR(pg_catalog.>=) pg_catalog.now() AS live"
    " FROM %1$s l JOIN (" WANTED ") w ON l.node OPERATOR(pg_catalog.=) w.n"
    " WHERE l.token OPERATOR(pg_catalog.<>) $3 ORDER BY l.node FOR UPDATE OF l";

// Static nodes, step 2: take every wanted node that has no row, is this
// server's or lapsed. Each row returned is a node taken, and the bound its
// previous holder wrote (NULL when it was this server, or nobody), which the
// new holder starts above. The rows were locked in step 1, so `prev` reads
// them as they are. mint_from is proposed a takeover delay ($7) away; the
// registry's trigger crid_node_lease_guard lowers it where no earlier holder
// can be minting. A row that was this server's keeps its mint_from.
constexpr const char *take_sql =
    "WITH wanted AS (" WANTED "),"
    " prev AS (SELECT l.node, l.token, l.high_water_ms FROM %1$s l"
    "  JOIN wanted w ON w.n OPERATOR(pg_catalog.=) l.node),"
    " took AS (INSERT INTO %1$s AS l (node, holder, token, kind, lease_until, high_water_ms, renewed_at, mint_from)"
    "  SELECT w.n, $3, $4, $8, " LEASE_UNTIL ", $5::pg_catalog.int8, pg_catalog.now(),"
    "  pg_catalog.now() OPERATOR(pg_catalog.+)"
    "  ($7::pg_catalog.float8 OPERATOR(pg_catalog.*) '1 millisecond'::pg_catalog.interval) FROM wanted w"
    "  ON CONFLICT (node) DO UPDATE SET holder = EXCLUDED.holder, token = EXCLUDED.token, kind = EXCLUDED.kind,"
    "  lease_until = EXCLUDED.lease_until, renewed_at = EXCLUDED.renewed_at, released_at = NULL,"
    "  high_water_ms = GREATEST(l.high_water_ms, EXCLUDED.high_water_ms),"
    "  mint_from = CASE WHEN l.token OPERATOR(pg_catalog.=) $4 THEN l.mint_from ELSE EXCLUDED.mint_from END"
    "  WHERE l.lease_until OPERATOR(pg_catalog.<) pg_catalog.now() OR l.token OPERATOR(pg_catalog.=) $4"
    "  RETURNING l.node)"
    " SELECT t.node,"
    " CASE WHEN p.node IS NULL OR p.token OPERATOR(pg_catalog.=) $4 THEN NULL ELSE p.high_water_ms END"
    " FROM took t LEFT JOIN prev p ON p.node OPERATOR(pg_catalog.=) t.node";

// Lease mode without a node: the registry's crid_node_lease_take (`%1$s`)
// takes one, in O(1) (sql/functions/crid_node_lease_take.sql says how, and
// why two servers never take one node): the node and the bound to start
// above, or no node, with how many were probed and found held.
constexpr const char *take_one_sql =
    "SELECT t.node, t.raise_to, t.probed, t.live FROM %1$s($1::pg_catalog.int4[], $2::pg_catalog.int4[],"
    " $3::pg_catalog.text, $4::pg_catalog.text, $5::pg_catalog.int8, $6::pg_catalog.int8, $7::pg_catalog.int8) t";

// Every round: renew what this server holds of the wanted nodes (found by
// its token), writing its bound, which only rises; the rows returned are
// what it holds until lease_until, how long it must still wait before
// minting on each (its mint_from), and the bound its previous holder wrote
// (taken_above_ms). The renewal claims each row for this worker's generation
// ($7): only a row no later generation claimed, nor this one released, is
// renewed, so a renewal that arrives late, or twice, changes nothing a later
// worker (or attempt) did.
constexpr const char *renew_sql =
    "UPDATE %1$s l SET lease_until = " LEASE_UNTIL ", renewed_at = pg_catalog.now(), holder = $3,"
    " high_water_ms = GREATEST(l.high_water_ms, $5::pg_catalog.int8), released_at = NULL, generation = $7::pg_catalog.int8"
    " WHERE l.token OPERATOR(pg_catalog.=) $4 AND " IN_RANGES("l.node")
    " AND (l.generation IS NULL OR l.generation OPERATOR(pg_catalog.<) $7::pg_catalog.int8"
    "  OR (l.generation OPERATOR(pg_catalog.=) $7::pg_catalog.int8 AND l.released_at IS NULL))"
    " RETURNING l.node, " UNTIL_MS("l.lease_until") ","
    " GREATEST(pg_catalog.ceil(pg_catalog.date_part('epoch', l.mint_from OPERATOR(pg_catalog.-) pg_catalog.now())"
    "  OPERATOR(pg_catalog.*) 1000), 0)::pg_catalog.int8, l.taken_above_ms";

// At a planned exit: every row of this server lapses now, marked released,
// its bound lowered to what this server really minted ($2; $1 is its
// token), so the next holder (this server started again, say) takes the
// node and mints on it at once, without a jump ahead. Only rows this worker
// (generation $3) or an earlier one claimed last, and not released yet: a
// release that arrives late, after a later worker of this server claimed
// the row again, or twice, changes nothing.
constexpr const char *release_sql =
    "UPDATE %1$s l SET lease_until = pg_catalog.now(), high_water_ms = $2::pg_catalog.int8,"
    " released_at = pg_catalog.now() WHERE l.token OPERATOR(pg_catalog.=) $1"
    " AND l.generation OPERATOR(pg_catalog.<=) $3::pg_catalog.int8 AND l.released_at IS NULL";

// clang-format on

// Rows of the statements, as plain bytes.
struct Taken {
    int count = 0;
    int32 node[64];
    int64 raise_to[64]; // -1: nothing to raise
};
void taken_sink(void *context, int columns, const char *const *v) noexcept {
    auto *t = static_cast<Taken *>(context);
    if (columns < 2 || !v[0] || t->count >= 64)
        return;
    t->node[t->count] = int32(std::strtol(v[0], nullptr, 10));
    t->raise_to[t->count] = v[1] ? std::strtoll(v[1], nullptr, 10) : -1;
    ++t->count;
}

struct Locked {
    int live_others = 0;
    char refused[512] = "";
};
void locked_sink(void *context, int columns, const char *const *v) noexcept {
    auto *l = static_cast<Locked *>(context);
    if (columns < 4 || !v[0] || !v[3] || v[3][0] != 't')
        return;
    if (l->live_others++ == 0) {
        pg_time_t t = pg_time_t(std::strtoll(v[2] ? v[2] : "0", nullptr, 10) / 1000);
        char until[64];
        pg_strftime(until, sizeof until, "%Y-%m-%d %H:%M:%S UTC", pg_gmtime(&t));
        std::snprintf(l->refused, sizeof l->refused,
                      "Node %s is held by another live server, %s, whose lease runs until %s.", v[0], v[1] ? v[1] : "?",
                      until);
    }
}

// What crid_node_lease_take said when it took no node: how many nodes it
// probed, and how many of those other live servers hold.
struct Probed {
    int64 probed = 0;
    int64 live = 0;
};
struct TakenOne {
    Taken taken;
    Probed probe;
};
void take_one_sink(void *context, int columns, const char *const *v) noexcept {
    auto *t = static_cast<TakenOne *>(context);
    if (columns < 4)
        return;
    t->probe.probed = v[2] ? std::strtoll(v[2], nullptr, 10) : 0;
    t->probe.live = v[3] ? std::strtoll(v[3], nullptr, 10) : 0;
    taken_sink(&t->taken, 2, v);
}

struct Renewed {
    int count = 0;
    int64 lease_until_ms = 0;
    uint32 bits[max_nodes / 32] = {};    // renewed
    uint32 waiting[max_nodes / 32] = {}; // ... but not to be minted on yet
    int64 wait_ms = INT64_MAX;           // the least wait of those
    int32 waiting_node = -1;             // ... and its node
    // The bounds of the previous holders (taken_above_ms): 64 exactly, the
    // rest folded into the greatest of them.
    int raises = 0;
    int32 raise_node[64];
    int64 raise_above[64];
    int64 overflow_above = -1;
    uint32 overflow[max_nodes / 32] = {};
};
void renewed_sink(void *context, int columns, const char *const *v) noexcept {
    auto *r = static_cast<Renewed *>(context);
    if (columns < 3 || !v[0])
        return;
    long node = std::strtol(v[0], nullptr, 10);
    if (node < 0 || node >= max_nodes)
        return;
    r->bits[node >> 5] |= 1u << (node & 31);
    ++r->count;
    if (columns >= 4 && v[3]) {
        int64 above = std::strtoll(v[3], nullptr, 10);
        if (r->raises < 64) {
            r->raise_node[r->raises] = int32(node);
            r->raise_above[r->raises++] = above;
        } else {
            r->overflow[node >> 5] |= 1u << (node & 31);
            r->overflow_above = std::max(r->overflow_above, above);
        }
    }
    if (v[1])
        r->lease_until_ms = std::strtoll(v[1], nullptr, 10);
    int64 wait = v[2] ? std::strtoll(v[2], nullptr, 10) : 0;
    if (wait > 0) {
        r->waiting[node >> 5] |= 1u << (node & 31);
        if (wait < r->wait_ms) {
            r->wait_ms = wait;
            r->waiting_node = int32(node);
        }
    }
}

void set_text(char *field, size_t size, const char *text) {
    NodeFence *s = snowflake::fence();
    SpinLockAcquire(&s->lock);
    std::snprintf(field, size, "%s", text);
    SpinLockRelease(&s->lock);
}

// This server as lease rows name it for people, once per worker process.
void name_holder() {
    NodeFence *s = snowflake::fence();
    if (s->holder[0])
        return;
    char host[128] = "localhost";
    if (gethostname(host, sizeof host - 1) != 0)
        std::snprintf(host, sizeof host, "localhost");
    char text[sizeof s->holder];
    std::snprintf(text, sizeof text, "%s:%d %s (system %llu)", host, PostPortNumber, DataDir,
                  static_cast<unsigned long long>(GetSystemIdentifier()));
    set_text(s->holder, sizeof s->holder, text);
}

bool fail(const Failure &failure) {
    NodeFence *s = snowflake::fence();
    pg_atomic_fetch_add_u64(&s->failures, 1);
    ++leases.failures;
    leases.next_due_ns = core::monotonic_ns() + timing().retry_ms(leases.failures) * core::ns_per_ms;
    set_text(s->failure, sizeof s->failure, failure.message);
    // A registry that cannot be reached is the worker's state, whichever
    // round found it out.
    if (failure.lost)
        report_stop(Stop{WorkerState::failing, failure});
    if (std::strncmp(leases.logged_failure, failure.message, sizeof leases.logged_failure - 1) != 0) {
        std::snprintf(leases.logged_failure, sizeof leases.logged_failure, "%s", failure.message);
        ereport(LOG, (errmsg("crid: could not take or renew snowflake node leases: %s", failure.message),
                      errdetail("Minting on leased nodes stops once %lld ms have passed since the last renewal; "
                                "the worker retries.",
                                static_cast<long long>(timing().window_ms()))));
    }
    return false;
}

// Raises a taken node's generator word above `to_ms`; false (the node is
// not used) when the mark cannot be written.
bool raise(int32 node, int64 to_ms, Failure &failure) {
    if (to_ms < 0)
        return true;
    struct Raise {
        int32 node;
        int64 to_ms;
    } r{node, to_ms};
    return run_catching(
        [](void *p) { snowflake::raise_node_above(static_cast<Raise *>(p)->node, static_cast<Raise *>(p)->to_ms); }, &r,
        failure);
}

// Clears held nodes that are not in `keep` (those the round renewed, or
// every node), counting and logging the ones lost to another server.
void drop_held_except(const uint32 *keep, bool lost) {
    NodeFence *s = snowflake::fence();
    for (int w = 0; w < max_nodes / 32; ++w) {
        uint32 held_bits = pg_atomic_read_u32(&s->held[w]);
        uint32 gone = held_bits & ~(keep ? keep[w] : 0u);
        if (!gone)
            continue;
        pg_atomic_write_u32(&s->held[w], held_bits & ~gone);
        for (int b = 0; b < 32; ++b)
            if (lost && (gone >> b) & 1) {
                pg_atomic_fetch_add_u64(&s->losses, 1);
                ereport(WARNING, (errmsg("crid: snowflake node %d is no longer held by this server", w * 32 + b),
                                  errdetail("Its lease row in crid_node_leases is gone or belongs to another server."),
                                  errhint("This server mints no more ids for that node.")));
            }
    }
    uint32 leased = pg_atomic_read_u32(&s->leased_node);
    if (leased != no_node && !held(s, leased))
        pg_atomic_write_u32(&s->leased_node, no_node);
}

// One lease round: what is wanted, and what the round found and did.
struct Round {
    bool lease_mode = false;
    core::lease::Timing t;
    core::lease::Ranges want;
    uint32 wanted_bits[max_nodes / 32] = {};
    bool all_held = true;
    bool hold_one = false; // lease mode, a node already held
    bool claim = false;    // the round claims the rows with a new generation
    int64_t t0 = 0;        // monotonic time the round was sent
    int64_t wall_ms = 0;   // wall clock then
    int64_t bound = 0;     // the bound written into held rows
    Params p;
    Probed probe;
    Taken taken;
    Locked locked;
    Renewed renewed;
};

// What is wanted this round; false when nothing is (nodes no longer wanted
// after a reload are not minted for from now, and left to lapse).
bool plan(Round &r) {
    NodeFence *s = snowflake::fence();
    r.lease_mode = snowflake::node_id_is_lease();
    r.t = timing();
    const core::snowflake::Layout &layout = snowflake::server_layout();
    r.want = core::lease::wanted(r.lease_mode, snowflake::static_node_id(), snowflake::allowed_node_set(),
                                 core::snowflake::max_node(layout), snowflake::backfill_node());
    for (int i = 0; i < r.want.count; ++i)
        for (int64_t n = r.want.first[i]; n <= r.want.last[i]; ++n) {
            r.wanted_bits[n >> 5] |= 1u << (n & 31);
            r.all_held &= held(s, n);
        }
    drop_held_except(r.wanted_bits, false);
    r.hold_one = r.lease_mode && pg_atomic_read_u32(&s->leased_node) != no_node;
    if (r.want.count == 0)
        return false;
    r.t0 = core::monotonic_ns();
    // A new generation at the worker's first round and at every round that
    // takes: the renewal then claims every row anew, and returns the bound
    // of each row's previous holder, which the worker raises its nodes above
    // (a take whose answer was lost told it nothing).
    r.claim = leases.generation == 0 || (r.lease_mode ? !r.hold_one : !r.all_held);
    if (r.claim)
        leases.generation = std::max(r.t0, leases.generation + 1);
    r.wall_ms = core::wall_clock_ns() / core::ns_per_ms;
    r.bound = core::lease::bound_ms(r.t, r.wall_ms, marks::high_water_ms(), clock_policy().borrow_ms);
    return true;
}

// The statements of the round, committed together, in one round trip: the
// take (lease mode without a node: crid_node_lease_take; static nodes not all
// held: the lock, then the take), then the renewal.
bool statements(Round &r, const Location &where, Failure &failure) {
    char lock[2048], take[4096], renew[2048];
    Statement st[3];
    int n = 0;
    TakenOne one;
    if (r.lease_mode && !r.hold_one) {
        std::snprintf(take, sizeof take, take_one_sql, where.take);
        r.p.use(st[n++], take, {0, 1, 2, 3, 4, 5, 6}, take_one_sink, &one);
    } else if (!r.lease_mode && !r.all_held) {
        std::snprintf(lock, sizeof lock, lock_sql, where.leases);
        r.p.use(st[n++], lock, {0, 1, 3}, locked_sink, &r.locked);
        std::snprintf(take, sizeof take, take_sql, where.leases);
        r.p.use(st[n++], take, {0, 1, 2, 3, 4, 5, 6, 7}, taken_sink, &r.taken);
    }
    std::snprintf(renew, sizeof renew, renew_sql, where.leases);
    r.p.use(st[n++], renew, {0, 1, 2, 3, 4, 5, 8}, renewed_sink, &r.renewed);
    if (!run(st, n, true, failure))
        return false;
    if (r.lease_mode && !r.hold_one) {
        r.taken = one.taken;
        r.probe = one.probe;
    }
    return true;
}

// Nodes taken over start above the bound their previous holder wrote: the
// one the take returned, and the one the renewal of a new generation
// returned (taken_above_ms), which a take whose answer was lost did not.
void raise_taken(Round &r) {
    Failure failure;
    auto drop = [&r](int32 node) { r.renewed.bits[node >> 5] &= ~(1u << (node & 31)); };
    for (int i = 0; i < r.taken.count; ++i)
        if (!raise(r.taken.node[i], r.taken.raise_to[i], failure)) {
            drop(r.taken.node[i]);
            fail(failure);
        }
    if (!r.claim)
        return;
    for (int i = 0; i < r.renewed.raises; ++i)
        if (!raise(r.renewed.raise_node[i], r.renewed.raise_above[i], failure)) {
            drop(r.renewed.raise_node[i]);
            fail(failure);
        }
    if (r.renewed.overflow_above < 0)
        return;
    for (int w = 0; w < max_nodes / 32; ++w)
        for (uint32 bits = r.renewed.overflow[w]; bits; bits &= bits - 1) {
            int32 node = w * 32 + __builtin_ctz(bits);
            if (!raise(node, r.renewed.overflow_above, failure)) {
                drop(node);
                fail(failure);
            }
        }
}

// Publishes what the round holds: the renewal's window, then the nodes
// renewed and not in a takeover delay (`usable`). Nodes not renewed are
// dropped first, and counted as lost.
void publish_held(const Round &r, const uint32 *usable) {
    NodeFence *s = snowflake::fence();
    // Lost nodes leave the fence before the window moves on: a backend that
    // reads the new window must no longer see a node the round lost (when
    // renewals failed past the old window, another server may mint on it).
    drop_held_except(r.renewed.bits, true);
    pg_write_barrier();
    if (r.renewed.count > 0) {
        pg_atomic_write_u64(&s->valid_until_ns, uint64(r.t0 + r.t.window_ms() * core::ns_per_ms));
        pg_atomic_write_u64(&s->renewed_at_ns, uint64(r.t0));
        pg_atomic_fetch_add_u64(&s->renewals, 1);
    }
    // New nodes join only under the window that covers them.
    pg_write_barrier();
    for (int w = 0; w < max_nodes / 32; ++w)
        if (usable[w])
            pg_atomic_fetch_or_u32(&s->held[w], usable[w]);
}

// Counts and logs the nodes the round took.
void log_taken(const Round &r) {
    NodeFence *s = snowflake::fence();
    for (int i = 0; i < r.taken.count; ++i) {
        pg_atomic_fetch_add_u64(&s->acquisitions, 1);
        int32 node = r.taken.node[i];
        if (!((r.renewed.bits[node >> 5] >> (node & 31)) & 1))
            continue;
        ereport(LOG,
                (errmsg("crid: snowflake node %d is %s by this server", node, r.lease_mode ? "leased" : "registered"),
                 (r.renewed.waiting[node >> 5] >> (node & 31)) & 1
                     ? errdetail("Its earlier holder cannot be shown to have stopped, so this server mints "
                                 "on it once any lease of that holder could have lapsed.")
                 : r.taken.raise_to[i] >= 0
                     ? errdetail("Its ids start above %lld ms, the bound its previous holder wrote.",
                                 static_cast<long long>(r.taken.raise_to[i]))
                     : 0));
    }
}

// Lease mode: the node minted on now (the first usable one), or a failure
// saying how things stand when the round holds none and waits for none.
bool settle_leased_node(const Round &r, const uint32 *usable, Failure &failure) {
    uint32 node = no_node;
    bool any_renewed = false;
    for (int w = 0; w < max_nodes / 32 && node == no_node; ++w) {
        any_renewed |= r.renewed.bits[w] != 0;
        if (usable[w])
            node = uint32(w * 32 + __builtin_ctz(usable[w]));
    }
    pg_atomic_write_u32(&snowflake::fence()->leased_node, node);
    if (node != no_node || any_renewed || r.renewed.waiting_node >= 0)
        return true;
    // Every node held, a race lost, or no free node among the probes.
    long long nodes = static_cast<long long>(r.want.size());
    if (r.probe.live >= nodes)
        set_failure(failure, 0, "every one of the %lld nodes of crid.snowflake_nodes is leased by another live server",
                    nodes);
    else if (r.probe.probed >= nodes)
        set_failure(failure, 0,
                    "another server took the node this one tried to lease at the same moment (%lld of the %lld "
                    "nodes of crid.snowflake_nodes are leased by other live servers); trying again",
                    static_cast<long long>(r.probe.live), nodes);
    else
        set_failure(failure, 0,
                    "none of the %lld nodes of crid.snowflake_nodes probed at random (of %lld) was free: %lld are "
                    "leased by other live servers, the others were taken at the same moment; trying again",
                    static_cast<long long>(r.probe.probed), nodes, static_cast<long long>(r.probe.live));
    return false;
}

// After the commit: publish what is safely held now, and until when.
bool apply(Round &r) {
    NodeFence *s = snowflake::fence();
    raise_taken(r);
    // A node renewed but still in its takeover delay is held in the registry
    // and not minted on yet.
    int64_t now = core::monotonic_ns();
    int64_t soonest_ns = r.renewed.waiting_node >= 0 ? r.t0 + r.renewed.wait_ms * core::ns_per_ms : INT64_MAX;
    uint32 usable[max_nodes / 32];
    for (int w = 0; w < max_nodes / 32; ++w)
        usable[w] = r.renewed.bits[w] & ~r.renewed.waiting[w];
    publish_held(r, usable);
    log_taken(r);
    char waiting[sizeof s->waiting] = "";
    if (r.renewed.waiting_node >= 0)
        std::snprintf(waiting, sizeof waiting,
                      "Node %d is this server's in the registry, but an earlier holder of it may still mint until "
                      "its lease lapses: minting on it starts in %lld ms.",
                      r.renewed.waiting_node, static_cast<long long>((soonest_ns - now) / core::ns_per_ms));
    set_text(s->waiting, sizeof s->waiting, waiting);
    Failure failure;
    if (r.lease_mode && !settle_leased_node(r, usable, failure))
        return fail(failure);
    SpinLockAcquire(&s->lock);
    s->lease_until_ms = r.renewed.lease_until_ms;
    s->failure[0] = '\0';
    if (!r.lease_mode && (r.locked.live_others > 0 || r.all_held))
        std::snprintf(s->refused, sizeof s->refused, "%s", r.locked.refused);
    SpinLockRelease(&s->lock);
    leases.failures = 0;
    leases.logged_failure[0] = '\0';
    // A static node another server holds is tried again at each renewal; a
    // node in its takeover delay is looked at again when the delay ends.
    leases.next_due_ns = std::min(r.t0 + r.t.renew_every_ms() * core::ns_per_ms, soonest_ns);
    return true;
}

// One lease round: plan, find the registry, the statements, apply.
bool round(Round &r) {
    Failure failure;
    if (!plan(r)) {
        leases.next_due_ns = core::monotonic_ns() + r.t.renew_every_ms() * core::ns_per_ms;
        return true;
    }
    Stop stop;
    const Location *where = located(stop);
    if (!where) {
        report_stop(stop);
        return fail(stop.why);
    }
    r.p.fill(r.want, snowflake::fence(), r.bound, r.t, r.lease_mode);
    if (!statements(r, *where, failure))
        return fail(failure);
    report_reached();
    return apply(r);
}

} // namespace

bool leases_active() { return registry::remote() || snowflake::node_id_is_lease(); }

int64_t leases_due_ns() { return leases_active() ? leases.next_due_ns : INT64_MAX; }

bool tick_leases() {
    NodeFence *s = snowflake::fence();
    if (!leases_active()) {
        if (pg_atomic_read_u32(&s->fenced)) {
            pg_atomic_write_u32(&s->fenced, 0);
            drop_held_except(nullptr, false);
        }
        return true;
    }
    pg_atomic_write_u32(&s->fenced, 1);
    SpinLockAcquire(&s->lock);
    s->ttl_ms = timing().ttl_ms; // for backends' messages, which must not read settings of the worker's
    SpinLockRelease(&s->lock);
    if (core::monotonic_ns() < leases.next_due_ns)
        return true;
    name_holder();
    // The round's bookkeeping holds bitmaps of every node: too big for the
    // worker's stack.
    Round *r = new (palloc0(sizeof(Round))) Round();
    bool ok = round(*r);
    pfree(r);
    return ok;
}

void release_leases() {
    NodeFence *s = snowflake::fence();
    if (!s || !leases_active() || !s->holder[0])
        return;
    // Fence first: from here no backend returns an id of a node it did not
    // claim before, and every claimed id is at most the bound read next.
    drop_held_except(nullptr, false);
    pg_atomic_write_u64(&s->valid_until_ns, 0);
    pg_memory_barrier();
    int64_t bound = marks::high_water_ms();
    for (int64_t node = 0; node < max_nodes; ++node) {
        int64_t last = snowflake::node_last_unix_ms(node);
        if (last > bound)
            bound = last;
    }
    Stop stop;
    const Location *where = located(stop);
    if (!where) {
        report_stop(stop);
        return;
    }
    Failure failure;
    char release[1024], bound_text[24], generation_text[24];
    std::snprintf(release, sizeof release, release_sql, where->leases);
    std::snprintf(bound_text, sizeof bound_text, "%lld", static_cast<long long>(bound + 1));
    std::snprintf(generation_text, sizeof generation_text, "%lld", static_cast<long long>(leases.generation));
    Statement st;
    st.set(release, {s->token, bound_text, generation_text});
    if (run(&st, 1, true, failure))
        ereport(LOG, (errmsg("crid: released %lld snowflake node lease%s at exit", static_cast<long long>(st.rows),
                             st.rows == 1 ? "" : "s")));
}

} // namespace crid::pg::worker
