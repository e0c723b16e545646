// One small interface between the block reserver's reservation logic and the
// registry it talks to, so that logic is written once: the local registry
// (crid.registry_database on this server, through SPI) and a remote one
// (crid.registry, through libpq) run the same statements with the same
// meaning.
//
// Statements take text parameters ($n, cast in the SQL: $1::pg_catalog.int8)
// and hand their rows to a sink as text. A batch runs in one transaction; a
// remote registry gets a whole batch, COMMIT included, in one round trip
// (libpq's pipeline mode), and a block counts as reserved only once the
// COMMIT returned.
//
// Neither implementation raises an ERROR or throws to its caller: failures
// come back as a Failure, the transaction rolled back. Objects here hold
// plain bytes only, so an ERROR caught inside never unwinds C++ destructors.
#pragma once

#include "common/postgres_headers.hpp"

#include <initializer_list>

namespace crid::pg::registry {

inline constexpr int max_params = 12;

// Called for every row a statement returns: values[i] is NULL for a SQL
// NULL. Runs while PostgreSQL or libpq owns the values, so it copies what it
// keeps; it must neither raise an ERROR nor throw.
using RowSink = void (*)(void *context, int columns, const char *const *values) noexcept;

struct Statement {
    const char *sql = nullptr; // every name and operator schema-qualified
    int nparams = 0;
    const char *params[max_params] = {};
    RowSink sink = nullptr;
    void *context = nullptr;
    int64_t rows = 0; // out: rows returned, or changed when nothing is returned

    // Fills the statement: its SQL, its parameters (text, or null for
    // NULL), and where its rows go.
    void set(const char *text, std::initializer_list<const char *> values, RowSink row_sink = nullptr,
             void *row_context = nullptr) noexcept {
        sql = text;
        nparams = 0;
        for (const char *v : values)
            if (nparams < max_params)
                params[nparams++] = v;
        sink = row_sink;
        context = row_context;
    }
};

struct Failure {
    int sqlstate = 0; // MAKE_SQLSTATE encoding; 0 when the registry sent none
    char message[512] = "";
    bool lost = false;    // a remote connection is gone (or was given up): reconnect
    bool timeout = false; // the registry did not answer within crid.registry_timeout
};

class Session {
  public:
    // BEGIN (unless run() left a transaction open), the statements in order
    // and, when `commit`, COMMIT. True when each ran and, with `commit`, the
    // COMMIT returned; false with `failure` filled and nothing left open.
    virtual bool run(Statement *statements, int count, bool commit, Failure &failure) = 0;
    // Ends the transaction run() left open: COMMIT when `commit`, else ROLLBACK.
    virtual bool finish(bool commit, Failure &failure) = 0;
    // The registry in messages: `database "app"`, or `the registry at
    // host=... port=... dbname=...` (never a password).
    virtual const char *name() const = 0;
    virtual bool remote() const = 0;

  protected:
    ~Session() = default;
};

// Fills a failure from text (for conditions found by the caller).
void set_failure(Failure &failure, int sqlstate, const char *format, ...) pg_attribute_printf(3, 4);

// catch_pg_error() (common/boundary.hpp) with the ERROR in `failure`: false
// when step(context) raised one, after `after_error(context)` when given.
bool run_catching(void (*step)(void *), void *context, Failure &failure, void (*after_error)(void *) = nullptr);

// Runs one statement through SPI in the caller's transaction (SPI
// connected), its rows to the sink; an ERROR when it fails.
void execute_here(Statement &statement);

// The session of the local registry database (the worker is connected to it).
Session &local_session();

// From now on every batch of the local session first checks that schema
// `oid` (text) is still named `name`, and locks its row in pg_namespace
// until the batch's transaction ends, so it cannot be renamed meanwhile: the
// batch's statements name crid's functions in it, and PostgreSQL looks
// those names up as they run. Renamed, another schema could take the name,
// and its functions would run as the worker, a superuser: the batch fails
// instead, naming the schema. An empty `oid` checks nothing.
void pin_local_schema(const char *oid, const char *name);

// The session of the remote registry (crid.registry), connecting on first
// use (SessionHooks::remote_connection hears of each connection).
Session &remote_session();

// Bounds how long a remote registry may take to connect or answer from now
// on, below crid.registry_timeout (for the last batch at a planned exit).
void cap_timeout_ms(int ms);

// What a session asks of, and tells, the process that runs it. The registry
// worker installs them at its start, so this room never names the worker;
// a member left null is skipped.
struct SessionHooks {
    // A local batch (SPI) starts (true) or ends (false): meanwhile a SIGTERM
    // must end the process at once, as a lock wait there watches nothing
    // else.
    void (*local_batch)(bool running) = nullptr;
    // True once a planned exit was asked for: a wait on a remote registry
    // then ends at once, unless cap_timeout_ms() bounds the last batch.
    bool (*exit_requested)() = nullptr;
    // A remote connection was made (true) or dropped (false).
    void (*remote_connection)(bool open) = nullptr;
};
void set_session_hooks(const SessionHooks &hooks);
const SessionHooks &session_hooks();

} // namespace crid::pg::registry
