// What a setting allows, in words, for the messages that refuse a value:
// PostgreSQL's own say what is wrong, but not always what would be right
// (a value it cannot read at all, such as '1 parsec', gets no range).
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg {

// "crid.block_size takes an integer from 1 to 2147483647." (with the unit of
// a time or size setting), "... is on or off.", "... is one of: server,
// backend." Empty for a string setting: its check hook says what it takes.
void describe_allowed(const char *name, char *out, size_t size);

} // namespace crid::pg
