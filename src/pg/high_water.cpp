#include "high_water.hpp"

#include "boundary.hpp"
#include "shared_memory.hpp"
#include "snowflake_settings.hpp"

extern "C" {
#include "storage/fd.h"
}

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace crid::pg::high_water {

namespace {

constexpr const char *file_name = "crid_high_water";
constexpr const char *temp_name = "crid_high_water.tmp";

// How far ahead of an id the mark is written: half of crid.clock_borrow_ms,
// between 50 ms and 1 s. After a crash, ids resume at the mark, up to that
// far ahead of the clock; keeping it inside the borrow window lets a restarted
// server mint at once, at the price of a write every lead_ms while minting.
int64_t lead_ms() {
    int64_t half_borrow = snowflake::current_policy().borrow_ms / 2;
    return half_borrow < 50 ? 50 : half_borrow > 1000 ? 1000 : half_borrow;
}

// The server layout in the words of the file's second line.
void layout_line(char (&out)[256]) {
    const core::snowflake::Layout &layout = snowflake::server_layout();
    pg::guarded([&] { std::snprintf(out, sizeof out, "%s", core::snowflake::describe(layout).c_str()); });
}

void write_high_water(int64_t unix_ms) {
    char layout[256], text[300];
    layout_line(layout);
    int len = std::snprintf(text, sizeof text, "%lld\n%s\n", static_cast<long long>(unix_ms), layout);
    int fd = OpenTransientFile(temp_name, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not create \"%s\": %m", temp_name)));
    errno = 0;
    if (write(fd, text, len) != len) {
        if (errno == 0)
            errno = ENOSPC;
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not write \"%s\": %m", temp_name)));
    }
    if (pg_fsync(fd) != 0)
        ereport(data_sync_elevel(ERROR), (errcode_for_file_access(), errmsg("could not fsync \"%s\": %m", temp_name)));
    if (CloseTransientFile(fd) != 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not close \"%s\": %m", temp_name)));
    durable_rename(temp_name, file_name, ERROR);
}

} // namespace

int64_t read() {
    FILE *f = AllocateFile(file_name, "r");
    if (!f) {
        if (errno == ENOENT)
            return -1;
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not open \"%s\": %m", file_name)));
    }
    long long value = -1;
    char written_layout[256] = "";
    int fields = std::fscanf(f, "%lld %255s", &value, written_layout);
    FreeFile(f);
    if (fields != 2 || value < 0)
        ereport(ERROR,
                (errcode(ERRCODE_DATA_CORRUPTED), errmsg("snowflake high-water file \"%s\" is corrupt", file_name),
                 errhint("It holds the last millisecond snowflake ids may have used and their layout. Write "
                         "a Unix millisecond at least as late as the newest id, and the layout line of "
                         "snowflake_layout(), into it to start again.")));
    // Ids of another layout are not comparable with this one's: a narrower
    // time shift makes new ids smaller than, or equal to, old ones.
    char layout[256];
    layout_line(layout);
    if (std::strcmp(layout, written_layout) != 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the snowflake layout changed: ids were minted as \"%s\", this server is set to \"%s\"",
                               written_layout, layout),
                        errhint("New ids could be smaller than, or equal to, ids minted before. Restore the old "
                                "crid.snowflake_* settings, or, when no old id must stay unique against new ones, "
                                "remove \"%s\" from the data directory.",
                                file_name)));
    return value;
}

uint64_t snowflake_state_after_restart(int64_t high_water_ms) {
    const core::snowflake::Layout &layout = snowflake::server_layout();
    return pg::guarded([&] { return core::snowflake::state_after_restart(layout, high_water_ms); });
}

void ensure(int64_t unix_ms) {
    SharedState *shared = shared_state();
    if (int64_t(pg_atomic_read_u64(&shared->snowflake_persisted_ms)) >= unix_ms)
        return;
    LWLockAcquire(shared->snowflake_persist_lock, LW_EXCLUSIVE);
    // Another backend may have written while we waited for the lock.
    if (int64_t(pg_atomic_read_u64(&shared->snowflake_persisted_ms)) < unix_ms) {
        int64_t mark = unix_ms + lead_ms();
        write_high_water(mark);
        pg_atomic_write_u64(&shared->snowflake_persisted_ms, uint64(mark));
        pg_atomic_fetch_add_u64(&shared->snowflake_persists, 1);
    }
    LWLockRelease(shared->snowflake_persist_lock);
}

} // namespace crid::pg::high_water
