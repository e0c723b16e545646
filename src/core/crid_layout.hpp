// The crid id family: 63-bit ids `ts << sequence_bits | seq`, where ts counts
// whole SECONDS since the crid epoch and seq comes from a block reserved in
// the registry table crid_allocations(ts, next_seq). Same layout, defaults and
// registry semantics as the Go library github.com/from-cero/crid (31 timestamp
// bits in seconds, 32 sequence bits, epoch 2026-01-01 UTC, blocks of 10000,
// threshold 5000), so Go nodes and this extension can share one registry.
//
//   bit 63: 0 | ts (timestamp_bits) | seq (sequence_bits = 63 - timestamp_bits)
//
// Limits (validate()):
//   crid.timestamp_bits  28 to 40. 28 bits of seconds last 8.5 years, the
//                        default 31 lasts 68 years; 40 leaves 23 sequence bits
//                        (8,388,608 ids per second), below which a second
//                        holds too few blocks of a useful size.
//   crid.epoch           a whole second from 1970-01-01 to 9999-12-31 UTC: ts
//                        counts whole seconds, and the Go library truncates
//                        its epoch to the second (time.Unix()), so a
//                        fractional epoch would split seconds differently.
//
// Registry arithmetic (crid_allocate): the row (ts, next_seq) holds the
// exclusive end of the last block handed out for second ts; the upsert adds
// block_size and returns the new next_seq, so the new block is
// [next_seq - block_size, next_seq).
#pragma once
#include "pure_cpp.hpp"

#include "bit_layout.hpp"

#include <cstdint>

namespace crid::core::crid_ids {

inline constexpr int64_t default_epoch_unix_ms = INT64_C(1767225600000); // 2026-01-01 00:00:00 UTC
inline constexpr int default_timestamp_bits = 31;
inline constexpr int min_timestamp_bits = 28;
inline constexpr int max_timestamp_bits = 40;
inline constexpr int64_t default_block_size = 10000;
inline constexpr int64_t default_threshold = 5000;

struct Layout {
    int64_t epoch_unix_ms = default_epoch_unix_ms; // Unix ms of ts 0, a whole second
    int timestamp_bits = default_timestamp_bits;
    // The sequence takes whatever the timestamp leaves of 63 bits.
    int sequence_bits() const noexcept { return 63 - timestamp_bits; }
};

// The two fields of an id.
struct Parts {
    int64_t ts = 0;  // seconds since the crid epoch
    int64_t seq = 0; // position in that second's sequence space
    friend bool operator==(const Parts &, const Parts &) = default;
};

// A block ready to serve: ids first_id .. first_id + size - 1.
struct Block {
    int64_t first_id = 0;
    int64_t size = 0;
    friend bool operator==(const Block &, const Block &) = default;
};

// Returns the layout unchanged when the settings are in range (see above);
// else throws invalid_parameter naming crid.timestamp_bits or crid.epoch.
Layout validate(Layout layout);

// Where the fields of an id sit: logical order timestamp, sequence. The
// layout must be valid (validate()).
BitLayout id_bits(const Layout &layout);

// The largest ts, 2^timestamp_bits - 1.
int64_t max_ts(const Layout &layout) noexcept;

// The ids one second holds, 2^sequence_bits: the largest next_seq a registry
// row may reach.
int64_t sequence_space(const Layout &layout) noexcept;

// The id of (ts, seq). Throws numeric_out_of_range naming the field, its value
// and its maximum.
int64_t pack(const Layout &layout, int64_t ts, int64_t seq);

// The fields of an id. A negative id was never a crid: numeric_out_of_range.
Parts unpack(const Layout &layout, int64_t id);

// The second since the epoch that contains unix_ms (floor). Throws
// datetime_out_of_range before the epoch and past the last second the
// timestamp field holds ("timestamp field overflow", as the Go library).
int64_t ts_of_unix_ms(const Layout &layout, int64_t unix_ms);

// The Unix ms at which second ts begins. Throws numeric_out_of_range for a ts
// outside 0 .. max_ts.
int64_t unix_ms_of_ts(const Layout &layout, int64_t ts);

// The smallest id of the second containing unix_ms: a range-scan boundary
// (every id minted at or after that second is >= it).
int64_t floor_id(const Layout &layout, int64_t unix_ms);

// crid_next(gene, bits) serves, of the ids of a block, the next one whose low
// `bits` bits are the gene, and the ids it skips are a gap: each such id costs
// up to 2^bits registry sequence numbers (half that on average). So bits is at
// most max_gene_bits, and 2^bits must fit a block (crid.block_size) or some
// blocks would hold no id of a gene at all.
inline constexpr int max_gene_bits = 16;

// The gene field for crid_next(gene, bits), checked: bits outside 1 ..
// max_gene_bits or with 2^bits above block_size is invalid_parameter, a gene
// outside 0 .. 2^bits - 1 numeric_out_of_range; each names value and limit.
BitField gene_field(int bits, int64_t gene, int64_t block_size);

// Checks the arguments of crid_allocate(ts, block_size): block_size 1 ..
// sequence_space (invalid_parameter), ts 0 .. max_ts (numeric_out_of_range).
void check_allocation(const Layout &layout, int64_t ts, int64_t block_size);

// crid.block_size and crid.threshold as the worker can use them. Each is
// valid alone (the GUC ranges), but together they may not be after a reload
// (block_size 1000 with threshold 5000) or with few sequence bits (a block
// larger than a second holds). A reload must never stop minting, so they are
// clamped, not refused: the block to 1 .. sequence_space, the threshold to
// 0 .. block size, as the Go library requires (0 reserves the next block only
// once the current one is used up). The flags say what was clamped.
struct ReservationSettings {
    int64_t block_size = default_block_size;
    int64_t threshold = default_threshold;
    bool block_size_clamped = false;
    bool threshold_clamped = false;
};
ReservationSettings usable_settings(const Layout &layout, int64_t block_size, int64_t threshold) noexcept;

// Checks the next_seq the registry returned for second ts: beyond
// sequence_space the second is exhausted, numeric_out_of_range "sequence
// overflow for second N"; the caller reserves again in a later second. The
// whole block must fit: unlike the Go library, which serves the part of a
// straddling block below the limit, we drop that block (a gap, still unique).
void check_block_end(const Layout &layout, int64_t ts, int64_t end);

// The block crid_allocate(ts, block_size) reserved when the upsert returned
// next_seq, checked (check_allocation, check_block_end; next_seq below
// block_size means a hand-edited registry: internal).
Block block_of_allocation(const Layout &layout, int64_t ts, int64_t block_size, int64_t next_seq);

// crid_evict deletes registry rows with ts < bound. Deleting the row of a
// second that some node can still allocate in would restart that second at
// next_seq 0 and repeat ids, which happens when a clock steps back or another
// node sharing the registry runs behind. So rows of the last safety_seconds
// (and of the current second) stay: the returned horizon H is
// now_ts - safety_seconds (0 before the epoch or when that is negative), and
// only rows with ts < H may go. Throws invalid_parameter for a negative
// safety_seconds.
int64_t evict_horizon_ts(const Layout &layout, int64_t now_unix_ms, int64_t safety_seconds);

// The bound for crid_evict(before): rows with ts < it lie wholly before
// `before` (0 when `before` is at or before the epoch). Throws
// invalid_parameter naming both times when it would pass the horizon above.
int64_t evict_bound_ts(const Layout &layout, int64_t before_unix_ms, int64_t now_unix_ms, int64_t safety_seconds);

} // namespace crid::core::crid_ids
