// The files in the data directory that carry crid's guarantees across a
// restart or crash, as text: what they hold, how they are written, and how a
// damaged one is recognised rather than trusted.
//
//   crid_high_water     the last Unix millisecond any snowflake or
//                       server-ordered UUIDv7 id of this server may carry,
//                       and the snowflake layout those ids were minted under
//   crid_registry_mark  the last second (Unix seconds) in which this server
//                       reserved a crid block, and a sequence the registry's
//                       row of that second had reached
//
// Format: a header line naming the file and its version, "key value" lines,
// and a last line "checksum <16 hex digits>" (FNV-1a 64 of every byte before
// it), each ending in a newline:
//
//   crid_high_water 2
//   unix_ms 1767225600123
//   snowflake_layout epoch=2026-01-01,unit=1ms,time=41,node=10,sequence=12,gene=0
//   checksum 9f1c0e5e2b7d4a61
//
// A torn write, a bad disk block or a careless edit breaks the checksum or
// the syntax; the parsers then throw instead of guessing. crid 0.1.0 wrote
// crid_high_water as two lines, "<unix ms>\n<layout>\n", without a checksum;
// parse_high_water() still reads that.
#pragma once
#include "pure_cpp.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace crid::core::marks {

struct HighWater {
    int64_t unix_ms = 0;
    std::string layout; // snowflake::describe() of the layout the ids were minted under
    friend bool operator==(const HighWater &, const HighWater &) = default;
};

struct RegistryMark {
    int64_t unix_s = 0;   // the second of the last reservation, in Unix seconds
    int64_t sequence = 0; // the registry's next_seq of that second had reached at least this
    friend bool operator==(const RegistryMark &, const RegistryMark &) = default;
};

// The file's text, checksum included.
std::string format(const HighWater &mark);
std::string format(const RegistryMark &mark);

// The mark in a file's text. Throws invalid_text saying what is wrong (no
// header, a malformed or unknown line, a missing key, a checksum that does
// not match, a number out of range).
HighWater parse_high_water(std::string_view text);
RegistryMark parse_registry_mark(std::string_view text);

// FNV-1a, 64 bits: the checksum of the files (not a defence against an
// attacker, who could write any mark; against damage).
uint64_t checksum(std::string_view bytes) noexcept;

} // namespace crid::core::marks
