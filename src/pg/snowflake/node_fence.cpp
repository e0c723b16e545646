#include "snowflake/node_fence.hpp"

#include "common/shared_struct.hpp"

#include "core/time_units.hpp"

#include <cstdio>

namespace crid::pg::snowflake {

namespace {
NodeFence *state = nullptr;
}

NodeFence *fence() noexcept { return state; }

void request_fence() { RequestAddinShmemSpace(sizeof(NodeFence)); }

namespace {

// This postmaster's token, made once: a crash restart of the backends keeps
// it (the postmaster lived on, and so did its leases' claim), a new start
// of the server, a clone of its data directory or a promoted standby gets
// another one, so none of them passes for this holder.
char postmaster_token[sizeof NodeFence::token] = "";

void make_token() {
    if (postmaster_token[0])
        return;
    uint8 random[8] = {};
    if (!pg_strong_random(random, sizeof random))
        for (size_t i = 0; i < sizeof random; ++i) // never equal to another start's, at least
            random[i] = uint8(core::monotonic_ns() >> (8 * i)) ^ uint8(MyProcPid >> (i % 4));
    for (size_t i = 0; i < sizeof random; ++i)
        std::snprintf(postmaster_token + 2 * i, 3, "%02x", random[i]);
}

} // namespace

void startup_fence(bool fenced) {
    bool created = false;
    state = shared_struct<NodeFence>("crid snowflake node fence", created);
    if (!created)
        return;
    pg_atomic_init_u32(&state->fenced, fenced ? 1 : 0);
    pg_atomic_init_u32(&state->leased_node, no_node);
    for (pg_atomic_uint64 *c : {&state->valid_until_ns, &state->renewed_at_ns, &state->renewals, &state->acquisitions,
                                &state->losses, &state->failures})
        pg_atomic_init_u64(c, 0);
    for (pg_atomic_uint32 &word : state->held)
        pg_atomic_init_u32(&word, 0);
    SpinLockInit(&state->lock);
    make_token();
    std::memcpy(state->token, postmaster_token, sizeof state->token);
}

namespace {
TextFilter text_filter = nullptr; // set once at load, before any backend starts
} // namespace

void set_text_filter(TextFilter filter) { text_filter = filter; }

void raise_not_held(int64_t node) {
    NodeFence *s = fence();
    char refused[sizeof s->refused], failure[sizeof s->failure], waiting[sizeof s->waiting];
    SpinLockAcquire(&s->lock);
    std::memcpy(refused, s->refused, sizeof refused);
    std::memcpy(failure, s->failure, sizeof failure);
    std::memcpy(waiting, s->waiting, sizeof waiting);
    int64_t ttl = s->ttl_ms;
    SpinLockRelease(&s->lock);
    if (text_filter)
        text_filter(failure, sizeof failure);
    if (waiting[0] && !held(s, node))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake node %lld is not minted on by this server yet", static_cast<long long>(node)),
                        errdetail("%s", waiting),
                        errhint("A node whose earlier holder cannot be shown to have stopped is minted on only once "
                                "any lease of that holder could have lapsed (crid.node_lease_ttl and a fifth).")));
    if (held(s, node)) {
        uint64 renewed = pg_atomic_read_u64(&s->renewed_at_ns);
        long long ago =
            renewed ? static_cast<long long>((core::monotonic_ns() - int64_t(renewed)) / core::ns_per_ms) : -1;
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("snowflake node %lld: this server's lease may have lapsed, so it mints no id for it",
                        static_cast<long long>(node)),
                 errdetail("The lease was last renewed %lld ms ago; crid.node_lease_ttl is %lld ms and another "
                           "server may take the node once it lapses.%s%s",
                           ago, static_cast<long long>(ttl), failure[0] ? " The last renewal failed: " : "", failure),
                 errhint("Minting resumes as soon as the worker renews the lease: check the registry "
                         "(crid_registry_status()).")));
    }
    if (refused[0])
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("snowflake node %lld is not held by this server", static_cast<long long>(node)),
                        errdetail("%s", refused),
                        errhint("Give each server its own crid.node_id (or crid.snowflake_nodes), or stop the other "
                                "server: this one takes the node over once the other's lease lapses.")));
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("snowflake node %lld is not held by this server", static_cast<long long>(node)),
             failure[0] ? errdetail("Its worker could not take the lease: %s", failure)
                        : errdetail("With crid.registry set, or crid.node_id = 'lease', a server mints only for the "
                                    "nodes it holds in the registry's crid_node_leases."),
             errhint("Name the node in crid.node_id or crid.snowflake_nodes; the worker registers it at start and "
                     "after a reload.")));
}

int leased_node_or_error() {
    NodeFence *s = fence();
    uint32 node = s ? pg_atomic_read_u32(&s->leased_node) : no_node;
    if (node != no_node)
        return int(node);
    char failure[sizeof s->failure] = "", waiting[sizeof s->waiting] = "";
    if (s) {
        SpinLockAcquire(&s->lock);
        std::memcpy(failure, s->failure, sizeof failure);
        std::memcpy(waiting, s->waiting, sizeof waiting);
        SpinLockRelease(&s->lock);
        if (text_filter)
            text_filter(failure, sizeof failure);
    }
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("crid.node_id is 'lease' and this server holds no node lease"),
                    waiting[0]   ? errdetail("%s", waiting)
                    : failure[0] ? errdetail("%s", failure)
                                 : 0,
                    errhint(s ? "The worker leases a node from the registry's crid_node_leases at start; minting "
                                "begins once it holds one (crid_registry_status() shows it)."
                              : "Node leases need crid in shared_preload_libraries.")));
}

} // namespace crid::pg::snowflake
