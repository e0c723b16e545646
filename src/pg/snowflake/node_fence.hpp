// The fence every snowflake id passes on a server that mints only for the
// nodes it holds in a registry (crid.registry set, or crid.node_id = 'lease'):
// which nodes it holds, until when (on the monotonic clock) its leases are
// safely held, and what backends tell a caller whose node is not held. The
// block reserver's lease rounds (worker/lease_rounds.hpp) write it; every
// snowflake id of a fenced server reads it (two atomic loads and a vDSO
// clock read). core/snowflake_lease.hpp has the argument.
#pragma once

#include "common/postgres_headers.hpp"

#include "core/clock.hpp"

extern "C" {
#include "storage/spin.h"
}

namespace crid::pg::snowflake {

inline constexpr int max_nodes = 65536;
inline constexpr uint32 no_node = UINT32_MAX;

struct NodeFence {
    // 1 when this server mints snowflake ids only for nodes it holds: with
    // crid.registry set, or crid.node_id = 'lease'.
    pg_atomic_uint32 fenced;
    pg_atomic_uint32 leased_node;    // crid.node_id = 'lease': the node held, or no_node
    pg_atomic_uint64 valid_until_ns; // held leases are safe until then (monotonic)
    pg_atomic_uint64 renewed_at_ns;  // when the last successful renewal was sent (monotonic)
    pg_atomic_uint64 renewals;       // successful renewal rounds
    pg_atomic_uint64 acquisitions;   // nodes taken
    pg_atomic_uint64 losses;         // held nodes found taken over
    pg_atomic_uint64 failures;       // failed lease rounds
    pg_atomic_uint32 held[max_nodes / 32];

    slock_t lock;         // guards the text below
    char token[24];       // this postmaster's lease token (random, made at its start, kept across crash restarts)
    char holder[256];     // this server in crid_node_leases: host:port data directory (system identifier)
    char refused[512];    // a wanted node another live server holds, and who ("" for none)
    char waiting[256];    // a node taken but not minted on yet, until when ("" for none)
    char failure[512];    // the last failed lease round ("" after a success)
    int64 lease_until_ms; // the registry's lease_until of the last renewal, Unix ms
    int64 ttl_ms;         // crid.node_lease_ttl as the last round used it, for messages
};

// Shared memory for it: from shmem_request_hook, then in the postmaster at
// start and after every crash. A fenced server (`fenced`) mints nothing
// until the worker holds its nodes: decided here, before any backend can.
void request_fence();
void startup_fence(bool fenced);
NodeFence *fence() noexcept;

inline bool held(const NodeFence *s, int64_t node) noexcept {
    return (pg_atomic_read_u32(const_cast<pg_atomic_uint32 *>(&s->held[node >> 5])) >> (node & 31)) & 1;
}

// ERROR 55000 saying why `node` is not safely held now.
[[noreturn]] void raise_not_held(int64_t node);

// After a snowflake id of `node` was claimed and before it is returned: ERROR
// 55000 unless this server is not fenced or safely holds the node.
inline void check_minted(int64_t node) {
    NodeFence *s = fence();
    if (!s || !pg_atomic_read_u32(&s->fenced))
        return;
    if (!held(s, node) || core::monotonic_ns() >= int64_t(pg_atomic_read_u64(&s->valid_until_ns)))
        raise_not_held(node);
}

// crid.node_id = 'lease': the node held, or ERROR 55000 saying why none is.
int leased_node_or_error();

// What a backend's error may quote of the worker's last failure, which may
// name the registry's host and user: the registry's room, which knows who
// may see them, sets the filter at load; without one the text stays.
using TextFilter = void (*)(char *text, size_t size);
void set_text_filter(TextFilter filter);

} // namespace crid::pg::snowflake
