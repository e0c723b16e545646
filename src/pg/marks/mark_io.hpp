// Reading and writing the small mark files of the data directory
// (crid_high_water, crid_registry_mark; see core/marks.hpp for their text).
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::marks {

enum class ReadResult {
    missing,    // no such file: nothing was ever minted that it must cover
    read,       // `text` holds the file, NUL-terminated
    unreadable, // an I/O error or a file too large for a mark; `why` says which
};

// Reads a file of the data directory into `text` (at most size - 1 bytes).
// Never raises an ERROR: at server start a damaged file must not stop the
// server, only the minting that depends on it.
ReadResult read_mark_file(const char *name, char *text, size_t size, char *why, size_t why_size);

// Replaces the file with `text` durably: written to a temporary file,
// fsynced, renamed over the old one. ERROR (PANIC for a failed fsync when
// data_sync_retry is off) when it cannot.
void write_mark_file(const char *name, const char *temp_name, const char *text);

// What a damaged mark file means, in the words every family uses: a WARNING
// at start naming what is refused, and the ERROR 55000 each refused call
// raises. `ids` names the refused ids ("snowflake ids", "crid ids"),
// `newest` the id the repair time must not precede ("snowflake id").
void warn_damaged(const char *name, const char *ids, const char *detail);
[[noreturn]] void raise_damaged(const char *name, const char *ids, const char *newest, const char *detail);

} // namespace crid::pg::marks
