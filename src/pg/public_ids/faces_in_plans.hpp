// Faces folded into plans. The face functions are IMMUTABLE (a key id's
// secret never changes), so the planner computes a face of constants once,
// when it plans, and a cached plan hands the value to whoever runs it
// later. Yet whether a face may be computed depends on the role: a plan
// made as one role (inside a SECURITY DEFINER function, before SET ROLE)
// must not hand a face to another role, nor a plan made before a REVOKE
// outlive it. So a plan whose making used a key is marked as depending on
// the role, as row security marks its plans (PlannedStmt.dependsOnRole):
// PostgreSQL plans it again when another role runs it. A plan so marked
// that runs while another is planned (a function folded at plan time runs
// the plans it cached) marks that one too. And once a backend made such a
// plan, a change of role membership drops its cached plans.
//
// What PostgreSQL folds outside the planner is not marked: a domain's CHECK
// (the type cache) and an index's predicate or expression (the relation
// cache) are computed once per backend for every role (docs/security.md).
//
// The mark needs crid's planner hook around the planning, which a backend
// has from the moment it loads crid: always, when crid is preloaded (as its
// minting requires); otherwise the statement during whose planning the
// backend loads crid is planned without the mark (docs/security.md).
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::public_ids {

// From _PG_init: the planner and executor-start hooks, chained after any
// other.
void install_plan_hooks();

extern int planning_depth;
extern bool key_used_while_planning;

// A face function used a key: marks the plan being made, if any (inline:
// every row's face calls it).
inline void note_key_use() {
    if (planning_depth > 0)
        key_used_while_planning = true;
}

// Role membership changed: drops this backend's cached plans if it ever
// folded a face into one.
void forget_plans_with_faces();

} // namespace crid::pg::public_ids
