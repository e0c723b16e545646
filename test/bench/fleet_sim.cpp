// A fleet of crid servers and Go services on one registry, simulated: N
// members, each on a libpq connection of its own (as a real member has one),
// all multiplexed in this one process with libpq's asynchronous API. A member
// mints ids at a chosen rate from blocks it reserves in the registry and, as
// a crid server, renews its snowflake node lease; what it sends is what the
// real ones send:
//
//   crid server (the block reserver, worker/block_refill.cpp): one round
//     trip in pipeline mode, BEGIN, crid_registry_check, the row of the
//     second it reserved in last (when it moves to a new second),
//     crid_registry_reserve, COMMIT; blocks of a fixed size or sized as the
//     worker sizes them (core/crid_block_sizing.hpp, linked in);
//   crid server, node lease (worker/lease_rounds.cpp, lease mode): a round
//     every third of the TTL, BEGIN, crid_node_lease_take when it holds no
//     node (over the wanted nodes, --nodes, 0-16383 by default: a layout of
//     14 node bits), the renewal UPDATE by its token, COMMIT; at the end it
//     releases its node by its token, as the worker does at a planned exit;
//   Go service (the crid library's Postgres registry): its plain upsert.
//
// The bench script checks that these are the very statements the real crid
// servers beside the simulation sent (pg_stat_statements' query ids). The
// simulated id supply: each member hands ids out at its rate from what it
// has reserved and asks for more once fewer than its threshold remain; a
// member whose ids ran out before the registry answered has stalled (its
// backends would wait).
//
// Points run one after the other on the same connections (a point uses the
// first `members` of them): a warm-up, then a measured interval. For each
// point one tab-separated line: operations the registry served a second,
// their latency percentiles, errors, stalls, and the CPU time of the
// registry's processes over the interval (from /proc: every process of the
// postmaster's tree, exited children included), per 1,000 operations.
// Every block a member got goes to --blocks, for the overlap checks. The
// members take their nodes before the first point, as a fleet that starts
// together does, at most --take-concurrency rounds in flight; --takes gets
// one line on those takes: takes a second (over the rounds that took),
// probes per take (crid_node_lease_take's `probed`), their latency, and
// whether every member holds a node of its own.
//
//   fleet_sim --conninfo 'host=... user=...' --schema public
//             --table public.crid_allocations --leases public.crid_node_leases
//             --pool 1000 [--go-every 10] [--nodes 0-16383] [--primary-pid P]
//             [--standby-pid S] [--blocks FILE] [--takes FILE] [--take-concurrency 64]
//             --point 'members=100 ids=20000 block=10000 ttl=30 warmup=3 seconds=10' ...
// (block=auto sizes blocks as the worker does, with rate=R blocks a second.)
#include "../../src/core/crid_block_sizing.hpp"

#include "libpq-fe.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <map>
#include <queue>
#include <random>
#include <string>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace {

namespace ids = crid::core::crid_ids;

[[noreturn]] void die(const std::string &what) {
    std::fprintf(stderr, "fleet_sim: %s\n", what.c_str());
    std::exit(1);
}

int64_t mono_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int64_t wall_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// What one point of the run asks.
struct Point {
    int members = 10;
    double ids = 10000;    // ids a second per member
    int64_t block = 10000; // 0: sized as the worker sizes it
    int64_t rate = ids::default_max_blocks_per_second;
    double ttl_s = 30;
    double warmup_s = 2;
    double seconds = 10;
};

Point parse_point(const std::string &text) {
    Point p;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find(' ', at);
        std::string word = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
        at = end == std::string::npos ? text.size() : end + 1;
        if (word.empty())
            continue;
        size_t eq = word.find('=');
        if (eq == std::string::npos)
            die("point word without '=': " + word);
        std::string key = word.substr(0, eq), value = word.substr(eq + 1);
        char *rest = nullptr;
        double v = std::strtod(value.c_str(), &rest);
        bool number = rest && *rest == '\0' && !value.empty();
        if (key == "block" && value == "auto")
            p.block = 0;
        else if (!number)
            die("point " + key + " is not a number: " + value);
        else if (key == "members")
            p.members = int(v);
        else if (key == "ids")
            p.ids = v;
        else if (key == "block")
            p.block = int64_t(v);
        else if (key == "rate")
            p.rate = int64_t(v);
        else if (key == "ttl")
            p.ttl_s = v;
        else if (key == "warmup")
            p.warmup_s = v;
        else if (key == "seconds")
            p.seconds = v;
        else
            die("unknown point setting " + key);
    }
    if (p.members < 1 || p.ids <= 0 || p.block < 0 || p.ttl_s <= 0 || p.seconds <= 0)
        die("a point needs members >= 1, ids > 0, block >= 0 (or auto), ttl > 0, seconds > 0: " + text);
    return p;
}

struct Options {
    std::string conninfo, schema = "public", table = "public.crid_allocations", leases = "public.crid_node_leases";
    int pool = 0;
    int go_every = 0;
    int first_node = 0, last_node = 16383;
    int primary_pid = 0, standby_pid = 0;
    std::string blocks, takes;
    int take_concurrency = 64;
    std::vector<Point> points;
};

