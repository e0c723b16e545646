// The decoders of every family over arbitrary ids: snowflake ids under every
// preset and server layout, crid ids under every crid.timestamp_bits, and
// arbitrary UUIDs. Each id decodes or is a core error; what decodes packs
// back to the same id.
#include "fuzz.hpp"

#include "../../src/core/crid_layout.hpp"
#include "../../src/core/snowflake_layout.hpp"
#include "../../src/core/uuidv7.hpp"

#include <cstring>

namespace sf = crid::core::snowflake;
namespace ids = crid::core::crid_ids;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const int64_t id = int64_t(crid::fuzz::word_at(data, size, 0));
    const uint64_t knobs = crid::fuzz::word_at(data, size, 1);

    static const char *const names[] = {"twitter", "discord", "instagram", "sonyflake", "crid"};
    for (const char *name : names) {
        sf::Layout l = sf::layout_named(name);
        sf::Fields f;
        if (crid::fuzz::accepted([&] { f = sf::unpack(l, id); }))
            crid::fuzz::require(sf::pack(l, f) == id, "snowflake pack(unpack(id)) == id");
        (void)crid::fuzz::accepted([&] { (void)sf::unix_ms_of(l, id); });
    }
    // A server layout from the input's knobs (each width within its setting's range).
    int node_bits = int(knobs % 17), sequence_bits = int(1 + (knobs >> 8) % 22), gene_bits = int((knobs >> 16) % 17);
    if (63 - node_bits - sequence_bits - gene_bits >= 32) {
        sf::Layout l;
        if (crid::fuzz::accepted(
                [&] { l = sf::server_layout(INT64_C(1767225600000), node_bits, sequence_bits, gene_bits); }))
            (void)crid::fuzz::accepted(
                [&] { crid::fuzz::require(sf::pack(l, sf::unpack(l, id)) == id, "server layout"); });
    }

    ids::Layout l;
    l.timestamp_bits = ids::min_timestamp_bits + int(knobs % (ids::max_timestamp_bits - ids::min_timestamp_bits + 1));
    ids::Parts p;
    if (crid::fuzz::accepted([&] { p = ids::unpack(l, id); })) {
        crid::fuzz::require(ids::pack(l, p.ts, p.seq) == id, "crid pack(unpack(id)) == id");
        (void)crid::fuzz::accepted([&] { (void)ids::unix_ms_of_ts(l, p.ts); });
    }

    crid::core::Uuid u;
    for (size_t i = 0; i < u.bytes.size(); ++i)
        u.bytes[i] = i < size ? data[i] : 0;
    (void)crid::fuzz::accepted([&] { (void)crid::core::uuidv7::unix_ms_of(u); });
    int64_t unix_us;
    (void)crid::core::uuid_inspect::unix_us_of(u, unix_us);
    (void)crid::core::uuid_inspect::version_or_none(u);
    return 0;
}
