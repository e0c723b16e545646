// Snowflake bit layouts: where the time, node, sequence and gene fields sit in
// a 64-bit id, the presets of the systems crid can decode (Twitter, Discord,
// Instagram, Sonyflake) and the text syntax that names or spells a layout.
//
// Fields from the most significant bit (bit 63 stays 0 unless sign=true):
//
//   default order:           [0] time | node | sequence | gene
//   order=time,sequence,node [0] time | sequence | node | gene   (Sonyflake)
//
// The gene is always the lowest field, so `id & (2^gene_bits - 1)` routes an id
// to its shard without knowing the rest of the layout.
//
// Layout text, as accepted by layout_named():
//
//   A preset name (case-insensitive):
//     twitter    epoch 2010-11-04 01:42:54.657 UTC, 1 ms, time 41 | node 10 | sequence 12
//     discord    epoch 2015-01-01 UTC, 1 ms, time 42 | node 10 | sequence 12, sign=true;
//                node = worker << 5 | process
//     instagram  epoch 2011-08-24 21:07:01.721 UTC (Unix ms 1314220021721), 1 ms,
//                time 41 | shard 13 | sequence 10, sign=true (41+13+10 = 64 bits)
//     sonyflake  Sonyflake v1: epoch 2014-09-01 UTC, 10 ms, time 39 | sequence 8 | machine 16
//     sonyflake2 Sonyflake v2 with its default Settings: epoch 2025-01-01 UTC, 10 ms,
//                time 39 | sequence 8 | machine 16 (other Settings: a custom spec)
//     pgedge     pgEdge's snowflake extension (2.x): epoch 2023-01-01 UTC, 1 ms,
//                time 41 | node 10 | counter 12
//     crid       (alias default) epoch 2026-01-01 UTC, 1 ms, time 41 | node 10 | sequence 12
//     javascript epoch 2026-01-01 UTC, 1 s, time 30 | node 7 | sequence 16, bits=53: ids
//                stay at most 2^53 - 1, exact as JavaScript numbers and in JSON, for
//                2^30 s (34.02 years, to 2060-01-10); 128 nodes x 65,536 ids a second
//
//   Or a custom spec: comma-separated key=value items, e.g.
//     epoch=2020-01-01,unit=1ms,time=41,node=10,sequence=12,gene=0
//
//     epoch     required. 2020-01-01 (midnight UTC), 2020-01-01T12:30:00Z,
//               2020-01-01T12:30:00.250Z (1 to 3 fraction digits), or an integer
//               count of Unix milliseconds. From 1970-01-01 to 9999-12-31.
//     node      required. Width of the node (worker, shard, machine) field, 0 to 16.
//     sequence  required. Width of the per-unit sequence, 1 to 22.
//     time      width of the time field, at least 32. Default: whatever is left
//               of 63 bits (64 with sign=true) after node, sequence and gene.
//     gene      width of the shard gene in the lowest bits, 0 to 16. Default 0.
//     unit      length of one time unit: 1ms (default), 10ms, 1s, or an integer
//               number of milliseconds.
//     sign      true lets the time field use bit 63, as Discord and Instagram do
//               (such ids become negative as bigint once that bit is reached).
//               Default false.
//     order     time,node,sequence (default) or time,sequence,node (Sonyflake);
//               a trailing ,gene is accepted. The commas of this value are part of it.
//     bits      how many bits the ids use, 33 to 63 (default 63; not with sign=true):
//               the fields fill the low `bits` bits and every id is at most
//               2^bits - 1, e.g. bits=53 for ids JavaScript reads exactly.
//
//   Keys and words are case-insensitive, each key may appear once, and spaces
//   around ',' and '=' are ignored. The widths must add up to exactly 63 bits
//   (64 with sign=true, `bits` when given). The time field has at least 32
//   bits, or fewer (at least 16) when its units span at least 2^32 ms.
//   describe() prints any layout in this syntax.
#pragma once
#include "pure_cpp.hpp"

#include "bit_layout.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace crid::core::snowflake {

struct Layout {
    int64_t epoch_unix_ms = 0; // Unix ms of time zero
    int64_t unit_ms = 1;       // length of one time unit in ms
    int time_bits = 0;
    int node_bits = 0;
    int sequence_bits = 0;
    int gene_bits = 0;
    bool sequence_above_node = false; // Sonyflake: time | sequence | node | gene
    bool use_sign_bit = false;        // the time field may use bit 63 (64 usable bits)
    int width = 0;                    // bits the ids use, from bit 0 up (the bits above stay 0);
                                      // 0 means all: 63, or 64 with sign=true. A narrower id
                                      // (bits=53: the javascript preset) never passes 2^width - 1
    std::string name = "custom";      // preset name, "server", or "custom"
};

