#include "sqids.hpp"

#include "error.hpp"
#include "id_text.hpp"

#include <algorithm>
#include <string>

namespace crid::core::sqids {

using id_text::shown;

namespace {

unsigned char byte(char c) noexcept { return static_cast<unsigned char>(c); }
char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

[[noreturn]] void bad_alphabet(std::string_view alphabet, const std::string &why) {
    throw Error(ErrorKind::invalid_parameter, "invalid Sqids alphabet " + shown(alphabet) + ": " + why,
                "A Sqids alphabet is 3 to 94 different printable ASCII characters (! to ~, no space), such as "
                "the default abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.");
}

// Throws unless the alphabet is at least 3 distinct bytes of ! to ~.
void check_alphabet(std::string_view alphabet) {
    std::array<size_t, 256> first{}; // 1-based position of each byte seen
    for (size_t i = 0; i < alphabet.size(); ++i) {
        unsigned char c = byte(alphabet[i]);
        if (c < 0x21 || c > 0x7e)
            bad_alphabet(alphabet, "character " + shown(id_text::char_at(alphabet, i)) + " at position " +
                                       std::to_string(id_text::position_of(alphabet, i)) +
                                       " is not a printable ASCII character (! to ~)");
        if (first[c] != 0)
            bad_alphabet(alphabet, "character " + shown(alphabet.substr(i, 1)) + " appears twice, at positions " +
                                       std::to_string(first[c]) + " and " + std::to_string(i + 1));
        first[c] = i + 1;
    }
    if (alphabet.size() < min_alphabet_size)
        bad_alphabet(alphabet, "it has " + std::to_string(alphabet.size()) + " characters, at least " +
                                   std::to_string(min_alphabet_size) + " are needed");
}

// The alphabet rotated to start at `offset`, then reversed: the working
// alphabet of an id whose first character is a[offset].
std::string turned(std::string_view a, size_t offset) {
    std::string s(a.substr(offset));
    s.append(a.substr(0, offset));
    std::reverse(s.begin(), s.end());
    return s;
}

// The id's numbers are too large for crid (npm would go on with a rounded
// number).
[[noreturn]] void number_too_large(std::string_view id) {
    throw Error(ErrorKind::invalid_text,
                "invalid Sqids id " + shown(id) + ": it holds a number larger than 18446744073709551615");
}

// A blocklist word as npm keeps it, lower-cased, or "" when npm drops it:
// shorter than 3 characters, or a character whose lower case is not in the
// lower-cased alphabet. The words are UTF-8; of all non-ASCII characters
// only the Kelvin sign K (U+212A) lower-cases to an ASCII one ("k") in
// JavaScript, so it is the only one that can survive.
std::string kept_word(std::string_view word, const std::array<bool, 256> &lower_alphabet) {
    static constexpr std::string_view kelvin = "\xE2\x84\xAA";
    std::string out;
    for (size_t i = 0; i < word.size(); ++i) {
        char c = lower(word[i]);
        if (word.substr(i, kelvin.size()) == kelvin) {
            c = 'k';
            i += kelvin.size() - 1;
        }
        if (!lower_alphabet[byte(c)]) // every byte of another non-ASCII character
            return {};
        out += c;
    }
    return out.size() >= 3 ? out : std::string();
}

// Sorted and without duplicates.
void sort_unique(std::vector<std::string> &words) {
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
}

} // namespace

Codec::Codec(std::string_view alphabet, int min_length, std::vector<std::string> blocklist) {
    check_alphabet(alphabet);
    if (min_length < 0 || min_length > max_min_length)
        throw Error(ErrorKind::invalid_parameter, "invalid Sqids min_length " + std::to_string(min_length) +
                                                      ": it must be between 0 and " + std::to_string(max_min_length));
    alphabet_ = alphabet;
    n_ = alphabet_.size();
    // A shuffle step's value is at most (n/2)^2 + 2 * 126.
    mod_n_.resize(n_ * n_ / 4 + 2 * 127);
    for (size_t v = 0; v < mod_n_.size(); ++v)
        mod_n_[v] = uint8_t(v % n_);
    n_reciprocal_ = UINT64_MAX / n_ + 1;
    digit_reciprocal_ = UINT64_MAX / (n_ - 1) + 1;
    shuffle(alphabet_);
    index_of_.fill(absent);
    for (size_t i = 0; i < n_; ++i)
        index_of_[byte(alphabet_[i])] = uint8_t(i);
    min_length_ = size_t(min_length);
    keep_blocklist(std::move(blocklist));
    // Every working alphabet of up to two numbers without padding: each
    // offset's, and the same after one shuffle; and where each character
    // sits in it.
    stages_.reserve(2 * n_ * n_);
    places_.resize(2 * n_ * n_);
    for (size_t shuffles = 0; shuffles < 2; ++shuffles)
        for (size_t offset = 0; offset < n_; ++offset) {
            std::string a = turned(alphabet_, offset);
            if (shuffles == 1)
                shuffle(a);
            uint8_t *places = &places_[(shuffles * n_ + offset) * n_];
            for (size_t k = 0; k < n_; ++k)
                places[index_of_[byte(a[k])]] = uint8_t(k);
            stages_ += a;
        }
}

// v % n; for 32-bit v by multiplication (Lemire's fastmod).
size_t Codec::mod_n(uint64_t v) const noexcept {
    if (v > UINT32_MAX)
        return size_t(v % n_);
    return size_t((static_cast<unsigned __int128>(n_reciprocal_ * v) * n_) >> 64);
}

// Sqids' shuffle: a fixed permutation that depends only on the characters.
void Codec::shuffle(std::string &a) const noexcept {
    for (size_t i = 0, j = n_ - 1; j > 0; ++i, --j)
        std::swap(a[i], a[mod_n_[i * j + byte(a[i]) + byte(a[j])]]);
}

// The working alphabet after one more shuffle: from the table while it has
// it, else shuffled in `spare`.
std::string_view Codec::next_stage(std::string_view a, size_t offset, size_t shuffles, std::string &spare) const {
    if (shuffles < 2)
        return stage(offset, shuffles);
    if (shuffles == 2)
        spare.assign(a);
    shuffle(spare);
    return spare;
}

// Appends v in base n - 1 with the digits a[1..], most significant first;
// below 2^32 by multiplication with the reciprocal (Lemire's fastmod: exact
// for 32-bit values) instead of a division per digit.
void Codec::append_number(std::string &out, uint64_t v, std::string_view a) const {
    const uint64_t base = n_ - 1;
    char buf[64]; // base >= 2: at most 64 digits
    size_t k = sizeof buf;
    do {
        uint64_t q =
            v <= UINT32_MAX ? uint64_t((static_cast<unsigned __int128>(digit_reciprocal_) * v) >> 64) : v / base;
        buf[--k] = a[1 + (v - q * base)];
        v = q;
    } while (v > 0);
    out.append(buf + k, sizeof buf - k);
}

// Files each word npm keeps under the rule npm applies to it.
void Codec::keep_blocklist(std::vector<std::string> words) {
    std::array<bool, 256> lower_alphabet{};
    for (char c : alphabet_)
        lower_alphabet[byte(lower(c))] = true;
    for (const std::string &w : words) {
        std::string word = kept_word(w, lower_alphabet);
        if (word.empty())
            continue;
        if (word.size() <= 3)
            short_words_.push_back(std::move(word));
        else if (std::any_of(word.begin(), word.end(), is_digit))
            affix_words_.push_back(std::move(word));
        else
            inner_words_.push_back(std::move(word));
    }
    sort_unique(short_words_);
    sort_unique(affix_words_);
    sort_unique(inner_words_);
}

std::string Codec::encode_attempt(std::span<const uint64_t> numbers, size_t increment) const {
    // The offset: the list's size, plus each number's character and index.
    size_t offset = numbers.size() % n_;
    for (size_t i = 0; i < numbers.size(); ++i)
        offset = (offset + byte(alphabet_[mod_n(numbers[i])]) + i % n_) % n_;
    offset = (offset + increment) % n_;
    std::string spare;
    size_t shuffles = 0;
    std::string_view a = stage(offset, 0);
    std::string id(1, alphabet_[offset]);
    for (size_t i = 0; i < numbers.size(); ++i) {
        // A number's digits are the alphabet less its first character, which
        // separates it from the next number.
        append_number(id, numbers[i], a);
        if (i + 1 < numbers.size()) {
            id += a[0];
            a = next_stage(a, offset, ++shuffles, spare);
        }
    }
    if (min_length_ > id.size()) {
        // The separator ends the numbers, then shuffled alphabets pad.
        id += a[0];
        while (min_length_ > id.size()) {
            a = next_stage(a, offset, ++shuffles, spare);
            id.append(a.substr(0, std::min(min_length_ - id.size(), n_)));
        }
    }
    return id;
}

bool Codec::blocked(std::string_view id) const {
    if (short_words_.empty() && affix_words_.empty() && inner_words_.empty())
        return false;
    std::string low(id);
    std::transform(low.begin(), low.end(), low.begin(), lower);
    if (low.size() <= 3)
        return std::binary_search(short_words_.begin(), short_words_.end(), low);
    std::string_view v = low;
    for (const std::string &w : affix_words_)
        if (v.starts_with(w) || v.ends_with(w))
            return true;
    for (const std::string &w : inner_words_)
        if (v.find(w) != std::string_view::npos)
            return true;
    return false;
}

std::optional<std::string> Codec::try_encode(std::span<const uint64_t> numbers) const {
    // npm tries increments 0 to n; increment n gives increment 0's id again.
    for (size_t increment = 0; increment < alphabet_.size(); ++increment) {
        std::string id = encode_attempt(numbers, increment);
        if (!blocked(id))
            return id;
    }
    return std::nullopt;
}

std::string Codec::encode(std::span<const uint64_t> numbers) const {
    if (numbers.empty())
        return {};
    std::optional<std::string> id = try_encode(numbers);
    if (!id)
        throw Error(ErrorKind::invalid_parameter,
                    "cannot make a Sqids id of these " + std::to_string(numbers.size()) +
                        " numbers: every re-generation of it (" + std::to_string(alphabet_.size()) +
                        ", one per alphabet character) is blocked by a word of the blocklist",
                    "Remove words from the blocklist, or use a longer alphabet.");
    return *id;
}

// Each chunk of the id up to its working alphabet's separator is a
// number, digits a[1..]; every number changes the working alphabet. Two
// separators in a row, or the end, end the numbers (padding follows).
template <class Take>
void Codec::read_numbers(std::string_view id, Take take) const {
    const size_t offset = index_of_[byte(id[0])];
    const uint64_t base = n_ - 1;
    std::string spare;
    std::array<uint8_t, 256> spare_places; // of spare, for ids of three numbers or more: set before use
    std::string_view a = stage(offset, 0);
    const uint8_t *places = stage_places(offset, 0);
    size_t shuffles = 0;
    size_t i = 1;
    while (i < id.size()) {
        uint64_t v = 0;
        size_t digits = 0;
        for (; i < id.size(); ++i) {
            uint8_t place = places[index_of_[byte(id[i])]];
            if (place == 0)
                break;
            if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, uint64_t(place - 1), &v))
                number_too_large(id);
            ++digits;
        }
        if (digits == 0) // two separators in a row: padding follows
            return;
        if (!take(v) || i == id.size())
            return;
        ++i; // the separator
        a = next_stage(a, offset, ++shuffles, spare);
        if (shuffles < 2) {
            places = stage_places(offset, shuffles);
        } else {
            for (size_t k = 0; k < n_; ++k)
                spare_places[index_of_[byte(a[k])]] = uint8_t(k);
            places = spare_places.data();
        }
    }
}

