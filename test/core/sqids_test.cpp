// Sqids: ids and decodings computed by the npm package sqids 0.3.0
// (vectors/sqids/sqids_vectors.inc; vectors/sqids/README.md says how), so an
// equal id means crid and the JavaScript library read and write the same
// ids. Past npm's range (numbers above 2^53 - 1) the checks are round trips.
// Then what crid adds: bad options, decode_exact's single spelling, and
// numbers up to 2^64 - 1.
#include "check.hpp"

#include "../../src/core/sqids.hpp"

#include <algorithm>
#include <string>
#include <vector>

using namespace crid::core;
using crid::test::contains;
using crid::test::message_of;
using sqids::Codec;

namespace {

enum class Kind { encode, decode, blocked };
struct Vector {
    Kind kind;
    const char *alphabet;
    int min_length;
    std::vector<std::string> blocklist;
    std::vector<uint64_t> numbers;
    const char *id; // nullptr for Kind::blocked
};

const std::vector<Vector> &vectors() {
    static const std::vector<Vector> rows = {
#include "vectors/sqids/sqids_vectors.inc"
    };
    return rows;
}

// A list as text, for CHECK_EQ's message.
std::string list(const std::vector<uint64_t> &numbers) {
    std::string s = "[";
    for (uint64_t v : numbers)
        s += (s.size() > 1 ? ", " : "") + std::to_string(v);
    return s + "]";
}

// splitmix64: fixed-seed numbers for round trips.
struct Draw {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
    }
    // Any size, small ones as often as large ones.
    uint64_t number() { return next() >> (next() % 64); }
    std::vector<uint64_t> numbers(size_t count) {
        std::vector<uint64_t> v(count);
        for (uint64_t &x : v)
            x = number();
        return v;
    }
};

const std::string printable = [] {
    std::string s;
    for (char c = '!'; c <= '~'; ++c)
        s += c;
    return s;
}();

// encode gives the id back from decode and decode_exact, and its length.
void check_round_trip(const Codec &c, const std::vector<uint64_t> &numbers, size_t min_length) {
    std::string id = c.encode(numbers);
    CHECK(id.size() >= min_length);
    CHECK_EQ(list(c.decode(id)), list(numbers));
    CHECK_EQ(list(c.decode_exact(id, numbers.size())), list(numbers));
}

// decode_exact of any text: its numbers, when encode spells them as the
// text; otherwise invalid_text (never another error).
void check_one_spelling(const Codec &c, std::string_view text, size_t count) {
    try {
        std::vector<uint64_t> numbers = c.decode_exact(text, count);
        CHECK_EQ(c.encode(numbers), std::string(text));
    } catch (const Error &e) {
        CHECK(e.kind() == ErrorKind::invalid_text);
    }
}

} // namespace

TEST(sqids_npm_vectors) {
    size_t counts[3] = {};
    for (const Vector &v : vectors()) {
        Codec c(v.alphabet, v.min_length, v.blocklist);
        ++counts[int(v.kind)];
        if (v.kind == Kind::blocked) {
            CHECK_THROWS(c.encode(v.numbers), invalid_parameter);
            continue;
        }
        CHECK_EQ(list(c.decode(v.id)), list(v.numbers));
        if (v.kind == Kind::encode) {
            CHECK_EQ(c.encode(v.numbers), std::string(v.id));
            if (!v.numbers.empty())
                CHECK_EQ(list(c.decode_exact(v.id, v.numbers.size())), list(v.numbers));
        } else {
            // npm reads the text, but it is not npm's spelling of the numbers.
            CHECK_THROWS(c.decode_exact(v.id, std::max<size_t>(1, v.numbers.size())), invalid_text);
        }
    }
    // A failed regeneration leaves the file empty: the rows must be there.
    CHECK(counts[int(Kind::encode)] >= 400);
    CHECK(counts[int(Kind::decode)] >= 80);
    CHECK(counts[int(Kind::blocked)] >= 2);
}

TEST(sqids_known_ids_of_the_spec) {
    // The README example of sqids.org, and its padded form.
    Codec c(sqids::default_alphabet, 0, {});
    CHECK_EQ(c.encode(std::vector<uint64_t>{1, 2, 3}), "86Rf07");
    CHECK_EQ(Codec(sqids::default_alphabet, 10, {}).encode(std::vector<uint64_t>{1, 2, 3}), "86Rf07xd4z");
    CHECK_EQ(c.encode(std::vector<uint64_t>{}), "");
    CHECK(c.decode("").empty());
}