Options parse_options(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (i + 1 >= argc)
            die("option " + a + " needs a value");
        std::string v = argv[++i];
        if (a == "--conninfo")
            o.conninfo = v;
        else if (a == "--schema")
            o.schema = v;
        else if (a == "--table")
            o.table = v;
        else if (a == "--leases")
            o.leases = v;
        else if (a == "--pool")
            o.pool = std::atoi(v.c_str());
        else if (a == "--go-every")
            o.go_every = std::atoi(v.c_str());
        else if (a == "--nodes") {
            if (std::sscanf(v.c_str(), "%d-%d", &o.first_node, &o.last_node) != 2 || o.first_node < 0 ||
                o.last_node < o.first_node || o.last_node > 65535)
                die("--nodes is FIRST-LAST within 0-65535: " + v);
        } else if (a == "--primary-pid")
            o.primary_pid = std::atoi(v.c_str());
        else if (a == "--standby-pid")
            o.standby_pid = std::atoi(v.c_str());
        else if (a == "--blocks")
            o.blocks = v;
        else if (a == "--takes")
            o.takes = v;
        else if (a == "--take-concurrency")
            o.take_concurrency = std::max(1, std::atoi(v.c_str()));
        else if (a == "--point")
            o.points.push_back(parse_point(v));
        else
            die("unknown option " + a);
    }
    if (o.conninfo.empty() || o.points.empty())
        die("--conninfo and at least one --point are needed");
    for (const Point &p : o.points)
        o.pool = std::max(o.pool, p.members);
    return o;
}

// ---------------------------------------------------------------------------
// The statements, as the real members send them.

// The block reserver's pinned session settings (registry/pinned_settings.cpp,
// those pinned on a remote registry).
constexpr const char *pin_sql = "SELECT pg_catalog.set_config('search_path', 'pg_catalog', false),"
                                " pg_catalog.set_config('synchronous_commit', 'on', false),"
                                " pg_catalog.set_config('default_transaction_read_only', 'off', false),"
                                " pg_catalog.set_config('default_transaction_isolation', 'read committed', false),"
                                " pg_catalog.set_config('statement_timeout', '0', false),"
                                " pg_catalog.set_config('lock_timeout', '0', false),"
                                " pg_catalog.set_config('idle_in_transaction_session_timeout', '0', false),"
                                " pg_catalog.set_config('standard_conforming_strings', 'on', false)";

struct Statements {
    std::string check, row, reserve, take, renew, release, go;
};

Statements statements(const Options &o) {
    Statements s;
    s.check = "SELECT c.refused_from_ts, c.floor_ts, c.live_max_ts, c.now_unix_ms,"
              " (pg_catalog.date_part('epoch', c.epoch) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8,"
              " c.max_skew_ms, c.changed, c.identity, c.reason"
              " FROM " +
              o.schema + ".crid_registry_check($1::pg_catalog.regclass) c";
    s.row = "SELECT a.next_seq FROM " + o.table + " a WHERE a.ts OPERATOR(pg_catalog.=) $1::pg_catalog.int8";
    s.reserve = "SELECT " + o.schema +
                ".crid_registry_reserve($4::pg_catalog.regclass, $1::pg_catalog.int8, $2::pg_catalog.int8,"
                " $3::pg_catalog.int8, $5::pg_catalog.int8)";
    // The lease round's statements, as worker/lease_rounds.cpp writes them
    // (take_one_sql, renew_sql, release_sql).
    s.take = "SELECT t.node, t.raise_to, t.probed, t.live FROM " + o.schema +
             ".crid_node_lease_take($1::pg_catalog.int4[], $2::pg_catalog.int4[],"
             " $3::pg_catalog.text, $4::pg_catalog.text, $5::pg_catalog.int8, $6::pg_catalog.int8,"
             " $7::pg_catalog.int8) t";
    s.renew = "UPDATE " + o.leases +
              " l SET lease_until = pg_catalog.now() OPERATOR(pg_catalog.+)"
              " ($6::pg_catalog.float8 OPERATOR(pg_catalog.*) '1 millisecond'::pg_catalog.interval),"
              " renewed_at = pg_catalog.now(), holder = $3,"
              " high_water_ms = GREATEST(l.high_water_ms, $5::pg_catalog.int8), released_at = NULL"
              " WHERE l.token OPERATOR(pg_catalog.=) $4 AND EXISTS (SELECT FROM ROWS FROM"
              " (pg_catalog.unnest($1::pg_catalog.int4[]), pg_catalog.unnest($2::pg_catalog.int4[])) r(lo, hi)"
              " WHERE l.node OPERATOR(pg_catalog.>=) r.lo AND l.node OPERATOR(pg_catalog.<=) r.hi)"
              " RETURNING l.node, (pg_catalog.date_part('epoch', l.lease_until) OPERATOR(pg_catalog.*)"
              " 1000)::pg_catalog.int8,"
              " GREATEST(pg_catalog.ceil(pg_catalog.date_part('epoch', l.mint_from OPERATOR(pg_catalog.-)"
              " pg_catalog.now()) OPERATOR(pg_catalog.*) 1000), 0)::pg_catalog.int8";
    s.release = "UPDATE " + o.leases +
                " l SET lease_until = pg_catalog.now(), high_water_ms = $2::pg_catalog.int8,"
                " released_at = pg_catalog.now() WHERE l.token OPERATOR(pg_catalog.=) $1";
    s.go = "INSERT INTO " + o.table +
           " AS t (ts, next_seq) VALUES ($1, $2) ON CONFLICT (ts) DO UPDATE SET next_seq = t.next_seq + $2"
           " RETURNING t.next_seq";
    return s;
}

