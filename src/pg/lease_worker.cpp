#include "lease_worker.hpp"

#include "crid_shared.hpp"
#include "fleet_settings.hpp"
#include "high_water.hpp"
#include "lease_shared.hpp"
#include "registry_link.hpp"
#include "snowflake_settings.hpp"

#include "../core/clock.hpp"
#include "../core/lease.hpp"
#include "../core/time_units.hpp"

extern "C" {
#include "access/xlog.h"
#include "postmaster/postmaster.h"
}

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace crid::pg::lease {

namespace {

int64_t next_due_ns = 0;
int64_t failures = 0;
char logged_failure[sizeof registry::Failure::message] = ""; // the last failure logged, so a repeated one is said once

core::lease::Timing timing() { return core::lease::Timing{fleet::lease_ttl_ms()}; }

// Parameters of the lease statements, each statement taking the first n
// (PostgreSQL refuses a parameter a statement does not use, its type
// unknown): $1/$2 the wanted node ranges (first[], last[]), $3 this server,
// $4 its token, $5 the bound written into held rows, $6 the TTL in ms, $7
// the kind, $8 a picked node.
// Room for the text of an int4[] of NodeSet::max_ranges nodes.
constexpr size_t ranges_text = core::NodeSet::max_ranges * 7 + 3;
struct Params {
    char first[ranges_text], last[ranges_text];
    char holder[256], token[24], bound[24], ttl[24], kind[8];
    const char *values[7];
    void fill(const core::lease::Ranges &r, const LeaseShared *s, int64_t bound_ms, int64_t ttl_ms, bool lease_mode) {
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
        std::snprintf(ttl, sizeof ttl, "%lld", static_cast<long long>(ttl_ms));
        std::snprintf(kind, sizeof kind, "%s", lease_mode ? "lease" : "static");
        const char *all[7] = {first, last, holder, token, bound, ttl, kind};
        std::memcpy(values, all, sizeof values);
    }
};

// SQL of the lease statements, for the lease table `%1$s`.
#define IN_RANGES(col)                                                                                                 \
    "EXISTS (SELECT FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.int4[]), "                                        \
    "pg_catalog.unnest($2::pg_catalog.int4[])) r(lo, hi) WHERE " col " OPERATOR(pg_catalog.>=) r.lo AND " col          \
    " OPERATOR(pg_catalog.<=) r.hi)"
#define LEASE_UNTIL                                                                                                    \
    "pg_catalog.now() OPERATOR(pg_catalog.+) ($6::pg_catalog.float8 OPERATOR(pg_catalog.*) "                           \
    "'1 millisecond'::pg_catalog.interval)"
#define MINE(row) "(" row ".holder OPERATOR(pg_catalog.=) $3 OR " row ".token OPERATOR(pg_catalog.=) $4)"

// Static nodes, step 1: lock the wanted rows others hold and show them (so
// step 2 sees them unchanged and the refusal can name their holders).
constexpr const char *lock_sql =
    "SELECT l.node, l.holder, (pg_catalog.date_part('epoch', l.lease_until) OPERATOR(pg_catalog.*) "
    "1000)::pg_catalog.int8,"
    " l.lease_until OPERATOR(pg_catalog.>=) pg_catalog.now() AND NOT " MINE(
        "l") " AS live"
             " FROM %1$s l WHERE " IN_RANGES("l.node") " AND l.token OPERATOR(pg_catalog.<>) $4"
                                                       " ORDER BY l.node FOR UPDATE";

// Crid's lease mode, step 1: a row this server held or whose lease lapsed,
// locked (another server leasing at once takes another one).
constexpr const char *pick_sql = "SELECT l.node FROM %1$s l WHERE " IN_RANGES(
    "l.node") " AND (l.lease_until OPERATOR(pg_catalog.<) "
              "pg_catalog.now() OR " MINE(
                  "l") ") ORDER BY l.token OPERATOR(pg_catalog.=) $4 DESC,"
                       " l.holder OPERATOR(pg_catalog.=) $3 DESC, l.node LIMIT 1 FOR UPDATE SKIP LOCKED";

// Step 2: take nodes; each row returned is a node taken and the bound its
// previous holder wrote (NULL when it was this server, or nobody), which the
// new holder starts above. The rows were locked in step 1, so `prev` reads
// them as they are. `%2$s` picks the nodes taken.
constexpr const char *take_sql =
    "WITH wanted AS (%2$s),"
    " prev AS (SELECT l.node, l.holder, l.token, l.high_water_ms FROM %1$s l JOIN wanted w ON w.n "
    "OPERATOR(pg_catalog.=) l.node),"
    " took AS (INSERT INTO %1$s AS l (node, holder, token, kind, lease_until, high_water_ms, renewed_at)"
    "  SELECT w.n, $3, $4, $7, " LEASE_UNTIL ", $5::pg_catalog.int8, pg_catalog.now() FROM wanted w"
    "  ON CONFLICT (node) DO UPDATE SET holder = EXCLUDED.holder, token = EXCLUDED.token, kind = EXCLUDED.kind,"
    "  lease_until = EXCLUDED.lease_until, renewed_at = EXCLUDED.renewed_at,"
    "  high_water_ms = GREATEST(l.high_water_ms, EXCLUDED.high_water_ms)"
    "  WHERE l.lease_until OPERATOR(pg_catalog.<) pg_catalog.now() OR " MINE(
        "l") " RETURNING l.node)"
             " SELECT t.node, CASE WHEN p.node IS NULL OR " MINE(
                 "p") " THEN NULL ELSE p.high_water_ms END"
                      " FROM took t LEFT JOIN prev p ON p.node OPERATOR(pg_catalog.=) t.node";

// The nodes step 2 takes: every wanted node (static), the row picked in
// step 1 (lease, $8 is its node), or the first node nobody has a row for.
constexpr const char *all_wanted = "SELECT g.n FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.int4[]), "
                                   "pg_catalog.unnest($2::pg_catalog.int4[])) r(lo, hi),"
                                   " pg_catalog.generate_series(r.lo, r.hi) g(n)";
constexpr const char *picked = "SELECT $8::pg_catalog.int4 AS n WHERE " IN_RANGES("$8::pg_catalog.int4");
constexpr const char *first_free =
    "SELECT g.n FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.int4[]), pg_catalog.unnest($2::pg_catalog.int4[])) "
    "r(lo, hi),"
    " pg_catalog.generate_series(r.lo, r.hi) g(n) WHERE NOT EXISTS (SELECT FROM %1$s x WHERE x.node "
    "OPERATOR(pg_catalog.=) g.n) ORDER BY g.n LIMIT 1";

// Every round: renew what this server holds of the wanted nodes, writing its
// bound; the rows returned are what it holds until lease_until.
constexpr const char *renew_sql =
    "UPDATE %1$s l SET lease_until = " LEASE_UNTIL ", renewed_at = pg_catalog.now(),"
    " high_water_ms = GREATEST(l.high_water_ms, $5::pg_catalog.int8)"
    " WHERE l.token OPERATOR(pg_catalog.=) $4 AND l.holder OPERATOR(pg_catalog.=) $3 AND " IN_RANGES(
        "l.node") " RETURNING l.node, (pg_catalog.date_part('epoch', l.lease_until) "
                  "OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8";

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

struct Picked {
    bool found = false;
    char node[16] = "";
};
void picked_sink(void *context, int columns, const char *const *v) noexcept {
    auto *p = static_cast<Picked *>(context);
    if (columns < 1 || !v[0])
        return;
    p->found = true;
    std::snprintf(p->node, sizeof p->node, "%s", v[0]);
}

struct Renewed {
    int count = 0;
    int64 lease_until_ms = 0;
    uint32 bits[max_nodes / 32] = {};
};
void renewed_sink(void *context, int columns, const char *const *v) noexcept {
    auto *r = static_cast<Renewed *>(context);
    if (columns < 2 || !v[0])
        return;
    long node = std::strtol(v[0], nullptr, 10);
    if (node < 0 || node >= max_nodes)
        return;
    r->bits[node >> 5] |= 1u << (node & 31);
    ++r->count;
    if (v[1])
        r->lease_until_ms = std::strtoll(v[1], nullptr, 10);
}

void set_text(char *field, size_t size, const char *text) {
    LeaseShared *s = shared();
    SpinLockAcquire(&s->lock);
    std::snprintf(field, size, "%s", text);
    SpinLockRelease(&s->lock);
}

// This server as lease rows name it, once per worker process.
void name_holder() {
    LeaseShared *s = shared();
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

bool fail(const registry::Failure &failure) {
    LeaseShared *s = shared();
    pg_atomic_fetch_add_u64(&s->failures, 1);
    ++failures;
    next_due_ns = core::monotonic_ns() + timing().retry_ms(failures) * core::ns_per_ms;
    set_text(s->failure, sizeof s->failure, failure.message);
    if (std::strncmp(logged_failure, failure.message, sizeof logged_failure - 1) != 0) {
        std::snprintf(logged_failure, sizeof logged_failure, "%s", failure.message);
        ereport(LOG, (errmsg("crid: could not take or renew snowflake node leases: %s", failure.message),
                      errdetail("Minting on leased nodes stops once %lld ms have passed since the last renewal; "
                                "the worker retries.",
                                static_cast<long long>(timing().window_ms()))));
    }
    return false;
}

// Raises a taken node's generator word above its previous holder's bound;
// false (the node is not used) when the mark cannot be written.
bool raise(int32 node, int64 to_ms, registry::Failure &failure) {
    if (to_ms < 0)
        return true;
    struct Raise {
        int32 node;
        int64 to_ms;
    } r{node, to_ms};
    return registry::run_catching(
        [](void *p) { high_water::raise_node_above(static_cast<Raise *>(p)->node, static_cast<Raise *>(p)->to_ms); },
        &r, failure);
}

// Clears held nodes that are not in `keep` (those the round renewed, or
// every node), counting and logging the ones lost to another server.
void drop_held_except(const uint32 *keep, bool lost) {
    LeaseShared *s = shared();
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
                                  errdetail("Its lease row in crid_node_leases belongs to another server now."),
                                  errhint("This server mints no more ids for that node.")));
            }
    }
    uint32 leased = pg_atomic_read_u32(&s->leased_node);
    if (leased != no_node && !held(s, leased))
        pg_atomic_write_u32(&s->leased_node, no_node);
}

} // namespace

