// Converted sequences in plans. PostgreSQL 15 to 18 have no sequence access
// method, so nothing lets an extension decide what nextval() returns. crid's
// planner hook does it for every statement planned: before planning, it
// turns
//   nextval('seq')        into crid_sequence_nextval('seq')
//   currval('seq')        into crid_sequence_currval('seq')
//   lastval()             into crid_sequence_lastval()
//   an IDENTITY column's value (the rewriter's NextValueExpr) into
//                         crid_sequence_identity('seq')
// where 'seq' is a constant naming a converted sequence; the plan then
// depends on the sequence, so converting or reverting it plans the
// statement again. A name known only when the statement runs (nextval($1),
// nextval(text::regclass)) goes to crid's function too, which serves a
// sequence that is not converted as PostgreSQL's function would.
//
// A SQL function whose body names nextval(), currval() or lastval() is not
// inlined while crid plans (needs_fmgr_hook says a hook wants its calls,
// which PostgreSQL never inlines): its statement is planned, through this
// hook, when it runs.
//
// What the hook cannot see (COPY FROM into an IDENTITY column, nextval()
// called by C code) reaches the sequence itself, which
// conversion left at its MAXVALUE: an ERROR naming the sequence, never a
// plain value (docs/sequences.md).
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::sequences {

// From _PG_init when preloaded: the planner hook, chained after any other.
void install_plan_hook();

} // namespace crid::pg::sequences
