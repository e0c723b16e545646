// Reading SQL arguments, with the checks every function needs: a NULL where
// a value is required is ERROR 22004 naming the function and the argument
// (with `hint` when given: most often, that a NULL would yield a NULL id,
// which a DEFAULT would store silently). These ereport directly, so call them
// before any C++ object is alive. Functions that are STRICT read their
// arguments with the plain PG_GETARG macros.
#pragma once

#include "common/postgres_headers.hpp"

#include "core/uuid.hpp"

namespace crid::pg {

// ERROR 22004 when argument `n` is NULL: "function: name must not be NULL".
void require_not_null(FunctionCallInfo fcinfo, int n, const char *function, const char *name,
                      const char *hint = nullptr);

int32 required_int32(FunctionCallInfo fcinfo, int n, const char *function, const char *name,
                     const char *hint = nullptr);
int64 required_int64(FunctionCallInfo fcinfo, int n, const char *function, const char *name,
                     const char *hint = nullptr);
bool required_bool(FunctionCallInfo fcinfo, int n, const char *function, const char *name, const char *hint = nullptr);

// Argument `n` as microseconds since 2000-01-01; ERROR 22004 for NULL and
// 22008 for ±infinity, which no id can carry.
int64_t finite_timestamp_arg(FunctionCallInfo fcinfo, int n, const char *function);

// Argument `n` as a core UUID (the function must be STRICT, or have checked).
core::Uuid uuid_arg(FunctionCallInfo fcinfo, int n);

// A core UUID as a palloc'd uuid Datum.
Datum uuid_datum(const core::Uuid &u);

// A Unix millisecond as a timestamptz; ERROR 22008 when a decoded id lies
// beyond what timestamptz holds (possible with wide custom layouts).
TimestampTz timestamptz_from_unix_ms(int64_t unix_ms);

} // namespace crid::pg
