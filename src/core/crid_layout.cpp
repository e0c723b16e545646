#include "crid_layout.hpp"

#include "error.hpp"
#include "gene.hpp"
#include "time_units.hpp"

#include <string>

namespace crid::core::crid_ids {

namespace {

// 9999-12-31 23:59:59 UTC: the last whole-second epoch a date can spell.
constexpr int64_t max_epoch_unix_ms = INT64_C(253402300799000);

// A Unix ms for messages ("2026-01-01 00:00:00.000+00").
std::string at(int64_t unix_ms) { return describe_unix_ms(unix_ms); }

// The Unix ms at which second ts begins, for any ts (no range check).
int64_t start_of(const Layout &l, int64_t ts) noexcept { return l.epoch_unix_ms + ts * ms_per_s; }

// The hint that explains the layout, for errors about the settings.
std::string layout_hint() {
    return "crid ids are ts << (63 - crid.timestamp_bits) | seq with ts in whole seconds since crid.epoch; "
           "31 timestamp bits (the default, as the Go crid library) last 68 years.";
}

} // namespace

Layout validate(Layout l) {
    if (l.timestamp_bits < min_timestamp_bits || l.timestamp_bits > max_timestamp_bits)
        throw Error(ErrorKind::invalid_parameter,
                    "crid.timestamp_bits is " + std::to_string(l.timestamp_bits) + ", outside " +
                        std::to_string(min_timestamp_bits) + " to " + std::to_string(max_timestamp_bits),
                    layout_hint() + " 28 bits last 8.5 years; 40 leave 23 sequence bits (8388608 ids a second).");
    if (l.epoch_unix_ms < 0 || l.epoch_unix_ms > max_epoch_unix_ms)
        throw Error(ErrorKind::invalid_parameter,
                    "crid.epoch (Unix ms " + std::to_string(l.epoch_unix_ms) +
                        ") is outside 1970-01-01 00:00:00 UTC to 9999-12-31 23:59:59 UTC",
                    layout_hint());
    if (floor_mod(l.epoch_unix_ms, ms_per_s) != 0)
        throw Error(ErrorKind::invalid_parameter, "crid.epoch " + at(l.epoch_unix_ms) + " is not a whole second",
                    "crid timestamps count whole seconds, and the Go crid library truncates its epoch to the "
                    "second; use an epoch without a fraction so both split seconds alike.");
    return l;
}

BitLayout id_bits(const Layout &l) {
    return BitLayout({{"timestamp", l.timestamp_bits}, {"sequence", l.sequence_bits()}});
}

int64_t max_ts(const Layout &l) noexcept { return int64_t(max_of_width(l.timestamp_bits)); }

int64_t sequence_space(const Layout &l) noexcept { return INT64_C(1) << l.sequence_bits(); }

int64_t pack(const Layout &l, int64_t ts, int64_t seq) {
    const int64_t values[] = {ts, seq};
    return int64_t(id_bits(l).pack(values, "crid", [] { return std::string(); }));
}

Parts unpack(const Layout &l, int64_t id) {
    if (id < 0)
        throw Error(ErrorKind::numeric_out_of_range,
                    "crid id " + std::to_string(id) + " is negative; crid ids are 0 to 9223372036854775807");
    int64_t v[2];
    id_bits(l).unpack(uint64_t(id), v);
    return Parts{.ts = v[0], .seq = v[1]};
}

int64_t ts_of_unix_ms(const Layout &l, int64_t unix_ms) {
    // Compared before subtracting, so no clock value can overflow the difference.
    if (unix_ms < l.epoch_unix_ms)
        throw Error(ErrorKind::datetime_out_of_range,
                    "time " + at(unix_ms) + " is before the crid epoch " + at(l.epoch_unix_ms),
                    "crid ids count seconds from crid.epoch; set an earlier epoch or check the clock.");
    int64_t ts = floor_div(unix_ms - l.epoch_unix_ms, ms_per_s);
    if (ts > max_ts(l))
        throw Error(ErrorKind::datetime_out_of_range,
                    "crid timestamp field overflow: time " + at(unix_ms) + " is past " +
                        at(start_of(l, max_ts(l)) + ms_per_s - 1) + ", the last second " +
                        std::to_string(l.timestamp_bits) + " timestamp bits hold from the crid epoch " +
                        at(l.epoch_unix_ms),
                    "Use more crid.timestamp_bits or a later crid.epoch (both change every id's meaning).");
    return ts;
}

int64_t unix_ms_of_ts(const Layout &l, int64_t ts) {
    if (ts < 0 || ts > max_ts(l))
        throw Error(ErrorKind::numeric_out_of_range, "crid timestamp " + std::to_string(ts) +
                                                         " is out of range (0 to " + std::to_string(max_ts(l)) + ")");
    return start_of(l, ts);
}

int64_t floor_id(const Layout &l, int64_t unix_ms) { return int64_t(id_bits(l).floor(ts_of_unix_ms(l, unix_ms))); }

BitField gene_field(int bits, int64_t gene, int64_t block_size) {
    BitField f = gene::field(bits, "crid_next", max_gene_bits,
                             "Each crid id with a gene of k bits uses up to 2^k sequence numbers of the registry (half "
                             "that on average), so k is at most 16.");
    if (int64_t(f.max()) >= block_size)
        throw Error(ErrorKind::invalid_parameter,
                    "crid_next: gene bits " + std::to_string(bits) + " need blocks of at least " +
                        std::to_string(f.max() + 1) + " ids, more than crid.block_size (" + std::to_string(block_size) +
                        ")",
                    "Raise crid.block_size, or use fewer gene bits.");
    gene::check_gene(f, gene, "crid_next");
    return f;
}

void check_allocation(const Layout &l, int64_t ts, int64_t block_size) {
    if (block_size < 1 || block_size > sequence_space(l))
        throw Error(ErrorKind::invalid_parameter,
                    "crid block size " + std::to_string(block_size) + " is outside 1 to " +
                        std::to_string(sequence_space(l)) + ", the ids one second holds",
                    "crid.block_size is how many ids one registry reservation covers (default 10000).");
    if (ts < 0 || ts > max_ts(l))
        throw Error(ErrorKind::numeric_out_of_range, "crid timestamp " + std::to_string(ts) +
                                                         " is out of range (0 to " + std::to_string(max_ts(l)) + ")");
}

ReservationSettings usable_settings(const Layout &l, int64_t block_size, int64_t threshold) noexcept {
    ReservationSettings r;
    r.block_size = block_size < 1 ? 1 : block_size > sequence_space(l) ? sequence_space(l) : block_size;
    r.block_size_clamped = r.block_size != block_size;
    r.threshold = threshold < 0 ? 0 : threshold > r.block_size ? r.block_size : threshold;
    r.threshold_clamped = r.threshold != threshold;
    return r;
}

void check_block_end(const Layout &l, int64_t ts, int64_t end) {
    if (end > sequence_space(l))
        throw Error(ErrorKind::numeric_out_of_range,
                    "crid sequence overflow for second " + std::to_string(ts) + ": the registry's next_seq reached " +
                        std::to_string(end) + ", past the " + std::to_string(sequence_space(l)) +
                        " ids one second holds",
                    "Too many ids were reserved in that second (the Go crid library fails the same way); the next "
                    "second starts a fresh sequence.");
}

Block block_of_allocation(const Layout &l, int64_t ts, int64_t block_size, int64_t next_seq) {
    check_allocation(l, ts, block_size);
    check_block_end(l, ts, next_seq);
    if (next_seq < block_size)
        throw Error(ErrorKind::internal,
                    "crid_allocations row for second " + std::to_string(ts) + " returned next_seq " +
                        std::to_string(next_seq) + ", below the block size " + std::to_string(block_size),
                    "next_seq only ever grows by whole blocks; the registry table was edited by hand.");
    return Block{.first_id = pack(l, ts, next_seq - block_size), .size = block_size};
}

int64_t evict_horizon_ts(const Layout &l, int64_t now_unix_ms, int64_t safety_seconds) {
    if (safety_seconds < 0)
        throw Error(ErrorKind::invalid_parameter,
                    "crid eviction safety margin " + std::to_string(safety_seconds) + " s is negative");
    if (now_unix_ms < l.epoch_unix_ms)
        return 0;
    int64_t now_ts = floor_div(now_unix_ms - l.epoch_unix_ms, ms_per_s);
    return now_ts > safety_seconds ? now_ts - safety_seconds : 0;
}

int64_t evict_bound_ts(const Layout &l, int64_t before_unix_ms, int64_t now_unix_ms, int64_t safety_seconds) {
    int64_t horizon = evict_horizon_ts(l, now_unix_ms, safety_seconds);
    if (before_unix_ms <= l.epoch_unix_ms)
        return 0;
    int64_t bound = floor_div(before_unix_ms - l.epoch_unix_ms, ms_per_s);
    if (bound > horizon)
        throw Error(ErrorKind::invalid_parameter,
                    "crid_evict(" + at(before_unix_ms) + ") is too recent: registry rows from " +
                        at(start_of(l, horizon)) + " on (the last " + std::to_string(safety_seconds) +
                        " seconds before now) are kept",
                    "A clock that steps back, or another node sharing the registry whose clock is behind, may "
                    "still reserve blocks in those seconds; without their rows the same ids would be handed out "
                    "again. Evict an older time.");
    return bound;
}

} // namespace crid::core::crid_ids
