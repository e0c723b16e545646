// Snowflake layouts given as text (a preset name or a spelled-out layout):
// parsed once per backend for a run of calls with the same text, since one
// query usually decodes many ids of one layout, and the planner looks at the
// same constant again and again.
#pragma once

#include "common/postgres_headers.hpp"

#include "core/snowflake_layout.hpp"

#include <string_view>

namespace crid::pg::snowflake {

// The layout of `text`; throws core::Error for a bad one (call it inside
// guarded() or attempt()). The reference lasts until the next call.
const core::snowflake::Layout &layout_of_text(std::string_view text);

// The layout of text argument `n` of a SQL function, or the server's when the
// call has fewer arguments; ERROR for a NULL or a bad one.
const core::snowflake::Layout &layout_arg(FunctionCallInfo fcinfo, int n);

} // namespace crid::pg::snowflake
