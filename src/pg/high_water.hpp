// The server's high-water mark on disk (crid_high_water in the data
// directory): a Unix millisecond that no snowflake id and no server-ordered
// UUIDv7 of this server has passed, with the snowflake layout it was written
// under. Read once when shared memory is (re)built, and pushed ahead of the
// ids, about once a second, so a restart or crash resumes above every id
// handed out, even with the clock behind. Written with fsync and an atomic
// rename.
#pragma once

#include "postgres_headers.hpp"

namespace crid::pg::high_water {

// The mark on disk, or -1 when there is none yet. ERROR if it is unreadable.
int64_t read();

// The generator word every node starts from after a restart at that mark.
uint64_t snowflake_state_after_restart(int64_t high_water_ms);

// Makes sure the mark on disk is at least `unix_ms` before an id of that
// millisecond is returned; writes (and fsyncs) only when it must, then jumps
// the mark ahead so the next write is about a second away.
void ensure(int64_t unix_ms);

} // namespace crid::pg::high_water
