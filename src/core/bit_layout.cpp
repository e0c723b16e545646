#include "bit_layout.hpp"

namespace crid::core {

BitLayout::BitLayout(std::initializer_list<Spec> fields, std::initializer_list<int> msb_first) {
    if (fields.size() < 1 || fields.size() > max_fields || (msb_first.size() != 0 && msb_first.size() != fields.size()))
        throw Error(ErrorKind::internal, "bit layout: " + std::to_string(fields.size()) + " fields, " +
                                             std::to_string(msb_first.size()) + " positions");
    size_ = int(fields.size());
    int i = 0;
    for (const Spec &s : fields) {
        if (s.width < 0 || s.width > 64)
            throw Error(ErrorKind::internal,
                        "bit layout: field " + std::string(s.name) + " has " + std::to_string(s.width) + " bits");
        fields_[i++] = BitField{.name = s.name, .width = s.width, .shift = 0};
        total_bits_ += s.width;
    }
    if (total_bits_ > 64)
        throw Error(ErrorKind::internal, "bit layout: the fields add up to " + std::to_string(total_bits_) + " bits");
    // Positions from the least significant field up: each starts where the
    // fields below it end.
    std::array<int, max_fields> order{};
    bool placed[max_fields] = {};
    i = 0;
    for (int logical : msb_first)
        order[i++] = logical;
    if (msb_first.size() == 0)
        for (int k = 0; k < size_; ++k)
            order[k] = k;
    int shift = 0;
    for (int k = size_ - 1; k >= 0; --k) {
        int logical = order[k];
        if (logical < 0 || logical >= size_ || placed[logical])
            throw Error(ErrorKind::internal, "bit layout: the field order is not a permutation");
        placed[logical] = true;
        fields_[logical].shift = shift;
        shift += fields_[logical].width;
    }
    leading_ = order[0];
}

uint64_t BitLayout::pack_unchecked(std::span<const int64_t> values) const noexcept {
    uint64_t word = 0;
    for (int i = 0; i < size_; ++i)
        word = fields_[i].put(word, uint64_t(values[i]));
    return word;
}

void BitLayout::unpack(uint64_t word, std::span<int64_t> values) const noexcept {
    for (int i = 0; i < size_; ++i)
        values[i] = int64_t(fields_[i].get(word));
}

int64_t BitLayout::clamp_lead(int64_t lead) const noexcept {
    const uint64_t max = leading().max();
    if (lead < 0)
        return 0;
    return uint64_t(lead) > max ? int64_t(max) : lead;
}

uint64_t BitLayout::floor(int64_t lead) const noexcept { return leading().put(0, uint64_t(clamp_lead(lead))); }

uint64_t BitLayout::ceiling(int64_t lead) const noexcept {
    uint64_t word = 0;
    for (int i = 0; i < size_; ++i)
        word = fields_[i].put(word, fields_[i].max());
    return leading().put(word, uint64_t(clamp_lead(lead)));
}

void BitLayout::out_of_range(int logical, int64_t value, std::string_view family, const std::string &where) const {
    const BitField &f = fields_[logical];
    throw Error(ErrorKind::numeric_out_of_range, std::string(family) + " " + std::string(f.name) + " " +
                                                     std::to_string(value) + " is out of range" + where + " (0 to " +
                                                     std::to_string(f.max()) + ")");
}

} // namespace crid::core
