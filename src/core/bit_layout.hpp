// Ids as bit fields, described once. Every family says where its fields sit
// with a BitLayout and packs, reads and bounds ids through it: snowflake ids
// (time, node, sequence, gene in either of two orders), the snowflake
// generator's state word (time, sequence), crid ids (timestamp, sequence) and
// shard genes (the low bits of any id). Shifting, masking, range checks and
// range bounds exist here and nowhere else, but for the snowflake
// generator's per-id path (its state word and pack() of fields in range),
// which core tests hold equal to the BitLayouts it would otherwise build.
//
// A layout lists up to four fields in logical order (the order values are
// passed in) and where they sit, most significant first; together they fill
// the low `total_bits()` bits of a 64-bit word, the bits above stay 0. The
// most significant field leads: it is the time of snowflake and crid ids, and
// floor() / ceiling() give the first and last word of one value of it.
#pragma once
#include "pure_cpp.hpp"

#include "error.hpp"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace crid::core {

// The largest value of `width` bits (0 to 64): 2^width - 1.
constexpr uint64_t max_of_width(int width) noexcept { return width == 0 ? 0 : ~uint64_t(0) >> (64 - width); }

// A field of `width` bits (0 to 64) whose lowest bit is bit `shift`.
struct BitField {
    std::string_view name;
    int width = 0;
    int shift = 0;

    // The largest value the field holds.
    constexpr uint64_t max() const noexcept { return max_of_width(width); }
    // The field's value in a word.
    constexpr uint64_t get(uint64_t word) const noexcept { return width == 0 ? 0 : word >> shift & max(); }
    // The word with the field replaced by the low `width` bits of value.
    constexpr uint64_t put(uint64_t word, uint64_t value) const noexcept {
        return width == 0 ? word : (word & ~(max() << shift)) | (value & max()) << shift;
    }
    // True when value fits: 0 to max().
    constexpr bool holds(int64_t value) const noexcept { return value >= 0 && uint64_t(value) <= max(); }
};

class BitLayout {
  public:
    static constexpr int max_fields = 4;

    struct Spec {
        std::string_view name; // for messages: "time", "node", ...
        int width;
    };

    // Fields in logical order; `msb_first` lists their logical indexes from
    // the most significant down (empty: the logical order). Families check
    // their widths before building one, so widths beyond 64 bits in all, or
    // an order that is not a permutation, are a bug: internal error.
    BitLayout(std::initializer_list<Spec> fields, std::initializer_list<int> msb_first = {});

    int size() const noexcept { return size_; }
    const BitField &field(int logical) const noexcept { return fields_[logical]; }
    // The most significant field.
    const BitField &leading() const noexcept { return fields_[leading_]; }
    // The bits the fields cover.
    int total_bits() const noexcept { return total_bits_; }

    // The word of values (logical order, one per field) that are in range.
    uint64_t pack_unchecked(std::span<const int64_t> values) const noexcept;

    // The word of values, checked: a value outside 0 .. its field's max throws
    // numeric_out_of_range "<family> <field> <value> is out of range<where()>
    // (0 to <max>)". where() is called only then (it may build a string).
    template <class Where>
    uint64_t pack(std::span<const int64_t> values, std::string_view family, Where &&where) const {
        for (int i = 0; i < size_; ++i)
            if (!fields_[i].holds(values[i]))
                out_of_range(i, values[i], family, where());
        return pack_unchecked(values);
    }

    // The values of a word's fields, logical order (bits above the fields are ignored).
    void unpack(uint64_t word, std::span<int64_t> values) const noexcept;

    // The smallest and the largest word whose leading field is `lead` (the
    // other fields 0, or all at their max). They clamp instead of throwing: a
    // lead below 0 bounds 0, one past the field's max bounds the max, so a
    // time before or after a layout's range still gives a usable range bound.
    uint64_t floor(int64_t lead) const noexcept;
    uint64_t ceiling(int64_t lead) const noexcept;

  private:
    [[noreturn]] void out_of_range(int logical, int64_t value, std::string_view family, const std::string &where) const;
    int64_t clamp_lead(int64_t lead) const noexcept;

    std::array<BitField, max_fields> fields_{};
    int size_ = 0;
    int leading_ = 0;
    int total_bits_ = 0;
};

} // namespace crid::core
