#include "public_ids/faces_in_plans.hpp"

extern "C" {
#include "optimizer/planner.h"
#include "utils/plancache.h"
}

namespace crid::pg::public_ids {

int planning_depth = 0;
bool key_used_while_planning = false;

namespace {

planner_hook_type previous_planner = nullptr;
bool folded_a_face = false;

// Only PostgreSQL calls and trivially destructible locals: an ERROR may
// leave through this frame. A planning that runs another (a function folded
// at plan time plans its own queries) marks both when the inner one used a
// key: the outer plan holds what the inner computed.
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
    PG_FINALLY();
    { --planning_depth; }
    PG_END_TRY();
    if (key_used_while_planning) {
        stmt->dependsOnRole = true;
        folded_a_face = true;
    }
    key_used_while_planning = outer_used || key_used_while_planning;
    return stmt;
}

} // namespace

void install_planner_hook() {
    previous_planner = planner_hook;
    planner_hook = plan;
}

void forget_plans_with_faces() {
    if (folded_a_face)
        ResetPlanCache();
}

} // namespace crid::pg::public_ids
