// A remote registry (crid.registry): the worker speaks libpq to it without
// ever blocking in libpq. Connecting, sending and reading wait on the
// worker's latch and the socket together, so SIGTERM, a shutdown and
// pg_terminate_backend() end the worker at once even when the registry
// hangs (a stopped server, a half-open connection); past
// crid.registry_timeout the connection is given up and made again.
//
// A batch goes out in one round trip: BEGIN, the statements and COMMIT in
// libpq's pipeline mode, then one Sync. A block counts as reserved only once
// the COMMIT answered COMMIT; anything else (an error, a ROLLBACK, a
// timeout, a lost connection) leaves what the batch reserved unused: a gap,
// never a repeat.
//
// A connection pooler may stand between (pgbouncer, in transaction or
// session mode): the worker keeps nothing on the server connection between
// its transactions. Settings are pinned inside each one (pinned_settings.hpp),
// statements are unnamed, and every check of the registry (its identity,
// timeline, clock) is computed by the statements themselves, so a
// transaction that lands on another server connection, or on a promoted
// standby behind the pooler, is judged as it runs.
#include "registry/registry_session.hpp"

#include "common/pg_compat.hpp"

#include "registry/pinned_settings.hpp"
#include "registry/registry_settings.hpp"

#include "core/clock.hpp"
#include "core/time_units.hpp"

#include "libpq-fe.h"

extern "C" {
#include "pgstat.h"
#include "storage/latch.h"
}

#include <cstdio>

namespace crid::pg::registry {

namespace {

class RemoteSession final : public Session {
  public:
    bool run(Statement *statements, int count, bool commit, Failure &failure) override;
    bool finish(bool commit, Failure &failure) override;
    const char *name() const override;
    bool remote() const override { return true; }
    void drop();

  private:
    bool connect(Failure &failure);
    bool exchange(Statement *statements, int count, bool begin, bool commit, Failure &failure);
    bool send_batch(Statement *statements, int count, bool begin, bool commit, Failure &failure);
    void roll_back_after_failure();
    bool guarded_exchange(Statement *statements, int count, bool begin, bool commit, Failure &failure);
    bool wait_socket(int events, int64_t deadline_ns, Failure &failure);
    bool flush(int64_t deadline_ns, Failure &failure);
    bool next_result(PGresult *&result, int64_t deadline_ns, Failure &failure);
    void lost(Failure &failure, const char *what);
    int64_t deadline() const;

