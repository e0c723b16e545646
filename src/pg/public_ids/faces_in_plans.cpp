#include "public_ids/faces_in_plans.hpp"

extern "C" {
#include "executor/executor.h"
#include "optimizer/planner.h"
#include "utils/plancache.h"
}

namespace crid::pg::public_ids {

int planning_depth = 0;
bool key_used_while_planning = false;

namespace {

planner_hook_type previous_planner = nullptr;
ExecutorStart_hook_type previous_executor_start = nullptr;
bool folded_a_face = false;

// Only PostgreSQL calls and trivially destructible locals: an ERROR may
// leave through this frame. A planning that runs another (a function folded
// at plan time plans its own queries) marks both when the inner one used a
// key: the outer plan holds what the inner computed. An ERROR the function
// catches (a PL/pgSQL EXCEPTION block) must not lose what the outer planning
// had seen before it.
PlannedStmt *plan(Query *parse, const char *query_string, int cursor_options, ParamListInfo bound_params) {
    const volatile bool outer_used = key_used_while_planning; // volatile: read after PG_TRY
    key_used_while_planning = false;
    ++planning_depth;
    PlannedStmt *stmt;
    PG_TRY();
    {
        stmt = previous_planner ? previous_planner(parse, query_string, cursor_options, bound_params)
                                : standard_planner(parse, query_string, cursor_options, bound_params);
    }
    PG_CATCH();
    {
        --planning_depth;
        key_used_while_planning = outer_used || key_used_while_planning;
        PG_RE_THROW();
    }
    PG_END_TRY();
    --planning_depth;
    if (key_used_while_planning) {
        stmt->dependsOnRole = true;
        folded_a_face = true;
    }
    key_used_while_planning = outer_used || key_used_while_planning;
    return stmt;
}

// A function folded at plan time may run a plan it cached earlier (PL/pgSQL
// keeps one per statement) instead of planning: a plan that depends on the
// role, run while planning, is a face the outer plan may hold, although no
// key is used now. Conservative: row security marks plans the same way.
void executor_start(QueryDesc *query, int eflags) {
    if (planning_depth > 0 && query->plannedstmt->dependsOnRole)
        key_used_while_planning = true;
    if (previous_executor_start)
        previous_executor_start(query, eflags);
    else
        standard_ExecutorStart(query, eflags);
}

} // namespace

void install_plan_hooks() {
    previous_planner = planner_hook;
    planner_hook = plan;
    previous_executor_start = ExecutorStart_hook;
    ExecutorStart_hook = executor_start;
}

void forget_plans_with_faces() {
    if (folded_a_face)
        ResetPlanCache();
}

} // namespace crid::pg::public_ids