TEST(sqids_random_uint64_lists_round_trip) {
    const Codec codecs[] = {
        Codec(sqids::default_alphabet, 0, {}),
        Codec(sqids::default_alphabet, 20, {}),
        Codec("abc", 0, {}),
        Codec("abc", 7, {}),
        Codec(printable, 0, {}),
        Codec("0123456789abcdef-_", 64, {"dead", "beef", "c0ffee"}),
    };
    const size_t min_lengths[] = {0, 20, 0, 7, 0, 64};
    Draw draw{42};
    for (size_t k = 0; k < std::size(codecs); ++k)
        for (int i = 0; i < 400; ++i)
            check_round_trip(codecs[k], draw.numbers(1 + i % 8), min_lengths[k]);
}

TEST(sqids_numbers_past_javascript_round_trip_up_to_uint64_max) {
    const uint64_t js_max = (uint64_t(1) << 53) - 1;
    const std::vector<std::vector<uint64_t>> lists = {
        {js_max + 1},
        {js_max + 2},
        {UINT64_MAX - 1},
        {UINT64_MAX},
        {UINT64_MAX, 0},
        {0, UINT64_MAX, 0},
        {uint64_t(INT64_MAX), uint64_t(INT64_MAX) + 1},
        {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX},
    };
    for (std::string_view alphabet : {sqids::default_alphabet, std::string_view("abc"), std::string_view(printable)})
        for (int min_length : {0, 30})
            for (const auto &numbers : lists)
                check_round_trip(Codec(alphabet, min_length, {}), numbers, size_t(min_length));
    // Neighbours past 2^53 get different ids (a double could not tell them apart).
    Codec c(sqids::default_alphabet, 0, {});
    CHECK(c.encode(std::vector<uint64_t>{js_max + 1}) != c.encode(std::vector<uint64_t>{js_max + 2}));
    // In "abc" a number's digits are base 2: 2^64 - 1 is a prefix and 64 ones.
    std::string id = Codec("abc", 0, {}).encode(std::vector<uint64_t>{UINT64_MAX});
    CHECK_EQ(id.size(), size_t(65));
    CHECK(std::all_of(id.begin() + 1, id.end(), [&](char ch) { return ch == id[1]; }));
}

TEST(sqids_decode_refuses_numbers_past_uint64_max) {
    for (std::string_view alphabet : {sqids::default_alphabet, std::string_view("abc"), std::string_view(printable)}) {
        Codec c(alphabet, 0, {});
        std::string id = c.encode(std::vector<uint64_t>{5, UINT64_MAX});
        // One digit more: the last number times the base, past 2^64 - 1.
        std::string longer = id + id.back();
        CHECK_THROWS(c.decode(longer), invalid_text);
        CHECK_THROWS(c.decode_exact(longer, 2), invalid_text);
        CHECK(contains(message_of([&] { c.decode(longer); }), "larger than 18446744073709551615"));
        // The message quotes the text as shown() does: at most 40 characters.
        if (longer.size() > 40)
            CHECK(!contains(message_of([&] { c.decode(longer); }), longer));
    }
}

TEST(sqids_min_length_pads_and_padding_is_skipped) {
    Codec plain(sqids::default_alphabet, 0, {});
    const std::vector<std::vector<uint64_t>> lists = {{0}, {1, 2, 3}, {UINT64_MAX}, {7, 0, 7, 0, 7}};
    for (int min_length : {1, 2, 3, 5, 10, 30, 61, 62, 63, 100, 124, 200, 255}) {
        Codec padded(sqids::default_alphabet, min_length, {});
        for (const auto &numbers : lists) {
            std::string short_id = plain.encode(numbers), id = padded.encode(numbers);
            const size_t length = std::max(short_id.size(), size_t(min_length));
            CHECK_EQ(id.size(), length);
            // The padded id starts as the short one; any codec of the alphabet
            // reads it, whatever its min_length.
            CHECK_EQ(id.substr(0, short_id.size()), short_id);
            CHECK_EQ(list(plain.decode(id)), list(numbers));
            CHECK_EQ(list(padded.decode(id)), list(numbers));
            CHECK_EQ(list(padded.decode_exact(id, numbers.size())), list(numbers));
            // But only the codec that pads accepts it as its id, and the
            // short id is too short for the codec that pads.
            if (id != short_id) {
                CHECK_THROWS(plain.decode_exact(id, numbers.size()), invalid_text);
                CHECK_THROWS(padded.decode_exact(short_id, numbers.size()), invalid_text);
            }
        }
    }
}