// ---------------------------------------------------------------------------
// Members.

enum class Op { none, pin, reserve, renew, release, rollback };

struct Member {
    int index = 0;
    bool go = false;
    int node = -1; // the node it holds, -1 none
    char token[24] = "";
    PGconn *conn = nullptr;
    bool active = false;

    // The simulated server: ids it holds, handed out at `per_ms`.
    double remaining = 0;
    double per_ms = 0;
    int64_t last_us = 0;
    uint64_t served = 0;
    uint64_t waits = 0;
    bool dry = false;
    int64_t block = 0;
    int64_t threshold = 0;
    ids::BlockSizer sizer;

    // Its registry session: one batch at a time.
    Op op = Op::none;
    int64_t sent_us = 0;
    int results = 0; // results of the batch read so far (a null result ends each)
    bool failed = false;
    bool reserve_due = false, renew_due = false;
    int64_t next_renew_us = 0;
    int64_t renew_every_us = 0;
    int64_t ttl_ms = 0;
    // The batch in flight: its second, blocks and their size (a new point
    // may change m.block meanwhile).
    int64_t ts = 0, span = 0, count = 0, sent_block = 0;
    int64_t last_ts = -1, last_end = 0; // the second reserved in last, and how far
    bool row_sent = false;
    int64_t got_end = -1, row_value = -2;
    int renewed = 0;
    bool taking = false; // the round in flight takes a node first
    int took = -1, probed = 0;
    uint64_t timer_seq = 0;
};

// The takes of crid_node_lease_take, over the whole run.
struct Takes {
    std::vector<int64_t> us;
    int64_t takes = 0, rounds = 0, none = 0, errors = 0, probes = 0, max_probes = 0;
};

struct Counters {
    std::vector<int64_t> reserve_us, renew_us, go_us;
    int64_t reservations = 0, go_upserts = 0, renewals = 0, blocks = 0, ids_reserved = 0;
    int64_t errors = 0, refused = 0, lost_leases = 0, regressions = 0, stalls = 0;
    std::map<int64_t, int64_t> sizes; // block size -> blocks
    void clear() { *this = Counters{}; }
};

int64_t percentile(std::vector<int64_t> &v, double q) {
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    size_t i = size_t(q * double(v.size()));
    return v[std::min(i, v.size() - 1)];
}

// ---------------------------------------------------------------------------
// CPU of a postmaster's processes, from /proc.

int64_t clock_ticks() { return sysconf(_SC_CLK_TCK); }

// utime + stime (+ cutime + cstime when `children`) of /proc/PID/stat, and its ppid.
bool read_stat(int pid, int64_t &ticks, int &ppid, bool children) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = std::fopen(path, "r");
    if (!f)
        return false;
    char buf[1024];
    size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    const char *p = std::strrchr(buf, ')');
    if (!p)
        return false;
    // Fields after the command: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
    long long field[20] = {};
    int i = 3;
    const char *s = p + 3; // past ") " and the state letter
    while (*s && i < 17) {
        ++i;
        field[i] = std::strtoll(s, const_cast<char **>(&s), 10);
    }
    ppid = int(field[4]);
    ticks = field[14] + field[15] + (children ? field[16] + field[17] : 0);
    return true;
}

// CPU seconds of postmaster `pid` and every process it started: its own
// time and its waited-for children's (exited backends, autovacuum workers),
// and the time of the children alive now.
double tree_cpu_s(int pid) {
    if (pid <= 0)
        return 0;
    int64_t total = 0, ticks = 0;
    int ppid = 0;
    if (!read_stat(pid, ticks, ppid, true))
        die("cannot read /proc/" + std::to_string(pid) + "/stat");
    total += ticks;
    DIR *d = opendir("/proc");
    if (!d)
        die("cannot list /proc");
    while (dirent *e = readdir(d)) {
        int child = std::atoi(e->d_name);
        if (child <= 0 || child == pid)
            continue;
        if (read_stat(child, ticks, ppid, false) && ppid == pid)
            total += ticks;
    }
    closedir(d);
    return double(total) / double(clock_ticks());
}

// ---------------------------------------------------------------------------
// The simulation.

class Fleet {
  public:
    Fleet(const Options &o) : o_(o), sql_(statements(o)), rng_(12345) {}

    void connect_all();
    void take_nodes();
    void run_point(const Point &p, bool header);
    void release_nodes();

  private:
    void start_point(const Point &p);
    void advance(Member &m, int64_t now);
    void plan(Member &m, int64_t now);
    void schedule_reserve(Member &m, int64_t now);
    void send_next(Member &m, int64_t now);
    void send_reserve(Member &m, int64_t now);
    void send_renew(Member &m, int64_t now);
    void send_release(Member &m);
    void send_rollback(Member &m);
    void flush(Member &m);
    void on_readable(Member &m, int64_t now);
    void on_result(Member &m, PGresult *r);
    void finish_batch(Member &m, int64_t now);
    void finish_reserve(Member &m, int64_t now, int64_t latency);
    void log_block(const Member &m, int64_t start, int64_t size);
    void loop_until(int64_t end_us, bool record);
    void settle();
    void print(const Point &p, double seconds, double primary_cpu, double standby_cpu, bool header);

