// The clock policy every family that reads the wall clock shares:
// crid.clock_wait_ms (a step back this small is waited out) and
// crid.clock_borrow_ms (one this small continues on a logical clock ahead of
// the wall clock; the high-water mark is written half of it ahead of ids).
#pragma once

#include "common/postgres_headers.hpp"

#include "core/snowflake_generator.hpp"

namespace crid::pg {

// Defines the GUCs; called from _PG_init.
void define_clock_settings();

// Both settings as they are now (SIGHUP settings).
core::snowflake::Policy clock_policy();

} // namespace crid::pg
