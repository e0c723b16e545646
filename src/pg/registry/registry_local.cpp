// The local registry: crid.registry_database on this server, reached through
// SPI by the worker connected to it. Each batch is a transaction of the
// worker's own; an ERROR inside is caught here and rolls it back.
#include "registry/registry_session.hpp"

#include "registry/registry_settings.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "pgstat.h"
#include "utils/snapmgr.h"
}

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace crid::pg::registry {

namespace {

class LocalSession final : public Session {
  public:
    bool run(Statement *statements, int count, bool commit, Failure &failure) override;
    bool finish(bool commit, Failure &failure) override;
    const char *name() const override;
    bool remote() const override { return false; }

  private:
    bool open_ = false;
};

} // namespace

void execute_here(Statement &s) {
    Oid types[max_params];
    Datum values[max_params];
    for (int i = 0; i < s.nparams; ++i) {
        types[i] = TEXTOID;
        values[i] = CStringGetTextDatum(s.params[i]);
    }
    // Not read-only: every statement takes a new snapshot, so a statement
    // after a LOCK sees what the lock waited for.
    int rc = SPI_execute_with_args(s.sql, s.nparams, types, values, nullptr, false, 0);
    if (rc < 0)
        elog(ERROR, "crid: a registry statement failed to run (SPI code %d)", rc);
    s.rows = int64_t(SPI_processed);
    if (!s.sink || !SPI_tuptable)
        return;
    int columns = SPI_tuptable->tupdesc->natts;
    const char *row[16];
    if (columns > 16)
        elog(ERROR, "crid: a registry statement returned %d columns", columns);
    for (uint64 r = 0; r < SPI_processed; ++r) {
        for (int c = 0; c < columns; ++c)
            row[c] = SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, c + 1);
        s.sink(s.context, columns, row);
    }
}

namespace {

// The schema every local batch checks first (pin_local_schema).
char pinned_oid[16] = "";
char pinned_name[NAMEDATALEN] = "";

void check_pinned_schema() {
    if (!pinned_oid[0])
        return;
    Oid types[1] = {OIDOID};
    Datum values[1] = {ObjectIdGetDatum(Oid(std::strtoul(pinned_oid, nullptr, 10)))};
    int rc = SPI_execute_with_args("SELECT n.nspname::pg_catalog.text FROM pg_catalog.pg_namespace n"
                                   " WHERE n.oid OPERATOR(pg_catalog.=) $1 FOR SHARE OF n",
                                   1, types, values, nullptr, false, 0);
    if (rc != SPI_OK_SELECT)
        elog(ERROR, "crid: the check of the registry's schema failed to run (SPI code %d)", rc);
    char *now = SPI_processed == 1 ? SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1) : nullptr;
    if (now == nullptr || std::strcmp(now, pinned_name) != 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("crid: schema \"%s\" of the registry, where crid's functions are, was %s", pinned_name,
                               now ? "renamed" : "dropped"),
                        now ? errdetail("It is named \"%s\" now; the worker never calls a function through a name "
                                        "another schema could have taken.",
                                        now)
                            : 0));
}

// One batch in the worker's open transaction (begun when none is), its rows
// to the sinks, committed when `commit`; an ERROR aborts the transaction.
struct LocalBatch {
    bool *open;
    Statement *statements;
    int count;
    bool commit;
};

void run_batch(void *p) {
    auto *b = static_cast<LocalBatch *>(p);
    if (!*b->open) {
        SetCurrentStatementStartTimestamp();
        StartTransactionCommand();
        SPI_connect();
        PushActiveSnapshot(GetTransactionSnapshot());
        pgstat_report_activity(STATE_RUNNING, "reserving in the crid registry");
        *b->open = true;
    }
    check_pinned_schema();
    for (int i = 0; i < b->count; ++i)
        execute_here(b->statements[i]);
    if (b->commit) {
        SPI_finish();
        PopActiveSnapshot();
        CommitTransactionCommand();
        pgstat_report_activity(STATE_IDLE, nullptr);
        *b->open = false;
    }
}

void abort_batch(void *p) {
    AbortCurrentTransaction();
    pgstat_report_activity(STATE_IDLE, nullptr);
    *static_cast<LocalBatch *>(p)->open = false;
}

bool LocalSession::run(Statement *statements, int count, bool commit, Failure &failure) {
    LocalBatch batch{&open_, statements, count, commit};
    const SessionHooks &hooks = session_hooks();
    if (hooks.local_batch)
        hooks.local_batch(true);
    bool ok = run_catching(run_batch, &batch, failure, abort_batch);
    if (hooks.local_batch)
        hooks.local_batch(false);
    return ok;
}

bool LocalSession::finish(bool commit, Failure &failure) {
    if (!open_)
        return true;
    if (commit)
        return run(nullptr, 0, true, failure);
    AbortCurrentTransaction(); // also drops SPI's and the snapshot's state
    pgstat_report_activity(STATE_IDLE, nullptr);
    open_ = false;
    return true;
}

const char *LocalSession::name() const { return registry_name(); }

LocalSession local;

} // namespace

Session &local_session() { return local; }

void pin_local_schema(const char *oid, const char *name) {
    std::snprintf(pinned_oid, sizeof pinned_oid, "%s", oid ? oid : "");
    std::snprintf(pinned_name, sizeof pinned_name, "%s", name ? name : "");
}

} // namespace crid::pg::registry