    struct Timer {
        int64_t at;
        int member;
        uint64_t seq;
        bool operator>(const Timer &t) const { return at > t.at; }
    };

    const Options &o_;
    Statements sql_;
    std::vector<Member> members_;
    int epoll_ = -1;
    std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
    std::mt19937_64 rng_;
    Counters c_;
    Takes t_;
    bool recording_ = false;
    FILE *blocks_ = nullptr;
    Point point_;
    ids::SizingSettings sizing_;
    const ids::Layout layout_{};
    char token_prefix_[32] = "";
};

void Fleet::connect_all() {
    rlimit fds{};
    getrlimit(RLIMIT_NOFILE, &fds);
    if (fds.rlim_cur < rlim_t(o_.pool + 64)) {
        fds.rlim_cur = std::min<rlim_t>(fds.rlim_max, rlim_t(o_.pool + 64));
        setrlimit(RLIMIT_NOFILE, &fds);
    }
    epoll_ = epoll_create1(0);
    members_.resize(size_t(o_.pool));
    std::snprintf(token_prefix_, sizeof token_prefix_, "sim%d-", int(getpid()));
    for (int i = 0; i < o_.pool; ++i) {
        Member &m = members_[size_t(i)];
        m.index = i;
        m.go = o_.go_every > 0 && i % o_.go_every == o_.go_every - 1;
        std::snprintf(m.token, sizeof m.token, "%s%d", token_prefix_, i);
        m.conn = PQconnectdb(o_.conninfo.c_str());
        if (PQstatus(m.conn) != CONNECTION_OK)
            die("member " + std::to_string(i) + " cannot connect: " + PQerrorMessage(m.conn));
        PGresult *r = PQexec(m.conn, m.go ? "SELECT 1" : pin_sql);
        if (PQresultStatus(r) != PGRES_TUPLES_OK)
            die(std::string("member cannot pin its settings: ") + PQerrorMessage(m.conn));
        PQclear(r);
        if (PQsetnonblocking(m.conn, 1) != 0 || PQenterPipelineMode(m.conn) != 1)
            die("member cannot enter pipeline mode");
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u32 = uint32_t(i);
        if (epoll_ctl(epoll_, EPOLL_CTL_ADD, PQsocket(m.conn), &ev) != 0)
            die("epoll_ctl failed");
    }
    if (!o_.blocks.empty() && !(blocks_ = std::fopen(o_.blocks.c_str(), "w")))
        die("cannot write " + o_.blocks);
}

// Runs the event loop until no member has a batch in flight.
void Fleet::settle() {
    epoll_event events[256];
    for (;;) {
        bool busy = false;
        for (const Member &m : members_)
            busy |= m.op != Op::none;
        if (!busy)
            return;
        int n = epoll_wait(epoll_, events, 256, 1000);
        if (n < 0 && errno != EINTR)
            die("epoll_wait failed");
        int64_t now = mono_us();
        for (int i = 0; i < n; ++i) {
            Member &m = members_[events[i].data.u32];
            if (events[i].events & EPOLLOUT)
                flush(m);
            if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
                on_readable(m, now);
        }
    }
}

