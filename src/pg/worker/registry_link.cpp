#include "worker/registry_link.hpp"

#include "registry/registry_settings.hpp"
#include "worker/worker_shared.hpp"

#include "core/clock.hpp"
#include "core/time_units.hpp"

namespace crid::pg::worker {

using registry::Found;
using registry::local_session;
using registry::remote;
using registry::remote_session;

namespace {

Location location;
bool location_known = false;

} // namespace

Session &session() { return remote() ? remote_session() : local_session(); }

const Location *located(Stop &stop) {
    if (location_known)
        return &location;
    // The catalog queries of locate() name nothing of crid's: no schema to check.
    if (!remote())
        registry::pin_local_schema(nullptr, nullptr);
    switch (registry::locate(session(), location, stop.why)) {
    case Found::ok:
        location_known = true;
        if (!remote())
            registry::pin_local_schema(location.schema_oid, location.schema);
        note_registry_names(location.table, location.state);
        return &location;
    case Found::no_extension:
        stop = Stop{WorkerState::no_extension, stop.why, false};
        stop.why.sqlstate = 0;
        return nullptr;
    case Found::bad_table:
        stop = Stop{WorkerState::bad_table, stop.why, false};
        return nullptr;
    case Found::outdated:
        stop = Stop{WorkerState::outdated, stop.why, false};
        return nullptr;
    case Found::failed:
        break;
    }
    forget_location();
    stop = Stop{WorkerState::failing, stop.why, true};
    return nullptr;
}

void forget_location() { location_known = false; }

bool run(Statement *statements, int count, bool commit, Failure &failure) {
    WorkerStatus *s = status();
    Session &registry = session();
    int64_t t0 = core::monotonic_ns();
    pg_atomic_write_u64(&s->round_started_ns, uint64(t0));
    bool ok = registry.run(statements, count, commit, failure);
    pg_atomic_write_u64(&s->round_started_ns, 0);
    uint64 us = uint64((core::monotonic_ns() - t0) / core::ns_per_us);
    pg_atomic_fetch_add_u64(&s->round_trips, 1);
    pg_atomic_write_u64(&s->last_us, us);
    if (!ok)
        forget_location();
    return ok;
}

void report_stop(const Stop &stop) {
    if (stop.counted)
        pg_atomic_fetch_add_u64(&status()->failures, 1);
    bool unreachable = stop.state == WorkerState::failing && stop.why.lost && session().remote();
    report(unreachable ? WorkerState::unreachable : stop.state, stop.why.sqlstate, stop.why.message);
}

void report_reached() {
    WorkerState state = state_now().state;
    if (state == WorkerState::connecting || state == WorkerState::unreachable || state == WorkerState::no_extension ||
        state == WorkerState::bad_table || state == WorkerState::outdated)
        report(WorkerState::serving, 0, nullptr);
}

} // namespace crid::pg::worker