    PGconn *conn_ = nullptr;
    bool open_ = false; // a transaction is open on the registry
};

RemoteSession remote_session_object;

int timeout_cap_ms = 0; // 0: crid.registry_timeout alone

int timeout_ms() {
    int ms = registry_timeout_ms();
    return timeout_cap_ms > 0 && timeout_cap_ms < ms ? timeout_cap_ms : ms;
}

int64_t RemoteSession::deadline() const { return core::monotonic_ns() + int64_t(timeout_ms()) * core::ns_per_ms; }

void RemoteSession::drop() {
    if (conn_)
        PQfinish(conn_); // non-blocking: a hung registry cannot hold it up
    conn_ = nullptr;
    open_ = false;
    if (session_hooks().remote_connection)
        session_hooks().remote_connection(false);
}

// libpq's message for the connection, on one line.
void copy_message(char *out, size_t size, const char *message) {
    std::snprintf(out, size, "%s", message ? message : "");
    for (char *c = out; *c; ++c)
        if (*c == '\n')
            *c = ' ';
    size_t n = std::strlen(out);
    while (n > 0 && out[n - 1] == ' ')
        out[--n] = '\0';
}

void RemoteSession::lost(Failure &failure, const char *what) {
    char message[400];
    copy_message(message, sizeof message, conn_ ? PQerrorMessage(conn_) : "");
    set_failure(failure, ERRCODE_CONNECTION_FAILURE, "%s %s%s%s", what, name(), message[0] ? ": " : "", message);
    failure.lost = true;
    drop();
}

// Waits until the socket is ready for `events`, the deadline passes (false,
// the connection given up) or an interrupt arrives: the latch wakes the
// wait, CHECK_FOR_INTERRUPTS ends the worker for SIGTERM.
bool RemoteSession::wait_socket(int events, int64_t deadline_ns, Failure &failure) {
    for (;;) {
        int64_t left_ns = deadline_ns - core::monotonic_ns();
        if (left_ns <= 0) {
            set_failure(failure, ERRCODE_CONNECTION_FAILURE,
                        "%s did not answer within crid.registry_timeout (%d ms); the worker connects again", name(),
                        timeout_ms());
            failure.lost = true;
            failure.timeout = true;
            drop();
            return false;
        }
        int rc = WaitLatchOrSocket(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH | events, PQsocket(conn_),
                                   long((left_ns + core::ns_per_ms - 1) / core::ns_per_ms),
                                   crid::pg::compat::wait_event_info(crid::pg::compat::Wait::registry));
        if (rc & WL_LATCH_SET) {
            ResetLatch(MyLatch);
            CHECK_FOR_INTERRUPTS();
            // A planned exit does not wait for a registry that hangs; the
            // connection goes with the batch it was in (unless this is the
            // last batch, at the exit itself, under its own short bound).
            bool (*exit_requested)() = session_hooks().exit_requested;
            if (exit_requested && exit_requested() && timeout_cap_ms == 0) {
                set_failure(failure, ERRCODE_ADMIN_SHUTDOWN, "the worker is exiting");
                failure.lost = true;
                drop();
                return false;
            }
        }
        if (rc & (WL_SOCKET_READABLE | WL_SOCKET_WRITEABLE))
            return true;
    }
}

bool RemoteSession::connect(Failure &failure) {
    const char *keywords[] = {"dbname", "fallback_application_name", "client_encoding", nullptr};
    const char *values[] = {conninfo(), "crid block reserver", "UTF8", nullptr};
    int64_t until = deadline();
    conn_ = PQconnectStartParams(keywords, values, 1);
    if (!conn_) {
        set_failure(failure, ERRCODE_OUT_OF_MEMORY, "out of memory connecting to %s", name());
        failure.lost = true;
        return false;
    }
    PostgresPollingStatusType status = PGRES_POLLING_WRITING;
    if (PQstatus(conn_) == CONNECTION_BAD)
        status = PGRES_POLLING_FAILED;
    while (status != PGRES_POLLING_OK) {
        if (status == PGRES_POLLING_FAILED) {
            // No password to give is a condition of its own (PQconnectionNeedsPassword).
            if (PQconnectionNeedsPassword(conn_)) {
                set_failure(failure, ERRCODE_INVALID_PASSWORD,
                            "cannot connect to %s: it asks for a password, and neither crid.registry nor the "
                            "server's ~/.pgpass gives one",
                            name());
                failure.lost = true;
                drop();
                return false;
            }
            lost(failure, "cannot connect to");
            return false;
        }
        if (!wait_socket(status == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE, until, failure))
            return false;
        status = PQconnectPoll(conn_);
    }
    if (PQsetnonblocking(conn_, 1) != 0 || PQenterPipelineMode(conn_) != 1) {
        lost(failure, "cannot use pipeline mode with");
        return false;
    }
    if (session_hooks().remote_connection)
        session_hooks().remote_connection(true);
    return true;
}

bool RemoteSession::flush(int64_t deadline_ns, Failure &failure) {
    for (;;) {
        int rc = PQflush(conn_);
        if (rc == 0)
            return true;
        if (rc < 0) {
            lost(failure, "lost the connection to");
            return false;
        }
        // Read meanwhile, or a server blocked on its own output could never
        // take ours.
        if (!wait_socket(WL_SOCKET_WRITEABLE | WL_SOCKET_READABLE, deadline_ns, failure))
            return false;
        if (!PQconsumeInput(conn_)) {
            lost(failure, "lost the connection to");
            return false;
        }
    }
}

bool RemoteSession::next_result(PGresult *&result, int64_t deadline_ns, Failure &failure) {
    while (PQisBusy(conn_)) {
        if (!wait_socket(WL_SOCKET_READABLE, deadline_ns, failure))
            return false;
        if (!PQconsumeInput(conn_)) {
            lost(failure, "lost the connection to");
            return false;
        }
    }
    result = PQgetResult(conn_);
    return true;
}

// The failure an error result reports, with the registry's SQLSTATE.
void record_error(PGresult *r, const char *registry, Failure &failure) {
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    const char *primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
    int code = state && std::strlen(state) == 5 ? MAKE_SQLSTATE(state[0], state[1], state[2], state[3], state[4])
                                                : ERRCODE_CONNECTION_FAILURE;
    set_failure(failure, code, "%s (in %s)", primary ? primary : PQresultErrorMessage(r), registry);
}

// A statement's result: its row count, and its rows into its sink.
void deliver_rows(Statement &s, PGresult *r, ExecStatusType status) {
    int rows = PQntuples(r), columns = PQnfields(r);
    s.rows = status == PGRES_TUPLES_OK ? rows : std::strtoll(PQcmdTuples(r), nullptr, 10);
    const char *row[16];
    if (!s.sink || columns > 16)
        return;
    for (int i = 0; i < rows; ++i) {
        for (int c = 0; c < columns; ++c)
            row[c] = PQgetisnull(r, i, c) ? nullptr : PQgetvalue(r, i, c);
        s.sink(s.context, columns, row);
    }
}

// Statements a batch sends before its own when it begins a transaction:
// the BEGIN and the pins.
constexpr int begin_statements = 2;

// Sends [BEGIN, the pins,] the statements [, COMMIT] and a Sync.
bool RemoteSession::send_batch(Statement *statements, int count, bool begin, bool commit, Failure &failure) {
    auto send = [&](const char *sql, int nparams, const char *const *params) {
        return PQsendQueryParams(conn_, sql, nparams, nullptr, params, nullptr, nullptr, 0) == 1;
    };
    bool sent = !begin || (send(remote_begin_sql(), 0, nullptr) && send(remote_pin_sql(), 0, nullptr));
    for (int i = 0; sent && i < count; ++i)
        sent = send(statements[i].sql, statements[i].nparams, statements[i].params);
    sent = sent && (!commit || send("COMMIT", 0, nullptr)) && PQpipelineSync(conn_) == 1;
    if (!sent)
        lost(failure, "could not send to");
    return sent;
}

// Sends the batch and reads every result up to the Sync. The first error is
// the failure; a transaction it left open is rolled back.
bool RemoteSession::exchange(Statement *statements, int count, bool begin, bool commit, Failure &failure) {
    int64_t until = deadline();
    if (!send_batch(statements, count, begin, commit, failure) || !flush(until, failure))
        return false;
    // Results arrive per query (each ended by a null result), then the Sync.
    int first_statement = begin ? begin_statements : 0, last = first_statement + count + (commit ? 1 : 0);
    int index = 0;
    bool failed = false, committed = !commit;
    for (;;) {
        PGresult *r = nullptr;
        Failure loss;
        if (!next_result(r, until, loss)) {
            // An error the registry (or a pooler) sent before the connection
            // went says more than the loss itself.
            if (failed) {
                failure.lost = loss.lost;
                failure.timeout = loss.timeout;
            } else {
                failure = loss;
            }
            return false;
        }
        if (!r) {
            ++index;
            continue;
        }
        ExecStatusType status = PQresultStatus(r);
        if (status == PGRES_PIPELINE_SYNC) {
            PQclear(r);
            break;
        }
        if (status == PGRES_FATAL_ERROR && !failed) {
            failed = true;
            record_error(r, name(), failure);
        } else if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
            if (index >= first_statement && index < first_statement + count)
                deliver_rows(statements[index - first_statement], r, status);
            else if (commit && index == last - 1)
                committed = std::strcmp(PQcmdStatus(r), "COMMIT") == 0; // a failed transaction answers ROLLBACK
        }
        PQclear(r);
    }
    open_ = begin ? !failed && !commit : open_ && !commit;
    if (!failed && !committed) {
        set_failure(failure, ERRCODE_TRANSACTION_ROLLBACK, "%s rolled the transaction back", name());
        failed = true;
    }
    if (failed) {
        roll_back_after_failure();
        // A standby refuses the BEGIN: connect again, for libpq's
        // target_session_attrs (or a pooler's new target) to find the primary.
        if (failure.sqlstate == ERRCODE_READ_ONLY_SQL_TRANSACTION)
            drop();
    }
    return !failed;
}

// A failed statement leaves the transaction aborted: roll it back, or start
// over with a new connection.
void RemoteSession::roll_back_after_failure() {
    if (conn_ && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
        Statement rollback;
        rollback.sql = "ROLLBACK";
        Failure ignored;
        if (!exchange(&rollback, 1, false, false, ignored))
            drop();
    }
    open_ = false;
}

bool RemoteSession::run(Statement *statements, int count, bool commit, Failure &failure) {
    return guarded_exchange(statements, count, true, commit, failure);
}

// exchange() (after connecting when needed) where an ERROR may interrupt the
// wait: a cancel (pg_cancel_backend) of the worker, after which the
// connection is in an unknown state, so it goes.
struct RemoteExchange {
    RemoteSession *session;
    Statement *statements;
    int count;
    bool begin, commit;
    Failure *failure;
    bool ok;
};

bool RemoteSession::guarded_exchange(Statement *statements, int count, bool begin, bool commit, Failure &failure) {
    RemoteExchange x{this, statements, count, begin, commit, &failure, false};
    pgstat_report_activity(STATE_RUNNING, "reserving in the remote crid registry");
    bool raised = !run_catching(
        [](void *p) {
            auto *x = static_cast<RemoteExchange *>(p);
            RemoteSession &s = *x->session;
            x->ok = (s.conn_ || s.connect(*x->failure)) &&
                    s.exchange(x->statements, x->count, x->begin && !s.open_, x->commit, *x->failure);
        },
        &x, failure,
        [](void *p) {
            auto *x = static_cast<RemoteExchange *>(p);
            x->failure->lost = true;
            x->session->drop();
        });
    pgstat_report_activity(STATE_IDLE, nullptr);
    return !raised && x.ok;
}

bool RemoteSession::finish(bool commit, Failure &failure) {
    if (!open_)
        return true;
    if (commit)
        return guarded_exchange(nullptr, 0, false, true, failure);
    Statement rollback;
    rollback.sql = "ROLLBACK";
    open_ = false;
    return guarded_exchange(&rollback, 1, false, false, failure);
}

const char *RemoteSession::name() const { return registry_name(); }

} // namespace

Session &remote_session() { return remote_session_object; }

void cap_timeout_ms(int ms) { timeout_cap_ms = ms; }

} // namespace crid::pg::registry