// Every simulated crid server takes its node at once, in its first lease
// round (with the first point's TTL); a round that found no node is tried
// again, as the worker's next round would.
void Fleet::take_nodes() {
    // The TTL of the first point with more than one member (the first is
    // often one idle member).
    double ttl_s = o_.points.front().ttl_s;
    for (auto p = o_.points.rbegin(); p != o_.points.rend(); ++p)
        if (p->members > 1)
            ttl_s = p->ttl_s;
    std::vector<int> takers;
    for (Member &m : members_)
        if (!m.go) {
            m.ttl_ms = int64_t(ttl_s * 1000);
            takers.push_back(m.index);
        }
    // Rounds of every member, at most --take-concurrency in flight, until
    // one round in which every member renewed the node it holds (a node
    // whose lease lapsed while others queued is taken again).
    double seconds = 0;
    epoll_event events[256];
    for (int round = 0; round < 20; ++round) {
        int64_t r0 = mono_us();
        int64_t takes0 = t_.takes;
        size_t next = 0;
        for (;;) {
            int inflight = 0;
            for (int k : takers)
                inflight += members_[size_t(k)].op != Op::none;
            while (inflight < o_.take_concurrency && next < takers.size()) {
                send_renew(members_[size_t(takers[next++])], mono_us());
                ++inflight;
            }
            if (inflight == 0)
                break;
            int n = epoll_wait(epoll_, events, 256, 1000);
            if (n < 0 && errno != EINTR)
                die("epoll_wait failed");
            int64_t now = mono_us();
            for (int e = 0; e < n; ++e) {
                Member &m = members_[events[e].data.u32];
                if (events[e].events & EPOLLOUT)
                    flush(m);
                if (events[e].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
                    on_readable(m, now);
            }
        }
        if (t_.takes > takes0)
            seconds += double(mono_us() - r0) / 1e6;
        bool all = true;
        for (int k : takers)
            all &= members_[size_t(k)].node >= 0 && !members_[size_t(k)].taking;
        if (all)
            break;
    }
    std::vector<int> nodes;
    for (int k : takers)
        if (members_[size_t(k)].node >= 0)
            nodes.push_back(members_[size_t(k)].node);
    std::sort(nodes.begin(), nodes.end());
    int64_t shared = int64_t(nodes.size()) - (std::unique(nodes.begin(), nodes.end()) - nodes.begin());
    FILE *f = o_.takes.empty() ? nullptr : std::fopen(o_.takes.c_str(), "w");
    if (!o_.takes.empty() && !f)
        die("cannot write " + o_.takes);
    if (f) {
        std::fprintf(f,
                     "takers\tnodes\tseconds\ttakes\ttakes_per_s\trounds\tnone\terrors\tprobes_per_take\tmax_probes\t"
                     "take_p50_us\ttake_p99_us\tholding\tshared\n");
        std::fprintf(f, "%zu\t%d\t%.3f\t%lld\t%.1f\t%lld\t%lld\t%lld\t%.3f\t%lld\t%lld\t%lld\t%zu\t%lld\n",
                     takers.size(), o_.last_node - o_.first_node + 1, seconds, static_cast<long long>(t_.takes),
                     double(t_.takes) / seconds, static_cast<long long>(t_.rounds), static_cast<long long>(t_.none),
                     static_cast<long long>(t_.errors), t_.takes > 0 ? double(t_.probes) / double(t_.takes) : 0.0,
                     static_cast<long long>(t_.max_probes), static_cast<long long>(percentile(t_.us, 0.5)),
                     static_cast<long long>(percentile(t_.us, 0.99)), nodes.size(), static_cast<long long>(shared));
        std::fclose(f);
    }
    if (shared > 0)
        die(std::to_string(shared) + " nodes held by two members");
    if (nodes.size() < takers.size())
        die(std::to_string(takers.size() - nodes.size()) + " members hold no node");
}

// At the end every member releases its node, as the worker at a planned exit.
void Fleet::release_nodes() {
    for (Member &m : members_)
        m.active = false;
    settle();
    for (Member &m : members_)
        if (!m.go)
            send_release(m);
    settle();
}

// The ids member `m` handed out since it last looked, at its rate; ids it
// lacked are a stall (counted once per time it ran dry).
void Fleet::advance(Member &m, int64_t now) {
    double want = m.per_ms * double(now - m.last_us) / 1000.0;
    m.last_us = now;
    if (want <= m.remaining) {
        m.remaining -= want;
        m.served += uint64_t(want);
        m.dry = false;
        return;
    }
    m.served += uint64_t(m.remaining);
    m.remaining = 0;
    if (!m.dry) {
        m.dry = true;
        ++m.waits;
        if (recording_ && m.active)
            ++c_.stalls;
    }
}

// The block and threshold the member reserves with now.
void Fleet::plan(Member &m, int64_t now) {
    if (point_.block > 0) {
        m.block = point_.block;
        m.threshold = point_.block / 2;
        return;
    }
    m.sizer.observe(now / 1000, m.served, m.waits, sizing_);
    m.block = m.sizer.block_size();
    m.threshold = m.sizer.reserve_target(sizing_);
}

// A timer for when the member's ids fall below its threshold.
void Fleet::schedule_reserve(Member &m, int64_t now) {
    double above = m.remaining - double(m.threshold);
    int64_t at = above <= 0 || m.per_ms <= 0 ? now : now + int64_t(above / m.per_ms * 1000.0);
    timers_.push(Timer{at, m.index, ++m.timer_seq});
}

void Fleet::start_point(const Point &p) {
    point_ = p;
    ids::ReservationSettings usable = ids::usable_settings(layout_, ids::default_block_size, ids::default_threshold);
    sizing_ = ids::sizing_settings(layout_, usable, p.rate, 28);
    int64_t now = mono_us();
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    timers_ = {};
    for (Member &m : members_) {
        m.active = m.index < p.members;
        advance(m, now);
        m.per_ms = m.active ? p.ids / 1000.0 : 0;
        m.dry = false;
        plan(m, now);
        // Staggered: each member starts somewhere in the life of a block.
        if (m.active && m.remaining < double(m.threshold))
            m.remaining = double(m.threshold) + unit(rng_) * double(m.block);
        m.ttl_ms = int64_t(p.ttl_s * 1000);
        m.renew_every_us = int64_t(p.ttl_s * 1e6 / 3);
        m.next_renew_us = now + int64_t(unit(rng_) * double(m.renew_every_us));
        if (m.active) {
            schedule_reserve(m, now);
            if (!m.go)
                timers_.push(Timer{m.next_renew_us, m.index, ++m.timer_seq});
        }
        m.reserve_due = m.renew_due = false;
    }
}

void Fleet::send_next(Member &m, int64_t now) {
    if (m.op != Op::none || !m.active)
        return;
    if (m.reserve_due)
        send_reserve(m, now);
    else if (m.renew_due)
        send_renew(m, now);
}

void Fleet::flush(Member &m) {
    int rc = PQflush(m.conn);
    if (rc < 0)
        die("lost member " + std::to_string(m.index) + ": " + PQerrorMessage(m.conn));
    epoll_event ev{};
    ev.events = uint32_t(EPOLLIN) | (rc == 1 ? uint32_t(EPOLLOUT) : 0u);
    ev.data.u32 = uint32_t(m.index);
    epoll_ctl(epoll_, EPOLL_CTL_MOD, PQsocket(m.conn), &ev);
}

void Fleet::send_reserve(Member &m, int64_t now) {
    m.reserve_due = false;
    plan(m, now);
    int64_t ms = wall_ms();
    m.ts = (ms - layout_.epoch_unix_ms) / 1000;
    // As many blocks as reach the threshold, as the worker asks for (at most 8).
    double missing = double(m.threshold) - m.remaining;
    m.count = std::clamp<int64_t>(int64_t(std::ceil(missing / double(m.block))), 1, 8);
    m.sent_block = m.block;
    m.span = m.block * m.count;
    m.op = Op::reserve;
    m.sent_us = now;
    m.results = 0;
    m.failed = false;
    m.got_end = -1;
    m.row_value = -2;
    bool ok = true;
    char ts[24], span[24], limit[24], epoch[24], row_ts[24];
    std::snprintf(ts, sizeof ts, "%lld", static_cast<long long>(m.ts));
    std::snprintf(span, sizeof span, "%lld", static_cast<long long>(m.span));
    std::snprintf(limit, sizeof limit, "%lld", static_cast<long long>(ids::sequence_space(layout_) - m.span));
    std::snprintf(epoch, sizeof epoch, "%lld", static_cast<long long>(layout_.epoch_unix_ms));
    if (m.go) {
        const char *params[] = {ts, span};
        ok = PQsendQueryParams(m.conn, sql_.go.c_str(), 2, nullptr, params, nullptr, nullptr, 0) == 1;
    } else {
        const char *table = o_.table.c_str();
        const char *check[] = {table};
        const char *reserve[] = {ts, span, limit, table, epoch};
        m.row_sent = m.last_ts >= 0 && m.last_end > 0 && m.ts > m.last_ts;
        std::snprintf(row_ts, sizeof row_ts, "%lld", static_cast<long long>(m.last_ts));
        const char *row[] = {row_ts};
        ok = PQsendQueryParams(m.conn, "BEGIN", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1 &&
             PQsendQueryParams(m.conn, sql_.check.c_str(), 1, nullptr, check, nullptr, nullptr, 0) == 1 &&
             (!m.row_sent || PQsendQueryParams(m.conn, sql_.row.c_str(), 1, nullptr, row, nullptr, nullptr, 0) == 1) &&
             PQsendQueryParams(m.conn, sql_.reserve.c_str(), 5, nullptr, reserve, nullptr, nullptr, 0) == 1 &&
             PQsendQueryParams(m.conn, "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
    }
    if (!ok || PQpipelineSync(m.conn) != 1)
        die("cannot send to member " + std::to_string(m.index) + ": " + PQerrorMessage(m.conn));
    flush(m);
}

// One lease round, as the worker's: the take when it holds no node, then
// the renewal of what it holds of the wanted nodes, in one transaction.
void Fleet::send_renew(Member &m, int64_t now) {
    m.renew_due = false;
    m.op = Op::renew;
    m.sent_us = now;
    m.results = 0;
    m.failed = false;
    m.renewed = 0;
    m.taking = m.node < 0;
    m.took = -1;
    m.probed = 0;
    char first[16], last[16], holder[64], bound[24], ttl[24], delay[24];
    std::snprintf(first, sizeof first, "{%d}", o_.first_node);
    std::snprintf(last, sizeof last, "{%d}", o_.last_node);
    std::snprintf(holder, sizeof holder, "fleet_sim member %d", m.index);
    std::snprintf(bound, sizeof bound, "%lld", static_cast<long long>(wall_ms() + m.ttl_ms));
    std::snprintf(ttl, sizeof ttl, "%lld", static_cast<long long>(m.ttl_ms));
    std::snprintf(delay, sizeof delay, "%lld", static_cast<long long>(m.ttl_ms + m.ttl_ms / 5));
    const char *params[] = {first, last, holder, m.token, bound, ttl, delay};
    bool ok =
        PQsendQueryParams(m.conn, "BEGIN", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1 &&
        (!m.taking || PQsendQueryParams(m.conn, sql_.take.c_str(), 7, nullptr, params, nullptr, nullptr, 0) == 1) &&
        PQsendQueryParams(m.conn, sql_.renew.c_str(), 6, nullptr, params, nullptr, nullptr, 0) == 1 &&
        PQsendQueryParams(m.conn, "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1 &&
        PQpipelineSync(m.conn) == 1;
    if (!ok)
        die("cannot send to member " + std::to_string(m.index) + ": " + PQerrorMessage(m.conn));
    flush(m);
}

// At the end: the member's rows lapse now, released, as at a planned exit.
void Fleet::send_release(Member &m) {
    m.op = Op::release;
    m.results = 0;
    m.failed = false;
    char bound[24];
    std::snprintf(bound, sizeof bound, "%lld", static_cast<long long>(wall_ms()));
    const char *params[] = {m.token, bound};
    bool ok = PQsendQueryParams(m.conn, "BEGIN", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1 &&
              PQsendQueryParams(m.conn, sql_.release.c_str(), 2, nullptr, params, nullptr, nullptr, 0) == 1 &&
              PQsendQueryParams(m.conn, "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1 &&
              PQpipelineSync(m.conn) == 1;
    if (!ok)
        die("cannot send to member " + std::to_string(m.index) + ": " + PQerrorMessage(m.conn));
    flush(m);
}

// A failed batch leaves its transaction open and aborted: roll it back, as
// the worker does.
void Fleet::send_rollback(Member &m) {
    m.op = Op::rollback;
    m.results = 0;
    if (PQsendQueryParams(m.conn, "ROLLBACK", 0, nullptr, nullptr, nullptr, nullptr, 0) != 1 ||
        PQpipelineSync(m.conn) != 1)
        die("cannot roll back member " + std::to_string(m.index));
    flush(m);
}

void Fleet::on_result(Member &m, PGresult *r) {
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_FATAL_ERROR) {
        if (!m.failed && recording_)
            std::fprintf(stderr, "fleet_sim: member %d: %s", m.index, PQresultErrorMessage(r));
        m.failed = true;
        return;
    }
    if (st == PGRES_PIPELINE_ABORTED) {
        m.failed = true;
        return;
    }
    if (st != PGRES_TUPLES_OK)
        return;
    // Which statement: results so far count the statements before it.
    int index = m.results;
    if (m.op == Op::reserve && m.go && index == 0 && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
        m.got_end = std::strtoll(PQgetvalue(r, 0, 0), nullptr, 10);
    if (m.op == Op::reserve && !m.go) {
        int reserve_at = m.row_sent ? 3 : 2;
        if (m.row_sent && index == 2)
            m.row_value =
                PQntuples(r) == 1 && !PQgetisnull(r, 0, 0) ? std::strtoll(PQgetvalue(r, 0, 0), nullptr, 10) : -1;
        if (index == reserve_at && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
            m.got_end = std::strtoll(PQgetvalue(r, 0, 0), nullptr, 10);
    }
    if (m.op == Op::renew && m.taking && index == 1 && PQntuples(r) == 1) {
        m.took = PQgetisnull(r, 0, 0) ? -1 : std::atoi(PQgetvalue(r, 0, 0));
        m.probed = std::atoi(PQgetvalue(r, 0, 2));
    }
    if (m.op == Op::renew && index == (m.taking ? 2 : 1)) {
        m.renewed = PQntuples(r);
        if (PQntuples(r) == 1)
            m.node = std::atoi(PQgetvalue(r, 0, 0));
    }
}

void Fleet::log_block(const Member &m, int64_t start, int64_t size) {
    if (blocks_)
        std::fprintf(blocks_, "%s\t%lld\t%lld\t%lld\n", m.go ? "go" : "crid", static_cast<long long>(m.ts),
                     static_cast<long long>(start), static_cast<long long>(start + size));
}

void Fleet::finish_reserve(Member &m, int64_t now, int64_t latency) {
    bool got = !m.failed && m.got_end >= 0;
    if (recording_) {
        (m.go ? c_.go_us : c_.reserve_us).push_back(latency);
        ++(m.go ? c_.go_upserts : c_.reservations);
        c_.errors += m.failed;
        c_.refused += !m.failed && !got;
        c_.regressions += m.row_sent && !m.failed && m.row_value < m.last_end;
    }
    if (!got) {
        // Refused or failed: asked again shortly, as the worker (and a Go
        // service's caller) would.
        timers_.push(Timer{now + 50000, m.index, ++m.timer_seq});
        return;
    }
    for (int64_t i = 0; i < m.count; ++i)
        log_block(m, m.got_end - m.span + i * m.sent_block, m.sent_block);
    if (recording_) {
        c_.blocks += m.count;
        c_.ids_reserved += m.span;
        c_.sizes[m.sent_block] += m.count;
    }
    advance(m, now);
    m.remaining += double(m.span);
    m.last_ts = m.ts;
    m.last_end = m.got_end;
    schedule_reserve(m, now);
}

void Fleet::finish_batch(Member &m, int64_t now) {
    int64_t latency = now - m.sent_us;
    Op op = m.op;
    m.op = Op::none;
    if (op == Op::reserve)
        finish_reserve(m, now, latency);
    else if (op == Op::renew) {
        if (m.taking) {
            ++t_.rounds;
            t_.errors += m.failed;
            t_.none += !m.failed && m.took < 0;
            if (!m.failed && m.took >= 0) {
                ++t_.takes;
                t_.us.push_back(latency);
                t_.probes += m.probed;
                t_.max_probes = std::max<int64_t>(t_.max_probes, m.probed);
            }
        }
        if (m.failed || m.renewed != 1)
            m.node = -1; // lost, or never taken: the next round takes one
        if (recording_ && !m.taking) {
            c_.renew_us.push_back(latency);
            ++c_.renewals;
            c_.errors += m.failed;
            c_.lost_leases += !m.failed && m.renewed != 1;
        }
        m.next_renew_us = now + m.renew_every_us;
        if (m.active)
            timers_.push(Timer{m.next_renew_us, m.index, ++m.timer_seq});
    }
    if (op != Op::rollback && m.failed && PQtransactionStatus(m.conn) != PQTRANS_IDLE) {
        send_rollback(m);
        return;
    }
    send_next(m, now);
}

void Fleet::on_readable(Member &m, int64_t now) {
    if (!PQconsumeInput(m.conn))
        die("lost member " + std::to_string(m.index) + ": " + PQerrorMessage(m.conn));
    while (m.op != Op::none && !PQisBusy(m.conn)) {
        PGresult *r = PQgetResult(m.conn);
        if (!r) {
            ++m.results; // the end of one statement's results
            continue;
        }
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_PIPELINE_SYNC) {
            PQclear(r);
            finish_batch(m, now);
            continue;
        }
        on_result(m, r);
        PQclear(r);
    }
}

void Fleet::loop_until(int64_t end_us, bool record) {
    recording_ = record;
    epoll_event events[256];
    for (;;) {
        int64_t now = mono_us();
        while (!timers_.empty() && timers_.top().at <= now) {
            Timer t = timers_.top();
            timers_.pop();
            Member &m = members_[size_t(t.member)];
            if (!m.active)
                continue;
            advance(m, now);
            if (!m.go && now >= m.next_renew_us)
                m.renew_due = true;
            if (m.remaining <= double(m.threshold) + 0.5 && m.op != Op::reserve)
                m.reserve_due = true;
            send_next(m, now);
        }
        if (now >= end_us)
            return;
        int64_t wait_us = end_us - now;
        if (!timers_.empty())
            wait_us = std::min(wait_us, timers_.top().at - now);
        int n = epoll_wait(epoll_, events, 256, int(std::max<int64_t>(0, (wait_us + 999) / 1000)));
        if (n < 0 && errno != EINTR)
            die("epoll_wait failed");
        now = mono_us();
        for (int i = 0; i < n; ++i) {
            Member &m = members_[events[i].data.u32];
            if (events[i].events & EPOLLOUT)
                flush(m);
            if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
                on_readable(m, now);
        }
    }
}

void Fleet::print(const Point &p, double seconds, double primary_cpu, double standby_cpu, bool header) {
    if (header)
        std::printf("members\tgo_members\tids_per_s\tblock\trate\tttl_s\tseconds\toffered_res_s\tres_s\tgo_s\tren_s\t"
                    "res_p50_us\tres_p99_us\tgo_p50_us\tgo_p99_us\tren_p50_us\tren_p99_us\tblocks\tmean_block\t"
                    "errors\trefused\tlost_leases\tregressions\tstalls\tprimary_cpu_s\tstandby_cpu_s\n");
    int go_members = 0;
    for (const Member &m : members_)
        go_members += m.active && m.go;
    // Offered: what the members' rates ask of the registry with these blocks.
    double mean_block = c_.blocks > 0 ? double(c_.ids_reserved) / double(c_.blocks) : 0;
    double offered = p.block > 0 ? double(p.members) * p.ids / double(p.block) : -1;
    std::printf(
        "%d\t%d\t%.0f\t%s\t%lld\t%.0f\t%.2f\t%.1f\t%.1f\t%.1f\t%.1f\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%.0f\t"
        "%lld\t%lld\t%lld\t%lld\t%lld\t%.3f\t%.3f\n",
        p.members, go_members, p.ids, p.block > 0 ? std::to_string(p.block).c_str() : "auto",
        static_cast<long long>(p.rate), p.ttl_s, seconds, offered, double(c_.reservations) / seconds,
        double(c_.go_upserts) / seconds, double(c_.renewals) / seconds,
        static_cast<long long>(percentile(c_.reserve_us, 0.5)), static_cast<long long>(percentile(c_.reserve_us, 0.99)),
        static_cast<long long>(percentile(c_.go_us, 0.5)), static_cast<long long>(percentile(c_.go_us, 0.99)),
        static_cast<long long>(percentile(c_.renew_us, 0.5)), static_cast<long long>(percentile(c_.renew_us, 0.99)),
        static_cast<long long>(c_.blocks), mean_block, static_cast<long long>(c_.errors),
        static_cast<long long>(c_.refused), static_cast<long long>(c_.lost_leases),
        static_cast<long long>(c_.regressions), static_cast<long long>(c_.stalls), primary_cpu, standby_cpu);
    std::fflush(stdout);
}

void Fleet::run_point(const Point &p, bool header) {
    start_point(p);
    loop_until(mono_us() + int64_t(p.warmup_s * 1e6), false);
    c_.clear();
    double primary0 = tree_cpu_s(o_.primary_pid), standby0 = tree_cpu_s(o_.standby_pid);
    int64_t t0 = mono_us();
    loop_until(t0 + int64_t(p.seconds * 1e6), true);
    double primary1 = tree_cpu_s(o_.primary_pid), standby1 = tree_cpu_s(o_.standby_pid);
    double seconds = double(mono_us() - t0) / 1e6;
    // The batches still in flight finish unrecorded before the next point.
    recording_ = false;
    print(p, seconds, primary1 - primary0, standby1 - standby0, header);
    if (blocks_)
        std::fflush(blocks_);
}

} // namespace

int main(int argc, char **argv) {
    Options o = parse_options(argc, argv);
    Fleet fleet(o);
    fleet.connect_all();
    fleet.take_nodes();
    for (size_t i = 0; i < o.points.size(); ++i)
        fleet.run_point(o.points[i], i == 0);
    fleet.release_nodes();
    return 0;
}
