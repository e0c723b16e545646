#include "marks/registry_mark.hpp"

#include "common/boundary.hpp"
#include "common/shared_struct.hpp"
#include "marks/mark_io.hpp"

#include "core/marks.hpp"
#include "core/time_units.hpp"

extern "C" {
#include "storage/lwlock.h"
}

#include <cstdio>

namespace crid::pg::marks {

namespace {

struct MarkShared {
    pg_atomic_uint32 refusal; // Refusal: read by every crid id
    LWLock *lock;             // one writer of the file at a time; guards the fields below
    RegistryMarkState mark;
    char detail[512]; // why the mark is refused (set with the refusal, never changed while it stands)
};

MarkShared *shared = nullptr;
constexpr const char *lock_tranche = "crid registry mark";
constexpr const char *file_name = "crid_registry_mark";
constexpr const char *temp_name = "crid_registry_mark.tmp";

// Writes the mark and records it in shared memory (lock held).
void write_mark(int64_t unix_s, int64_t sequence) {
    char text[256];
    pg::guarded([&] {
        std::snprintf(text, sizeof text, "%s",
                      core::marks::format(core::marks::RegistryMark{unix_s, sequence}).c_str());
    });
    write_mark_file(file_name, temp_name, text);
    shared->mark.known = true;
    shared->mark.unix_s = unix_s;
    shared->mark.sequence = sequence;
}

// The second and sequence of the file's text; throws core::Error for damage.
void parse(const char *text, int64_t &unix_s, int64_t &sequence) {
    core::marks::RegistryMark m = core::marks::parse_registry_mark(text);
    unix_s = m.unix_s;
    sequence = m.sequence;
}

void read_at_start() {
    char text[512], why[512] = "";
    ReadResult r = read_mark_file(file_name, text, sizeof text, why, sizeof why);
    if (r == ReadResult::missing)
        return;
    int64_t unix_s = 0, sequence = 0;
    pg::CaughtError error;
    if (r == ReadResult::read && !pg::attempt([&] { parse(text, unix_s, sequence); }, error))
        std::snprintf(why, sizeof why, "%s", error.message);
    if (why[0]) {
        std::snprintf(shared->detail, sizeof shared->detail, "%s", why);
        pg_atomic_write_u32(&shared->refusal, uint32(Refusal::mark_damaged));
        warn_damaged(file_name, "crid ids", why);
        return;
    }
    shared->mark.known = true;
    shared->mark.unix_s = unix_s;
    shared->mark.sequence = sequence;
}

} // namespace

void request_registry_mark() {
    RequestAddinShmemSpace(sizeof(MarkShared));
    RequestNamedLWLockTranche(lock_tranche, 1);
}

void startup_registry_mark() {
    bool created = false;
    shared = shared_struct<MarkShared>("crid registry mark", created);
    if (!created)
        return;
    pg_atomic_init_u32(&shared->refusal, uint32(Refusal::none));
    shared->lock = &GetNamedLWLockTranche(lock_tranche)[0].lock;
    shared->mark = RegistryMarkState{};
    read_at_start();
}

RegistryMarkState registry_mark() {
    LWLockAcquire(shared->lock, LW_SHARED);
    RegistryMarkState m = shared->mark;
    LWLockRelease(shared->lock);
    return m;
}

void cover_registry_mark(int64_t unix_s, int64_t sequence) {
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    if (!shared->mark.known || unix_s > shared->mark.unix_s)
        write_mark(unix_s, sequence);
    LWLockRelease(shared->lock);
}

int64_t reset_registry_mark(int64_t at_unix_ms, bool force) {
    int64_t at_s = core::floor_div(at_unix_ms, core::ms_per_s);
    LWLockAcquire(shared->lock, LW_EXCLUSIVE);
    bool damaged = registry_mark_refusal() == Refusal::mark_damaged;
    if (damaged || force || !shared->mark.known || at_s > shared->mark.unix_s)
        write_mark(at_s, 0);
    int64_t held_s = shared->mark.unix_s;
    shared->mark.generation++;
    pg_atomic_write_u32(&shared->refusal, uint32(Refusal::none));
    LWLockRelease(shared->lock);
    return held_s;
}

Refusal registry_mark_refusal() noexcept {
    return shared ? Refusal(pg_atomic_read_u32(&shared->refusal)) : Refusal::none;
}

void raise_registry_mark_refusal() { raise_damaged(file_name, "crid ids", "crid id", shared->detail); }

} // namespace crid::pg::marks
