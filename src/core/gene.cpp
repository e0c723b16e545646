#include "gene.hpp"

#include "error.hpp"
#include "murmur3.hpp"

#include <string>

namespace crid::core::gene {

BitField field(int bits, std::string_view function, int max, std::string_view why) {
    if (bits < 1 || bits > max)
        throw Error(ErrorKind::invalid_parameter,
                    std::string(function) + ": gene bits " + std::to_string(bits) + " is outside 1 to " +
                        std::to_string(max),
                    why.empty() ? "A gene of k bits names one of 2^k shards; genes are SQL integers, so k is at "
                                  "most 31."
                                : std::string(why));
    return BitField{.name = "gene", .width = bits, .shift = 0};
}

void check_gene(const BitField &f, int64_t gene, std::string_view function) {
    if (!f.holds(gene))
        throw Error(ErrorKind::numeric_out_of_range,
                    std::string(function) + ": gene " + std::to_string(gene) + " does not fit " +
                        std::to_string(f.width) + " gene bits (0 to " + std::to_string(f.max()) + ")",
                    "gene_of(key, bits) gives the gene of a key for the same bits.");
}

int32_t of_key(int64_t key, int bits, std::string_view function) {
    return int32_t(field(bits, function).get(uint64_t(key)));
}

int32_t of_bytes(const void *data, size_t len, int bits) {
    return int32_t(field(bits, "gene_of").get(murmur3_x86_32(data, len, 0)));
}

int32_t of_uuid_id(const Uuid &id, int bits) { return int32_t(field(bits, "id_gene").get(id.low64())); }

int64_t with_gene(int64_t id, int64_t gene, int bits) {
    BitField f = field(bits, "id_with_gene");
    check_gene(f, gene, "id_with_gene");
    return int64_t(f.put(uint64_t(id), uint64_t(gene)));
}

Uuid with_gene(const Uuid &id, int64_t gene, int bits) {
    BitField f = field(bits, "id_with_gene");
    check_gene(f, gene, "id_with_gene");
    return put(id, f, uint64_t(gene));
}

Uuid put(const Uuid &id, const BitField &f, uint64_t gene) noexcept {
    Uuid out = id;
    store_be64(out, 8, f.put(id.low64(), gene));
    return out;
}

} // namespace crid::core::gene
