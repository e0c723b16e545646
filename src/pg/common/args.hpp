// Reading timestamptz and uuid arguments, with the checks every function needs.
// These ereport directly, so call them before any C++ object is alive.
#pragma once

#include "common/postgres_headers.hpp"

#include "core/uuid.hpp"

namespace crid::pg {

// Argument `n` as microseconds since 2000-01-01; ERROR 22004 for NULL and
// 22008 for ±infinity, naming `function`.
int64_t finite_timestamp_arg(FunctionCallInfo fcinfo, int n, const char *function);

// A Unix millisecond as a timestamptz; ERROR 22008 when a decoded id lies
// beyond what timestamptz holds (possible with wide custom layouts).
TimestampTz timestamptz_from_unix_ms(int64_t unix_ms);

// Argument `n` as a core UUID (the function must be STRICT or check NULL).
core::Uuid uuid_arg(FunctionCallInfo fcinfo, int n);

// A core UUID as a palloc'd uuid Datum.
Datum uuid_datum(const core::Uuid &u);

} // namespace crid::pg