std::vector<uint64_t> Codec::decode(std::string_view id) const {
    std::vector<uint64_t> numbers;
    if (id.empty() || std::any_of(id.begin(), id.end(), [&](char c) { return index_of_[byte(c)] == absent; }))
        return numbers;
    read_numbers(id, [&](uint64_t v) {
        numbers.push_back(v);
        return true;
    });
    return numbers;
}

void Codec::decode_exact(std::string_view id, std::span<uint64_t> numbers) const {
    if (numbers.empty())
        throw Error(ErrorKind::invalid_parameter, "a Sqids id holds at least one number, not 0");
    auto invalid = [&](const std::string &why) {
        throw Error(ErrorKind::invalid_text, "invalid Sqids id " + shown(id) + ": " + why);
    };
    if (id.empty())
        invalid("it is empty");
    for (size_t i = 0; i < id.size(); ++i)
        if (index_of_[byte(id[i])] == absent)
            invalid("character " + shown(id_text::char_at(id, i)) + " at position " +
                    std::to_string(id_text::position_of(id, i)) + " is not in the alphabet");
    size_t count = 0;
    read_numbers(id, [&](uint64_t v) {
        if (count < numbers.size())
            numbers[count] = v;
        return ++count <= numbers.size(); // one more tells that there are too many
    });
    if (count != numbers.size()) {
        // Too many: count them all for the message.
        const size_t found = count > numbers.size() ? decode(id).size() : count;
        invalid("it holds " + std::to_string(found) + (found == 1 ? " number" : " numbers") + ", expected " +
                std::to_string(numbers.size()));
    }
    // Sqids reads many spellings of one list; only encode's own is an id.
    std::optional<std::string> canonical = try_encode(numbers);
    if (!canonical || *canonical != id)
        invalid("it is not the id of its numbers, only another spelling of them");
}

std::vector<uint64_t> Codec::decode_exact(std::string_view id, size_t count) const {
    std::vector<uint64_t> numbers(count);
    decode_exact(id, std::span<uint64_t>(numbers));
    return numbers;
}

} // namespace crid::core::sqids
