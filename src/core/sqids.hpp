// Sqids (sqids.org): short, URL-friendly text for a list of non-negative
// integers, such as "86Rf07" for [1, 2, 3]. Its point is that other programs
// already speak it: an id made by this codec must read back the same in the
// Sqids library of an application, and the other way round. So this codec
// follows the published JavaScript implementation, npm package
// `sqids` 0.3.0, to the byte; test/core/vectors/sqids holds ids computed by
// that package, and the unit tests check this code against them.
//
// Sqids hides nothing: anyone with the alphabet decodes an id. It keeps
// sequential numbers from looking sequential, and keeps words of a blocklist
// out of the ids it makes.
//
// Where crid goes beyond the npm package, and why:
// - numbers go up to 2^64 - 1 (the spec allows the language's largest; npm
//   stops at 2^53 - 1 only because JavaScript numbers do); decoding a number
//   past 2^64 - 1 throws invalid_text, where npm silently loses precision;
// - the alphabet must be printable ASCII without space (npm accepts any
//   ASCII character, controls and space included);
// - decode_exact, for ids used as lookup keys: Sqids' own decode accepts many
//   spellings of one list (junk after the numbers, other padding), so two
//   different texts could find the same row; decode_exact accepts only the
//   spelling encode makes.
#pragma once
#include "pure_cpp.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace crid::core::sqids {

// The alphabet Sqids uses when none is given.
inline constexpr std::string_view default_alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
inline constexpr size_t min_alphabet_size = 3;
inline constexpr int max_min_length = 255;

// One set of Sqids options, validated and prepared once, then used for any
// number of encodings and decodings (a const Codec is safe to share between
// threads).
class Codec {
  public:
    // Throws Error(invalid_parameter) naming the problem: an alphabet of fewer
    // than 3 bytes, with a byte repeated or outside printable ASCII (! to ~),
    // or min_length outside 0 to 255. Blocklist words are kept as npm keeps
    // them: at least 3 characters, lower-cased, every character in the
    // lower-cased alphabet; the others are dropped without an error.
    Codec(std::string_view alphabet, int min_length, std::vector<std::string> blocklist);

    // The id of the numbers ("" for none), at least min_length long and free
    // of blocked words. Throws Error(invalid_parameter) when every id the
    // alphabet allows for these numbers holds a blocked word.
    std::string encode(std::span<const uint64_t> numbers) const;

    // Sqids' decode, as npm's: the numbers of any text, none when a byte is
    // outside the alphabet (or the text is empty), reading stops at the
    // padding. Neither the blocklist nor min_length is checked. Throws
    // Error(invalid_text) when a number exceeds 2^64 - 1.
    std::vector<uint64_t> decode(std::string_view id) const;

    // The numbers.size() numbers of an id, which must be spelled exactly as
    // encode spells them, written into `numbers` (no allocation for ids of
    // up to 15 characters: a lookup by face does this per query or row).
    // Throws Error(invalid_text) for empty text, a character outside the
    // alphabet, another count, a number past 2^64 - 1 or any other spelling;
    // Error(invalid_parameter) when numbers is empty (no id holds none).
    void decode_exact(std::string_view id, std::span<uint64_t> numbers) const;
    // The same, as a list of `count` numbers.
    std::vector<uint64_t> decode_exact(std::string_view id, size_t count) const;

    // How many blocklist words were kept (after filtering and removing
    // duplicates).
    size_t blocklist_size() const noexcept { return short_words_.size() + affix_words_.size() + inner_words_.size(); }

  private:
    // The id with re-generation `increment`, and whether a blocked word is in it.
    std::string encode_attempt(std::span<const uint64_t> numbers, size_t increment) const;
    // Reads the numbers of a non-empty id whose characters are all in the
    // alphabet, handing each to take(number), which returns false to stop
    // early.
    template <class Take>
    void read_numbers(std::string_view id, Take take) const;
    bool blocked(std::string_view id) const;
    // encode, or nothing when every re-generation is blocked.
    std::optional<std::string> try_encode(std::span<const uint64_t> numbers) const;
    void keep_blocklist(std::vector<std::string> words);
    void shuffle(std::string &a) const noexcept;
    // The working alphabet of an id whose first character is
    // alphabet_[offset], after `shuffles` (0 or 1) shuffles.
    std::string_view stage(size_t offset, size_t shuffles) const noexcept {
        return std::string_view(stages_.data() + (shuffles * n_ + offset) * n_, n_);
    }
    // Where each character of alphabet_ (by its index there) sits in that
    // working alphabet: 0 is the separator, k the digit k - 1.
    const uint8_t *stage_places(size_t offset, size_t shuffles) const noexcept {
        return places_.data() + (shuffles * n_ + offset) * n_;
    }
    size_t mod_n(uint64_t v) const noexcept;
    std::string_view next_stage(std::string_view a, size_t offset, size_t shuffles, std::string &spare) const;
    void append_number(std::string &out, uint64_t v, std::string_view a) const;

    std::string alphabet_; // shuffled once
    size_t n_ = 0;         // its size
    // What an encoding or decoding reuses: stage(offset, s) for s = 0, 1
    // (2n^2 bytes: every working alphabet of two numbers without padding)
    // and their stage_places (2n^2 more), v % n for each value a shuffle
    // step computes, and 2^64 / n and 2^64 / (n - 1) rounded up, to divide
    // 32-bit values by n and n - 1 with a multiplication.
    std::string stages_;
    std::vector<uint8_t> places_;
    std::vector<uint8_t> mod_n_;
    uint64_t n_reciprocal_ = 0, digit_reciprocal_ = 0;
    static constexpr uint8_t absent = 0xFF;
    std::array<uint8_t, 256> index_of_; // each byte's index in alphabet_, or absent
    size_t min_length_;
    // npm's three rules, by word: one of 3 characters only blocks that id
    // exactly; a longer one with a digit blocks ids starting or ending with
    // it; any other blocks ids that contain it.
    std::vector<std::string> short_words_, affix_words_, inner_words_;
};

} // namespace crid::core::sqids