TEST(sqids_bad_options_are_refused) {
    auto message = [](std::string_view alphabet, int min_length) {
        return message_of([&] { Codec(alphabet, min_length, {}); });
    };
    CHECK_THROWS(Codec("", 0, {}), invalid_parameter);
    CHECK_THROWS(Codec("ab", 0, {}), invalid_parameter);
    CHECK(contains(message("ab", 0), "it has 2 characters, at least 3 are needed"));
    CHECK_THROWS(Codec("abca", 0, {}), invalid_parameter);
    CHECK(contains(message("abca", 0), "character \"a\" appears twice, at positions 1 and 4"));
    CHECK_THROWS(Codec("ab c", 0, {}), invalid_parameter);
    CHECK(contains(message("ab c", 0), "character \" \" at position 3 is not a printable ASCII character"));
    CHECK_THROWS(Codec("abc\t", 0, {}), invalid_parameter);
    CHECK_THROWS(Codec("abc\x7f", 0, {}), invalid_parameter);
    CHECK_THROWS(Codec(std::string_view("ab\0c", 4), 0, {}), invalid_parameter);
    // npm refuses multibyte characters; crid every byte outside ASCII, and
    // names the character as typed.
    CHECK_THROWS(Codec("abc\xc3\xa9", 0, {}), invalid_parameter);
    CHECK(contains(message("abc\xc3\xa9", 0), "character \"\xc3\xa9\" at position 4"));
    CHECK_THROWS(Codec("abc\xff", 0, {}), invalid_parameter);
    // A long alphabet is quoted as shown() quotes: 40 characters at most.
    std::string long_bad = printable + " ";
    CHECK(!contains(message(long_bad, 0), printable));
    CHECK_THROWS(Codec(sqids::default_alphabet, -1, {}), invalid_parameter);
    CHECK_THROWS(Codec(sqids::default_alphabet, 256, {}), invalid_parameter);
    CHECK(contains(message(sqids::default_alphabet, 256), "min_length 256: it must be between 0 and 255"));
    // The limits themselves are fine.
    Codec("abc", 0, {});
    Codec(printable, 255, {});
}

TEST(sqids_blocklist_words_are_filtered_as_npm_filters_them) {
    auto kept = [](std::string_view alphabet, std::vector<std::string> words) {
        return Codec(alphabet, 0, std::move(words)).blocklist_size();
    };
    CHECK_EQ(kept(sqids::default_alphabet, {}), size_t(0));
    CHECK_EQ(kept(sqids::default_alphabet, {"", "a", "ab"}), size_t(0));       // shorter than 3
    CHECK_EQ(kept(sqids::default_alphabet, {"abc", "ABC", "aBc"}), size_t(1)); // lower-cased, then one
    CHECK_EQ(kept(sqids::default_alphabet, {"a-c", "ab c", "h\xc3\xa9llo", "ab\xff"}), size_t(0));
    // The Kelvin sign lower-cases to "k" in JavaScript; U+0130 (capital I
    // with dot) to "i" and a combining dot, which no alphabet holds.
    CHECK_EQ(kept(sqids::default_alphabet, {"\u212Aab"}), size_t(1));
    CHECK_EQ(kept(sqids::default_alphabet, {"\u0130ab"}), size_t(0));
    // Words are checked against the lower-cased alphabet.
    CHECK_EQ(kept("ABCDEF", {"abc", "ABC", "fed"}), size_t(2));
    CHECK_EQ(kept("abcdef", {"ABC", "xyz"}), size_t(1));
    CHECK_EQ(kept("0123456789", {"012", "0123", "01a"}), size_t(2));
}

// npm's rule, written out plainly: the encoder's ids must pass it.
static bool npm_blocks(std::string id, const std::vector<std::string> &words) {
    std::transform(id.begin(), id.end(), id.begin(), [](char ch) { return char(std::tolower(ch)); });
    for (const std::string &w : words) {
        if (w.size() > id.size())
            continue;
        if (id.size() <= 3 || w.size() <= 3) {
            if (id == w)
                return true;
        } else if (std::any_of(w.begin(), w.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
            if (id.starts_with(w) || id.ends_with(w))
                return true;
        } else if (id.find(w) != std::string::npos) {
            return true;
        }
    }
    return false;
}

TEST(sqids_a_long_blocklist_is_kept_out_of_ids) {
    // 20000 words of 3 to 5 characters: many ids collide and re-generate.
    Draw draw{7};
    std::vector<std::string> words;
    const std::string_view lower = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int i = 0; i < 20000; ++i) {
        std::string w;
        for (size_t n = 3 + draw.next() % 3; w.size() < n;)
            w += lower[draw.next() % lower.size()];
        words.push_back(w);
    }
    Codec c(sqids::default_alphabet, 0, words);
    Codec plain(sqids::default_alphabet, 0, {});
    int regenerated = 0;
    for (int i = 0; i < 2000; ++i) {
        std::vector<uint64_t> numbers = draw.numbers(1 + i % 3);
        std::string id = c.encode(numbers);
        CHECK(!npm_blocks(id, words));
        CHECK_EQ(list(c.decode_exact(id, numbers.size())), list(numbers));
        regenerated += id != plain.encode(numbers);
    }
    CHECK(regenerated > 10);
}

