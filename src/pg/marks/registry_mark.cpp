#include "marks/registry_mark.hpp"

#include "common/boundary.hpp"
#include "marks/mark_io.hpp"

#include "core/marks.hpp"
#include "core/time_units.hpp"

#include <cstdio>

namespace crid::pg::crid_ids::registry_mark {

namespace {

constexpr const char *file_name = "crid_registry_mark";
constexpr const char *temp_name = "crid_registry_mark.tmp";

// Writes the mark and records it in shared memory (mark_lock held).
void write_mark(CridShared *s, int64_t unix_s, int64_t sequence) {
    char text[256];
    pg::guarded([&] {
        std::snprintf(text, sizeof text, "%s",
                      core::marks::format(core::marks::RegistryMark{unix_s, sequence}).c_str());
    });
    mark_io::write(file_name, temp_name, text);
    s->mark_known = true;
    s->mark_unix_s = unix_s;
    s->mark_sequence = sequence;
}

// The second and sequence of the file's text; throws core::Error for damage.
void parse(const char *text, int64_t &unix_s, int64_t &sequence) {
    core::marks::RegistryMark m = core::marks::parse_registry_mark(text);
    unix_s = m.unix_s;
    sequence = m.sequence;
}

} // namespace

void load_at_start(CridShared *s) {
    s->mark_known = false;
    s->mark_unix_s = 0;
    s->mark_sequence = 0;
    s->mark_generation = 0;
    s->mark_detail[0] = '\0';
    pg_atomic_init_u32(&s->mark_refusal, uint32(Refusal::none));
    char text[512], why[512] = "";
    mark_io::ReadResult r = mark_io::read(file_name, text, sizeof text, why, sizeof why);
    if (r == mark_io::ReadResult::missing)
        return;
    int64_t unix_s = 0, sequence = 0;
    pg::CaughtError error;
    if (r == mark_io::ReadResult::read && !pg::attempt([&] { parse(text, unix_s, sequence); }, error))
        std::snprintf(why, sizeof why, "%s", error.message);
    if (why[0]) {
        std::snprintf(s->mark_detail, sizeof s->mark_detail, "%s", why);
        pg_atomic_write_u32(&s->mark_refusal, uint32(Refusal::mark_damaged));
        mark_io::warn_damaged(file_name, "crid ids", why);
        return;
    }
    s->mark_known = true;
    s->mark_unix_s = unix_s;
    s->mark_sequence = sequence;
}

void cover(int64_t unix_s, int64_t sequence) {
    CridShared *s = shared();
    LWLockAcquire(s->mark_lock, LW_EXCLUSIVE);
    if (!s->mark_known || unix_s > s->mark_unix_s)
        write_mark(s, unix_s, sequence);
    LWLockRelease(s->mark_lock);
}

int64_t reset(int64_t at_unix_ms, bool force) {
    CridShared *s = shared();
    int64_t at_s = core::floor_div(at_unix_ms, core::ms_per_s);
    LWLockAcquire(s->mark_lock, LW_EXCLUSIVE);
    bool damaged = Refusal(pg_atomic_read_u32(&s->mark_refusal)) == Refusal::mark_damaged;
    if (damaged || force || !s->mark_known || at_s > s->mark_unix_s)
        write_mark(s, at_s, 0);
    int64_t held_s = s->mark_unix_s;
    s->mark_generation++;
    pg_atomic_write_u32(&s->mark_refusal, uint32(Refusal::none));
    Latch *worker = s->worker_latch;
    LWLockRelease(s->mark_lock);
    if (worker)
        SetLatch(worker);
    return held_s;
}

void raise_refusal(CridShared *s) { mark_io::raise_damaged(file_name, "crid ids", "crid id", s->mark_detail); }

} // namespace crid::pg::crid_ids::registry_mark
