// The exception boundary between C++ and PostgreSQL.
//
// PostgreSQL reports errors with longjmp and C++ with exceptions; neither may
// cross the other. Every SQL-callable function, hook and callback therefore
// follows one pattern:
//   1. read arguments with PostgreSQL macros (which may ereport) while no C++
//      object with a destructor is alive;
//   2. run C++ through guarded(), which catches every exception, copies its
//      message into a fixed buffer and raises ereport only after the catch
//      block has closed;
//   3. build the result Datum with PostgreSQL again.
// Nothing inside a guarded() body may call a PostgreSQL function that can
// ereport.
#pragma once

#include "common/postgres_headers.hpp"

#include "core/error.hpp"

#include <type_traits>
#include <utility>

namespace crid::pg {

// What a caught exception leaves behind: plain bytes only, so raising it
// later needs no C++ object to be destroyed.
struct CaughtError {
    int sqlstate;
    char message[512];
    char hint[512];
};

// Fills `out` from the exception being handled. Call only inside a catch.
void capture_current_exception(CaughtError &out) noexcept;

// ereport(ERROR) from a captured exception; never returns.
[[noreturn]] void raise_caught(const CaughtError &e);

// Runs `body` and returns its result, turning any C++ exception into an
// ERROR with the matching SQLSTATE.
template <class Body>
auto guarded(Body &&body) -> decltype(body()) {
    CaughtError caught;
    try {
        return std::forward<Body>(body)();
    } catch (...) {
        capture_current_exception(caught);
    }
    raise_caught(caught);
}

// Runs `body`; on a C++ exception returns false with it in `error` instead of
// raising it, for callers that must carry on (the background worker records
// the message for waiting backends and retries).
template <class Body>
bool attempt(Body &&body, CaughtError &error) noexcept {
    try {
        std::forward<Body>(body)();
        return true;
    } catch (...) {
        capture_current_exception(error);
        return false;
    }
}

// The other direction, for callers that must carry on after a PostgreSQL
// ERROR (the background worker records it and retries; WAL replay warns):
// runs `step(context)` and, when it raises, copies the ERROR into `error`,
// flushes it, restores the caller's memory context, runs `after_error(context)`
// when given (to abort a transaction, drop a connection) and returns false.
// `step` must keep no C++ object with a destructor alive across a call that
// can raise.
bool catch_pg_error(void (*step)(void *), void *context, CaughtError &error, void (*after_error)(void *) = nullptr);

} // namespace crid::pg