TEST(sqids_every_regeneration_blocked_is_an_error) {
    std::vector<std::string> all;
    for (char a : std::string("abc"))
        for (char b : std::string("abc"))
            for (char d : std::string("abc"))
                all.push_back({a, b, d});
    Codec blocked("abc", 3, all);
    CHECK_THROWS(blocked.encode(std::vector<uint64_t>{0}), invalid_parameter);
    CHECK(contains(message_of([&] { blocked.encode(std::vector<uint64_t>{0}); }),
                   "every re-generation of it (3, one per alphabet character) is blocked"));
    // A text that reads as those numbers is no id: none exists.
    std::string text = Codec("abc", 3, {}).encode(std::vector<uint64_t>{0});
    CHECK_EQ(list(blocked.decode(text)), "[0]");
    CHECK_THROWS(blocked.decode_exact(text, 1), invalid_text);
}

TEST(sqids_decode_exact_accepts_one_spelling) {
    Codec c(sqids::default_alphabet, 0, {});
    const std::string id = c.encode(std::vector<uint64_t>{1, 2, 3}); // "86Rf07"
    CHECK_EQ(list(c.decode_exact(id, 3)), "[1, 2, 3]");
    auto message = [&](std::string_view text, size_t count) {
        return message_of([&] { c.decode_exact(text, count); });
    };
    CHECK_THROWS(c.decode_exact("", 1), invalid_text);
    CHECK(contains(message("", 1), "invalid Sqids id \"\": it is empty"));
    CHECK_THROWS(c.decode_exact(id, 0), invalid_parameter);
    CHECK_THROWS(c.decode_exact(id, 2), invalid_text);
    CHECK(contains(message(id, 2), "it holds 3 numbers, expected 2"));
    CHECK_THROWS(c.decode_exact(id, 4), invalid_text);
    CHECK_THROWS(c.decode_exact(id.substr(0, 1), 1), invalid_text);
    CHECK(contains(message(id.substr(0, 1), 1), "it holds 0 numbers, expected 1"));
    // Bytes outside the alphabet, named with their position as typed.
    CHECK(contains(message("86R!07", 3), "character \"!\" at position 4 is not in the alphabet"));
    CHECK(contains(message("86\xc3\xa9\x66\x30\x37", 3), "character \"\xc3\xa9\" at position 3"));
    CHECK(contains(message("86Rf07\xff", 3), "character \"\\xFF\" at position 7"));
    CHECK_THROWS(c.decode_exact("86Rf07 ", 3), invalid_text);
    CHECK_THROWS(c.decode_exact(std::string_view("86Rf07\0", 7), 3), invalid_text);
    // The same numbers spelled another way: padding another codec added.
    std::string padded = Codec(sqids::default_alphabet, 12, {}).encode(std::vector<uint64_t>{1, 2, 3});
    CHECK_EQ(list(c.decode(padded)), "[1, 2, 3]");
    CHECK_THROWS(c.decode_exact(padded, 3), invalid_text);
    CHECK(contains(message(padded, 3), "it is not the id of its numbers"));
    // Every one-character change of some ids: another id, or refused.
    Draw draw{3};
    for (int i = 0; i < 40; ++i) {
        std::vector<uint64_t> numbers = draw.numbers(1 + i % 4);
        std::string good = c.encode(numbers);
        for (size_t at = 0; at <= good.size(); ++at)
            for (char ch : sqids::default_alphabet) {
                std::string inserted = good.substr(0, at) + ch + good.substr(at);
                check_one_spelling(c, inserted, numbers.size());
                if (at < good.size()) {
                    std::string replaced = good;
                    replaced[at] = ch;
                    if (replaced != good)
                        check_one_spelling(c, replaced, numbers.size());
                }
            }
        check_one_spelling(c, good.substr(1), numbers.size());
        check_one_spelling(c, good.substr(0, good.size() - 1), numbers.size());
    }
}

TEST(sqids_a_changed_first_character_is_not_the_same_id) {
    // Any other first character: the text is refused, or it is the id of
    // other numbers; never a second spelling of [1, 2, 3].
    Codec c(sqids::default_alphabet, 0, {});
    const std::string id = "86Rf07";
    for (char ch : sqids::default_alphabet) {
        if (ch == id[0])
            continue;
        std::string other = ch + id.substr(1);
        check_one_spelling(c, other, 3);
        try {
            CHECK(list(c.decode_exact(other, 3)) != "[1, 2, 3]");
        } catch (const Error &) {
        }
    }
}