// The decoded fields of an id; time_units counts units since the epoch.
struct Fields {
    int64_t time_units = 0;
    int64_t node = 0;
    int64_t sequence = 0;
    int64_t gene = 0;
    friend bool operator==(const Fields &, const Fields &) = default;
};

// The bits an id of the layout uses: 63, 64 with the sign bit, or `width`.
inline int id_width(const Layout &l) noexcept { return l.width > 0 ? l.width : l.use_sign_bit ? 64 : 63; }

// The largest id of a layout without the sign bit (2^id_width - 1).
inline int64_t max_id(const Layout &l) noexcept { return int64_t(max_of_width(id_width(l) > 63 ? 63 : id_width(l))); }

// The presets layout_named() knows, for messages and documentation.
inline constexpr std::string_view preset_list =
    "twitter, discord, instagram, sonyflake, sonyflake2, pgedge, crid (alias default), javascript";

// A preset by name (case-insensitive) or a custom spec (syntax above), validated.
// Throws invalid_parameter naming the offending key and value.
Layout layout_named(std::string_view text);

// The canonical custom spec of a layout; layout_named(describe(l)) is equivalent to l.
std::string describe(const Layout &layout);

// The layout of this server's settings: time gets the bits 63 leaves, in ms.
Layout server_layout(int64_t epoch_unix_ms, int node_bits, int sequence_bits, int gene_bits);

// Where the fields of an id sit: logical order time, node, sequence, gene
// (the order of Fields). The layout must be valid (layout_named(),
// server_layout()).
BitLayout id_bits(const Layout &layout);

// The largest value each field holds (inline: the generator asks on every id).
inline int64_t max_time_units(const Layout &l) noexcept { return int64_t(max_of_width(l.time_bits)); }
inline int64_t max_node(const Layout &l) noexcept { return int64_t(max_of_width(l.node_bits)); }
inline int64_t max_sequence(const Layout &l) noexcept { return int64_t(max_of_width(l.sequence_bits)); }
inline int64_t max_gene(const Layout &l) noexcept { return int64_t(max_of_width(l.gene_bits)); }

// The id of these fields. Throws numeric_out_of_range naming a field outside
// 0 .. its maximum. Fields in range are placed with shifts where id_bits()
// puts them (the gene lowest, then sequence and node, or node and sequence
// for Sonyflake, the time on top; a core test holds the two equal): building
// a BitLayout per id would cost more than the rest of minting one. Out of
// range, pack_checked() goes through id_bits() for the error.
int64_t pack_checked(const Layout &layout, const Fields &fields);
inline int64_t pack(const Layout &l, const Fields &f) {
    auto fits = [](int64_t v, int width) { return uint64_t(v) <= max_of_width(width); };
    if (!(fits(f.time_units, l.time_bits) && fits(f.node, l.node_bits) && fits(f.sequence, l.sequence_bits) &&
          fits(f.gene, l.gene_bits))) [[unlikely]]
        return pack_checked(l, f);
    const int low = l.gene_bits;
    const int node_shift = l.sequence_above_node ? low : low + l.sequence_bits;
    const int sequence_shift = l.sequence_above_node ? low + l.node_bits : low;
    const int time_shift = low + l.node_bits + l.sequence_bits;
    return int64_t(uint64_t(f.time_units) << time_shift | uint64_t(f.node) << node_shift |
                   uint64_t(f.sequence) << sequence_shift | uint64_t(f.gene));
}

// The fields of an id. A negative id is outside a layout without the sign bit:
// numeric_out_of_range.
Fields unpack(const Layout &layout, int64_t id);

// The Unix millisecond at which the time unit of an id begins.
int64_t unix_ms_of(const Layout &layout, int64_t id);

// The time unit that contains unix_ms. Throws datetime_out_of_range, naming
// the time and the layout's range, outside it.
int64_t unit_containing(const Layout &layout, int64_t unix_ms);

// The smallest id whose time unit contains unix_ms (node, sequence, gene 0): a
// range-scan boundary. Throws datetime_out_of_range outside the layout's range.
int64_t floor_id(const Layout &layout, int64_t unix_ms);

// The id of the unit that contains unix_ms with the node, sequence and gene of
// `rest` (its time_units is ignored): what a generator would have minted then,
// for backfills. Throws datetime_out_of_range for a time outside the layout
// and numeric_out_of_range naming a node, sequence or gene beyond its field.
int64_t pack_at(const Layout &layout, int64_t unix_ms, const Fields &rest);

// The Unix millisecond at which a time unit begins (unit within the layout).
inline int64_t unit_start_unix_ms(const Layout &l, int64_t unit) noexcept { return l.epoch_unix_ms + unit * l.unit_ms; }

// The last Unix millisecond the time field can express.
int64_t last_unix_ms(const Layout &layout) noexcept;

} // namespace crid::core::snowflake
