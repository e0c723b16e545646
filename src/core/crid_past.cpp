#include "crid_past.hpp"

#include "error.hpp"
#include "time_units.hpp"

#include <string>

namespace crid::core::crid_ids {

namespace {

// "2026-03-01 12:00:05.000+00 (registry ts 5227205)"; a ts outside the
// layout (from a hand-made call) by its number alone.
std::string second(const Layout &l, int64_t ts) {
    if (ts < 0 || ts > max_ts(l))
        return "registry ts " + std::to_string(ts);
    return describe_unix_ms(l.epoch_unix_ms + ts * ms_per_s) + " (registry ts " + std::to_string(ts) + ")";
}

} // namespace

int64_t reserve_ts(const Layout &l, int64_t unix_ms, int64_t n) {
    int64_t ts = ts_of_unix_ms(l, unix_ms);
    if (n < 1 || n > sequence_space(l))
        throw Error(ErrorKind::numeric_out_of_range,
                    "crid_reserve: n = " + std::to_string(n) + " is outside 1 to " + std::to_string(sequence_space(l)) +
                        ", the sequences one second holds",
                    "Reserve one block per second for the rows of that second.");
    return ts;
}

void check_reserved_end(const Layout &l, int64_t ts, int64_t n, int64_t next_seq) {
    if (next_seq <= sequence_space(l))
        return;
    int64_t start = 0; // where the block began; 0 (all left) when the arguments make no sense
    if (n < 1 || __builtin_sub_overflow(next_seq, n, &start) || start < 0)
        start = 0;
    int64_t left = sequence_space(l) - start;
    throw Error(ErrorKind::numeric_out_of_range,
                "crid_reserve: second " + second(l, ts) + " has " + std::to_string(left < 0 ? 0 : left) + " of its " +
                    std::to_string(sequence_space(l)) + " sequences left, fewer than n = " + std::to_string(n),
                "The rows of one second get ids of that second only; a second cannot hold more ids than "
                "2^(63 - crid.timestamp_bits).");
}

void check_not_evicted(const Layout &l, const char *function, int64_t ts, int64_t evicted_before) {
    if (ts >= evicted_before)
        return;
    throw Error(ErrorKind::prerequisite_state,
                std::string(function) + ": second " + second(l, ts) +
                    " was evicted: crid_evict deleted the registry rows of every second before " +
                    second(l, evicted_before),
                "Ids of an evicted second may exist already, and its sequences would start again at 0. Give those "
                "rows ids of another family (snowflake_pack, uuid_generate_v7(at)), or backfill before evicting.");
}

int64_t pack_at(const Layout &l, int64_t unix_ms, int64_t sequence) {
    int64_t ts = ts_of_unix_ms(l, unix_ms);
    if (sequence < 0 || sequence >= sequence_space(l))
        throw Error(ErrorKind::numeric_out_of_range, "crid_pack: sequence " + std::to_string(sequence) +
                                                         " is outside 0 to " + std::to_string(sequence_space(l) - 1) +
                                                         ", the sequences one second holds");
    return pack(l, ts, sequence);
}

} // namespace crid::core::crid_ids
