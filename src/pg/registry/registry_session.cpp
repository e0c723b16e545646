// What both sessions share: the failure they report, the ERROR guard they
// run PostgreSQL calls in, and the hooks of the process that runs them.
#include "registry/registry_session.hpp"

#include "common/boundary.hpp"

#include <cstdarg>
#include <cstdio>

namespace crid::pg::registry {

namespace {

SessionHooks hooks;

} // namespace

void set_failure(Failure &failure, int sqlstate, const char *format, ...) {
    failure.sqlstate = sqlstate;
    va_list args;
    va_start(args, format);
    std::vsnprintf(failure.message, sizeof failure.message, format, args);
    va_end(args);
}

bool run_catching(void (*step)(void *), void *context, Failure &failure, void (*after_error)(void *)) {
    CaughtError error;
    if (catch_pg_error(step, context, error, after_error))
        return true;
    set_failure(failure, error.sqlstate, "%s", error.message);
    return false;
}

void set_session_hooks(const SessionHooks &h) { hooks = h; }
const SessionHooks &session_hooks() { return hooks; }

} // namespace crid::pg::registry