bool active() { return fleet::remote() || snowflake::node_id_is_lease(); }

int64_t due_ns() { return active() ? next_due_ns : INT64_MAX; }

int64_t max_pause_ms() { return active() ? timing().ttl_ms / 6 : INT64_MAX; }

bool tick() {
    LeaseShared *s = shared();
    bool lease_mode = snowflake::node_id_is_lease();
    if (!active()) {
        if (pg_atomic_read_u32(&s->fenced)) {
            pg_atomic_write_u32(&s->fenced, 0);
            drop_held_except(nullptr, false);
        }
        return true;
    }
    pg_atomic_write_u32(&s->fenced, 1);
    int64_t now = core::monotonic_ns();
    if (now < next_due_ns)
        return true;
    name_holder();
    const core::lease::Timing t = timing();
    const core::snowflake::Layout &layout = snowflake::server_layout();
    core::lease::Ranges want = core::lease::wanted(lease_mode, snowflake::static_node_id(),
                                                   snowflake::allowed_node_set(), core::snowflake::max_node(layout));
    // Nodes no longer wanted (a reload): not minted for from now, and left
    // to lapse.
    uint32 wanted_bits[max_nodes / 32] = {};
    bool all_held = true;
    for (int i = 0; i < want.count; ++i)
        for (int64_t n = want.first[i]; n <= want.last[i]; ++n) {
            wanted_bits[n >> 5] |= 1u << (n & 31);
            all_held &= held(s, n);
        }
    drop_held_except(wanted_bits, false);
    bool hold_one = lease_mode && pg_atomic_read_u32(&s->leased_node) != no_node;
    if (want.count == 0) {
        next_due_ns = now + t.renew_every_ms() * core::ns_per_ms;
        return true;
    }
    registry::Failure failure;
    const registry::Location *where = registry::located(failure);
    if (!where)
        return fail(failure);

    int64_t t0 = core::monotonic_ns();
    int64_t wall_ms = core::wall_clock_ns() / core::ns_per_ms;
    int64_t mark_ms = high_water::current_mark_ms();
    Params p;
    p.fill(want, s, core::lease::bound_ms(t, wall_ms, mark_ms, snowflake::current_policy().borrow_ms), t.ttl_ms,
           lease_mode);
    char take_nodes[1024], take[4096], renew[2048], lock[2048], pick[1024];
    std::snprintf(renew, sizeof renew, renew_sql, where->leases);
    Taken taken;
    Locked locked;
    Renewed *renewed = static_cast<Renewed *>(palloc0(sizeof(Renewed)));
    registry::Statement st[3];
    int n = 0;
    char picked_node[16] = "";
    const char *take_params[registry::max_params] = {};
    std::memcpy(take_params, p.values, sizeof p.values);
    if (lease_mode && !hold_one) {
        // Two round trips: lock a lapsed (or our own) row, then take it or,
        // with none, the first node nobody has a row for.
        Picked found;
        std::snprintf(pick, sizeof pick, pick_sql, where->leases);
        registry::Statement first;
        first.sql = pick;
        first.nparams = 4;
        std::memcpy(first.params, p.values, 4 * sizeof(char *));
        first.sink = picked_sink;
        first.context = &found;
        if (!registry::run(&first, 1, false, failure)) {
            pfree(renewed);
            return fail(failure);
        }
        if (found.found) {
            std::snprintf(picked_node, sizeof picked_node, "%s", found.node);
            std::snprintf(take_nodes, sizeof take_nodes, "%s", picked);
        } else {
            std::snprintf(take_nodes, sizeof take_nodes, first_free, where->leases);
        }
        take_params[7] = picked_node;
    } else if (!lease_mode && !all_held) {
        std::snprintf(lock, sizeof lock, lock_sql, where->leases);
        registry::Statement &a = st[n++];
        a.sql = lock;
        a.nparams = 4;
        std::memcpy(a.params, p.values, 4 * sizeof(char *));
        a.sink = locked_sink;
        a.context = &locked;
        std::snprintf(take_nodes, sizeof take_nodes, "%s", all_wanted);
    } else {
        take_nodes[0] = '\0';
    }
    if (take_nodes[0]) {
        std::snprintf(take, sizeof take, take_sql, where->leases, take_nodes);
        registry::Statement &b = st[n++];
        b.sql = take;
        b.nparams = picked_node[0] ? 8 : 7;
        std::memcpy(b.params, take_params, size_t(b.nparams) * sizeof(char *));
        b.sink = taken_sink;
        b.context = &taken;
    }
    registry::Statement &c = st[n++];
    c.sql = renew;
    c.nparams = 6;
    std::memcpy(c.params, p.values, 6 * sizeof(char *));
    c.sink = renewed_sink;
    c.context = renewed;
    if (!registry::run(st, n, true, failure)) {
        pfree(renewed);
        return fail(failure);
    }
    // Committed: first raise what was taken over, then let backends mint.
    for (int i = 0; i < taken.count; ++i)
        if (!raise(taken.node[i], taken.raise_to[i], failure)) {
            renewed->bits[taken.node[i] >> 5] &= ~(1u << (taken.node[i] & 31));
            fail(failure);
        }
    if (renewed->count > 0) {
        pg_atomic_write_u64(&s->valid_until_ns, uint64(t0 + t.window_ms() * core::ns_per_ms));
        pg_atomic_write_u64(&s->renewed_at_ns, uint64(t0));
        pg_atomic_fetch_add_u64(&s->renewals, 1);
    }
    pg_write_barrier();
    drop_held_except(renewed->bits, true);
    for (int w = 0; w < max_nodes / 32; ++w)
        if (renewed->bits[w])
            pg_atomic_fetch_or_u32(&s->held[w], renewed->bits[w]);
    for (int i = 0; i < taken.count; ++i) {
        pg_atomic_fetch_add_u64(&s->acquisitions, 1);
        if (held(s, taken.node[i]))
            ereport(LOG, (errmsg("crid: snowflake node %d is %s by this server", taken.node[i],
                                 lease_mode ? "leased" : "registered"),
                          taken.raise_to[i] >= 0
                              ? errdetail("Its ids start above %lld ms, the bound its previous holder wrote.",
                                          static_cast<long long>(taken.raise_to[i]))
                              : 0));
    }
    if (lease_mode) {
        uint32 node = no_node;
        for (int w = 0; w < max_nodes / 32 && node == no_node; ++w)
            if (renewed->bits[w])
                node = uint32(w * 32 + __builtin_ctz(renewed->bits[w]));
        pg_atomic_write_u32(&s->leased_node, node);
        if (node == no_node) {
            registry::set_failure(failure, 0,
                                  "every node of crid.snowflake_nodes (%lld of them) is leased by a live server",
                                  static_cast<long long>(want.size()));
            pfree(renewed);
            return fail(failure);
        }
    }
    SpinLockAcquire(&s->lock);
    s->lease_until_ms = renewed->lease_until_ms;
    s->failure[0] = '\0';
    if (!lease_mode && (locked.live_others > 0 || all_held))
        std::snprintf(s->refused, sizeof s->refused, "%s", locked.refused);
    SpinLockRelease(&s->lock);
    pfree(renewed);
    failures = 0;
    logged_failure[0] = '\0';
    next_due_ns = t0 + t.renew_every_ms() * core::ns_per_ms;
    // A static node another server holds is tried again at each renewal.
    return true;
}

} // namespace crid::pg::lease
