#include "snowflake_layout.hpp"

#include "error.hpp"
#include "text.hpp"
#include "time_units.hpp"

#include <optional>
#include <vector>

namespace crid::core::snowflake {

namespace {

using text::all_digits;
using text::lower;
using text::trim;

constexpr int64_t ms_per_day = INT64_C(86400000);
// 9999-12-31 23:59:59.999 UTC: the last epoch the four-digit date form spells.
constexpr int64_t max_epoch_unix_ms = INT64_C(253402300799999);

// Logical order of the fields in id_bits() and in Fields.
enum FieldIndex { time_field, node_field, sequence_field, gene_field };

// 63 bits, 64 when the time field may take the sign bit, or the layout's bits=.
int usable_bits(const Layout &l) noexcept { return id_width(l); }

// The fewest bits= a layout may give its ids, and the fewest time bits a
// field of long units may have (at least 2^32 ms, as 32 bits of ms).
constexpr int min_width = 33;
constexpr int min_time_bits_long_units = 16;

// How messages name a layout: presets by name, others by what they are.
std::string label(const Layout &l) {
    if (l.name.empty() || l.name == "custom")
        return "the custom snowflake layout";
    if (l.name == "server")
        return "this server's snowflake layout";
    return "snowflake layout " + l.name;
}

// The same text with at most 120 characters, for echoing input in messages.
std::string clip(std::string_view text) {
    constexpr size_t limit = 120;
    return text.size() <= limit ? std::string(text) : std::string(text.substr(0, limit)) + "...";
}

// Days since 1970-01-01 of a proleptic Gregorian date (era-based, exact for
// every year the epoch syntax accepts).
int64_t days_from_civil(int64_t y, int m, int d) noexcept {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

// Days in a month of the proleptic Gregorian calendar.
int days_in_month(int64_t y, int m) noexcept {
    static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

// The widths a field may have. These are the documented limits, not limits of
// the bit layout: at most 16 node bits (65,536 generators a server), at most
// 22 sequence bits (with no node bits, 41 bits of time are left: 69 years of
// milliseconds) and at most 16 gene bits (65,536 shards). The time field gets
// at least 32 bits and what the others leave.
struct WidthLimit {
    const char *field;
    int Layout::*bits;
    int min, max;
};
constexpr WidthLimit width_limits[] = {
    {"node", &Layout::node_bits, 0, 16},
    {"sequence", &Layout::sequence_bits, 1, 22},
    {"gene", &Layout::gene_bits, 0, 16},
};

// Every check of a layout, with messages starting with `prefix` so a spec's
// errors can quote the spec.
void check(const Layout &l, const std::string &prefix, bool time_derived) {
    for (const WidthLimit &w : width_limits) {
        const int v = l.*w.bits;
        if (v < w.min || v > w.max)
            throw Error(ErrorKind::invalid_parameter, prefix + "the " + std::string(w.field) + " field has " +
                                                          std::to_string(v) + " bits, outside " +
                                                          std::to_string(w.min) + " to " + std::to_string(w.max));
    }
    if (l.width != 0 && (l.width < min_width || l.width > 63 || l.use_sign_bit))
        throw Error(ErrorKind::invalid_parameter,
                    prefix + "bits=" + std::to_string(l.width) +
                        (l.use_sign_bit ? " cannot go with sign=true" : " is outside 33 to 63"),
                    "bits= narrows the ids to their low bits (bits=53: JavaScript-safe); sign=true uses all 64.");
    const int total = usable_bits(l);
    // Fewer than 32 time bits are enough when the units are long: 30 bits of
    // seconds last 34 years (the javascript preset).
    int64_t short_span = 0;
    const bool long_units =
        l.time_bits >= min_time_bits_long_units && l.time_bits < 32 && l.unit_ms > 1 &&
        (__builtin_mul_overflow(int64_t(1) << l.time_bits, l.unit_ms, &short_span) || short_span >= (INT64_C(1) << 32));
    if ((l.time_bits < 32 && !long_units) || l.time_bits > total - 1) {
        std::string hint =
            time_derived ? "The time field gets the bits that node (" + std::to_string(l.node_bits) + "), sequence (" +
                               std::to_string(l.sequence_bits) + ") and gene (" + std::to_string(l.gene_bits) +
                               ") leave of " + std::to_string(total) + "."
                         : "A snowflake needs at least 32 bits of time to last a useful while (down to 16 when its "
                           "units span at least 2^32 ms, such as 30 bits of seconds).";
        throw Error(ErrorKind::invalid_parameter,
                    prefix + "the time field has " + std::to_string(l.time_bits) + " bits, outside 32 to " +
                        std::to_string(total - 1),
                    hint);
    }
    const int sum = l.time_bits + l.node_bits + l.sequence_bits + l.gene_bits;
    if (sum != total)
        throw Error(ErrorKind::invalid_parameter,
                    prefix + "the fields add up to " + std::to_string(sum) + " bits (time " +
                        std::to_string(l.time_bits) + " + node " + std::to_string(l.node_bits) + " + sequence " +
                        std::to_string(l.sequence_bits) + " + gene " + std::to_string(l.gene_bits) + "), not " +
                        std::to_string(total),
                    "A layout uses exactly 63 bits, 64 with sign=true, or bits= when given; leave out time= to "
                    "give it the rest.");
    if (l.unit_ms < 1)
        throw Error(ErrorKind::invalid_parameter,
                    prefix + "the time unit is " + std::to_string(l.unit_ms) + " ms; it must be at least 1 ms");
    if (l.epoch_unix_ms < 0 || l.epoch_unix_ms > max_epoch_unix_ms)
        throw Error(ErrorKind::invalid_parameter, prefix + "the epoch (Unix ms " + std::to_string(l.epoch_unix_ms) +
                                                      ") is outside " +
                                                      "1970-01-01 00:00:00 UTC to 9999-12-31 23:59:59.999 UTC");
    // unix_ms_of() must never overflow: the last unit has to end within int64 ms.
    int64_t span = 0, tail = 0, end = 0;
    if (__builtin_mul_overflow(max_time_units(l), l.unit_ms, &span) ||
        __builtin_add_overflow(l.epoch_unix_ms, l.unit_ms - 1, &tail) || __builtin_add_overflow(span, tail, &end))
        throw Error(ErrorKind::invalid_parameter,
                    prefix + "a " + std::to_string(l.time_bits) + "-bit time field in units of " +
                        std::to_string(l.unit_ms) + " ms runs past the largest 64-bit count of milliseconds",
                    "Use fewer time bits or a shorter unit.");
}

// The presets, by lower-case name: one row each, fields in Layout's order
// (epoch, unit, time, node, sequence, gene, sequence above node, sign bit).
struct Preset {
    std::string_view name;
    int64_t epoch_unix_ms, unit_ms;
    int time_bits, node_bits, sequence_bits, gene_bits;
    bool sequence_above_node, use_sign_bit;
    int width = 0; // bits=, 0 for all
};
// clang-format off
constexpr Preset presets[] = {
    {"twitter",   INT64_C(1288834974657),  1, 41, 10, 12, 0, false, false},
    {"discord",   INT64_C(1420070400000),  1, 42, 10, 12, 0, false, true},
    {"instagram", INT64_C(1314220021721),  1, 41, 13, 10, 0, false, true},
    {"sonyflake", INT64_C(1409529600000), 10, 39, 16,  8, 0, true,  false},
    {"sonyflake2", INT64_C(1735689600000), 10, 39, 16,  8, 0, true,  false},
    {"pgedge",    INT64_C(1672531200000),  1, 41, 10, 12, 0, false, false},
    {"crid",      INT64_C(1767225600000),  1, 41, 10, 12, 0, false, false},
    {"javascript", INT64_C(1767225600000), 1000, 30, 7, 16, 0, false, false, 53},
};
// clang-format on

std::optional<Layout> find_preset(std::string_view name) {
    if (name == "default")
        name = "crid";
    for (const Preset &p : presets)
        if (p.name == name)
            return Layout{.epoch_unix_ms = p.epoch_unix_ms,
                          .unit_ms = p.unit_ms,
                          .time_bits = p.time_bits,
                          .node_bits = p.node_bits,
                          .sequence_bits = p.sequence_bits,
                          .gene_bits = p.gene_bits,
                          .sequence_above_node = p.sequence_above_node,
                          .use_sign_bit = p.use_sign_bit,
                          .width = p.width,
                          .name = std::string(p.name)};
    return std::nullopt;
}

constexpr const char *spec_hint =
    "A custom layout is key=value items: epoch (YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[.fff]Z or Unix ms), node, "
    "sequence, and optionally time, gene, unit (1ms, 10ms, 1s), sign (true|false), order (time,node,sequence "
    "or time,sequence,node), bits (33 to 63, the width of the ids; 53 for JavaScript); e.g. "
    "'epoch=2020-01-01,unit=1ms,time=41,node=10,sequence=12'.";

// Reads a custom spec; every error quotes the spec and names the key and value.
class SpecParser {
  public:
    explicit SpecParser(std::string_view text)
        : text_(text), prefix_("invalid snowflake layout \"" + clip(text) + "\": ") {}

    // The validated layout the spec spells.
    Layout parse() {
        split();
        Layout l;
        std::optional<int64_t> time;
        bool have_epoch = false, have_node = false, have_sequence = false;
        for (const auto &[key, value] : items_) {
            if (key == "epoch") {
                l.epoch_unix_ms = epoch(value);
                have_epoch = true;
            } else if (key == "unit") {
                l.unit_ms = unit(value);
            } else if (key == "time") {
                time = width(key, value);
            } else if (key == "node") {
                l.node_bits = int(width(key, value));
                have_node = true;
            } else if (key == "sequence") {
                l.sequence_bits = int(width(key, value));
                have_sequence = true;
            } else if (key == "gene") {
                l.gene_bits = int(width(key, value));
            } else if (key == "sign") {
                l.use_sign_bit = boolean(key, value);
            } else if (key == "order") {
                l.sequence_above_node = order(value);
            } else if (key == "bits") {
                l.width = int(width(key, value));
                if (l.width == 63)
                    l.width = 0; // the default, spelled out
            } else {
                fail("unknown key \"" + clip(key) + "\"");
            }
        }
        if (!have_epoch)
            fail("the key epoch is missing");
        if (!have_node)
            fail("the key node is missing (node=0 for a layout without a node field)");
        if (!have_sequence)
            fail("the key sequence is missing");
        l.time_bits = time ? int(*time) : usable_bits(l) - l.node_bits - l.sequence_bits - l.gene_bits;
        check(l, prefix_, !time);
        return l;
    }

  private:
    // Throws invalid_parameter quoting the spec.
    [[noreturn]] void fail(const std::string &what) const {
        throw Error(ErrorKind::invalid_parameter, prefix_ + what, spec_hint);
    }

    // Throws for a value, naming its key.
    [[noreturn]] void bad_value(const std::string &key, std::string_view value, const std::string &why) const {
        fail(key + "=" + clip(value) + " " + why);
    }

    // Splits on ',' into key=value items; bare words after order= continue its value.
    void split() {
        std::string_view rest = text_;
        for (;;) {
            size_t comma = rest.find(',');
            std::string_view part = trim(rest.substr(0, comma));
            if (part.empty())
                fail("an item is empty (two commas in a row, or a comma at an end)");
            size_t eq = part.find('=');
            if (eq == std::string_view::npos) {
                if (items_.empty() || items_.back().first != "order")
                    fail("\"" + clip(part) + "\" is not a key=value item (a preset name cannot be combined with keys)");
                items_.back().second += "," + std::string(part);
            } else {
                std::string key = lower(trim(part.substr(0, eq)));
                std::string value(trim(part.substr(eq + 1)));
                if (key.empty())
                    fail("an item has no key before '='");
                if (value.empty())
                    fail("the key " + clip(key) + " has no value");
                for (const auto &item : items_)
                    if (item.first == key)
                        fail("the key " + clip(key) + " appears twice");
                items_.emplace_back(std::move(key), std::move(value));
            }
            if (comma == std::string_view::npos)
                break;
            rest.remove_prefix(comma + 1);
        }
    }

    // A whole number of at most 18 digits (so it cannot overflow int64).
    int64_t count(const std::string &key, std::string_view value) const {
        if (!all_digits(value) || value.size() > 18)
            bad_value(key, value, "is not a whole number");
        int64_t v = 0;
        for (char c : value)
            v = v * 10 + (c - '0');
        return v;
    }

    // A field width; check() compares it with the field's own limits.
    int64_t width(const std::string &key, std::string_view value) const {
        int64_t v = count(key, value);
        if (v > 64)
            bad_value(key, value, "is not a field width (0 to 64 bits)");
        return v;
    }

    // "true" or "false".
    bool boolean(const std::string &key, std::string_view value) const {
        std::string v = lower(value);
        if (v == "true")
            return true;
        if (v == "false")
            return false;
        bad_value(key, value, "is neither true nor false");
    }

    // "time,node,sequence" -> false, "time,sequence,node" -> true; ",gene" may follow.
    bool order(std::string_view value) const {
        std::string words;
        std::string_view rest = value;
        for (;;) {
            size_t comma = rest.find(',');
            if (!words.empty())
                words += ',';
            words += lower(trim(rest.substr(0, comma)));
            if (comma == std::string_view::npos)
                break;
            rest.remove_prefix(comma + 1);
        }
        if (words == "time,node,sequence" || words == "time,node,sequence,gene")
            return false;
        if (words == "time,sequence,node" || words == "time,sequence,node,gene")
            return true;
        bad_value("order", value, "is not time,node,sequence or time,sequence,node (the gene is always last)");
    }

    // "1ms", "10ms", "1s" or a plain integer of milliseconds.
    int64_t unit(std::string_view value) const {
        size_t n = 0;
        while (n < value.size() && value[n] >= '0' && value[n] <= '9')
            ++n;
        std::string suffix = lower(trim(value.substr(n)));
        int64_t scale = suffix.empty() || suffix == "ms" ? 1 : suffix == "s" ? ms_per_s : 0;
        if (n == 0 || scale == 0)
            bad_value("unit", value, "is not a length such as 1ms, 10ms or 1s");
        int64_t v = count("unit", value.substr(0, n)), ms = 0;
        if (__builtin_mul_overflow(v, scale, &ms))
            bad_value("unit", value, "is too long");
        return ms;
    }

    // Unix ms, YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS[.f{1,3}]Z, all UTC.
    int64_t epoch(std::string_view v) const {
        if (all_digits(v))
            return count("epoch", v);
        auto num = [&](size_t at, size_t len) -> int {
            if (at + len > v.size() || !all_digits(v.substr(at, len)))
                bad_value("epoch", v, "is not a date: use YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[.fff]Z or Unix milliseconds");
            int out = 0;
            for (size_t i = at; i < at + len; ++i)
                out = out * 10 + (v[i] - '0');
            return out;
        };
        auto expect = [&](size_t at, const char *allowed) {
            if (at >= v.size() || std::string_view(allowed).find(v[at]) == std::string_view::npos)
                bad_value("epoch", v, "is not a date: use YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[.fff]Z or Unix milliseconds");
        };
        int y = num(0, 4);
        expect(4, "-");
        int m = num(5, 2);
        expect(7, "-");
        int d = num(8, 2);
        if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
            bad_value("epoch", v, "is not a calendar date");
        int64_t ms = days_from_civil(y, m, d) * ms_per_day;
        if (v.size() == 10)
            return ms;
        expect(10, "Tt ");
        int hh = num(11, 2);
        expect(13, ":");
        int mi = num(14, 2);
        expect(16, ":");
        int ss = num(17, 2);
        if (hh > 23 || mi > 59 || ss > 59)
            bad_value("epoch", v, "is not a time of day");
        ms += ((int64_t(hh) * 60 + mi) * 60 + ss) * ms_per_s;
        size_t at = 19;
        if (at < v.size() && v[at] == '.') {
            size_t digits = 0;
            int frac = 0;
            while (at + 1 + digits < v.size() && v[at + 1 + digits] >= '0' && v[at + 1 + digits] <= '9') {
                if (digits < 3) // more are refused below; accumulating them would overflow
                    frac = frac * 10 + (v[at + 1 + digits] - '0');
                ++digits;
            }
            if (digits == 0 || digits > 3)
                bad_value("epoch", v, "needs 1 to 3 fraction digits (whole milliseconds)");
            for (size_t i = digits; i < 3; ++i)
                frac *= 10;
            ms += frac;
            at += 1 + digits;
        }
        if (at + 1 != v.size() || (v[at] != 'Z' && v[at] != 'z'))
            bad_value("epoch", v, "must end in Z: the epoch is a UTC time");
        return ms;
    }

    std::string_view text_;
    std::string prefix_;
    std::vector<std::pair<std::string, std::string>> items_;
};

// The epoch as the shortest text the spec syntax reads back.
std::string epoch_text(int64_t ms) {
    if (ms < 0 || ms > max_epoch_unix_ms)
        return std::to_string(ms);
    std::string s = describe_pg_us(pg_us_from_unix_ms(ms)); // "YYYY-MM-DD HH:MM:SS.ffffff+00"
    if (ms % ms_per_day == 0)
        return s.substr(0, 10);
    std::string out = s.substr(0, 10) + "T" + s.substr(11, 8);
    if (ms % ms_per_s != 0)
        out += "." + s.substr(20, 3);
    return out + "Z";
}

} // namespace

Layout layout_named(std::string_view text) {
    std::string_view t = trim(text);
    if (t.find('=') != std::string_view::npos)
        return SpecParser(t).parse();
    if (t.empty())
        throw Error(ErrorKind::invalid_parameter, "the snowflake layout name is empty",
                    "Use one of the presets " + std::string(preset_list) + ", or a custom layout. " + spec_hint);
    if (auto preset = find_preset(lower(t)))
        return *preset;
    throw Error(ErrorKind::invalid_parameter, "unknown snowflake layout \"" + clip(t) + "\"",
                "Use one of the presets " + std::string(preset_list) + ", or a custom layout. " + spec_hint);
}

std::string describe(const Layout &l) {
    return "epoch=" + epoch_text(l.epoch_unix_ms) + ",unit=" + std::to_string(l.unit_ms) +
           "ms,time=" + std::to_string(l.time_bits) + ",node=" + std::to_string(l.node_bits) +
           ",sequence=" + std::to_string(l.sequence_bits) + ",gene=" + std::to_string(l.gene_bits) +
           ",sign=" + (l.use_sign_bit ? "true" : "false") +
           ",order=" + (l.sequence_above_node ? "time,sequence,node" : "time,node,sequence") +
           (l.width != 0 ? ",bits=" + std::to_string(l.width) : std::string());
}

Layout server_layout(int64_t epoch_unix_ms, int node_bits, int sequence_bits, int gene_bits) {
    Layout l{.epoch_unix_ms = epoch_unix_ms,
             .unit_ms = 1,
             .time_bits = 0,
             .node_bits = node_bits,
             .sequence_bits = sequence_bits,
             .gene_bits = gene_bits,
             .sequence_above_node = false,
             .use_sign_bit = false,
             .name = "server"};
    // Checked before subtracting, so absurd settings cannot overflow the sum.
    if (node_bits >= 0 && node_bits <= 64 && sequence_bits >= 0 && sequence_bits <= 64 && gene_bits >= 0 &&
        gene_bits <= 64)
        l.time_bits = 63 - node_bits - sequence_bits - gene_bits;
    check(l, "snowflake layout of crid.snowflake_* settings: ", true);
    return l;
}

BitLayout id_bits(const Layout &l) {
    // Logical order time, node, sequence, gene; Sonyflake puts the sequence above the node.
    return BitLayout(
        {{"time", l.time_bits}, {"node", l.node_bits}, {"sequence", l.sequence_bits}, {"gene", l.gene_bits}},
        l.sequence_above_node ? std::initializer_list<int>{time_field, sequence_field, node_field, gene_field}
                              : std::initializer_list<int>{});
}

int64_t pack_checked(const Layout &l, const Fields &f) {
    const int64_t values[] = {f.time_units, f.node, f.sequence, f.gene};
    // Bit 63 is set only by sign-bit layouts: a negative bigint, as theirs are.
    return int64_t(id_bits(l).pack(values, "snowflake", [&] { return " for " + label(l); }));
}

Fields unpack(const Layout &l, int64_t id) {
    if (id < 0 && !l.use_sign_bit)
        throw Error(ErrorKind::numeric_out_of_range,
                    "snowflake id " + std::to_string(id) + " is negative, outside " + label(l) +
                        " (ids 0 to 9223372036854775807)",
                    "Only layouts with sign=true, such as discord and instagram, use the top bit.");
    if (l.width != 0 && id > max_id(l))
        throw Error(ErrorKind::numeric_out_of_range,
                    "snowflake id " + std::to_string(id) + " is outside " + label(l) + " (ids 0 to " +
                        std::to_string(max_id(l)) + ")",
                    "The layout's ids use " + std::to_string(l.width) + " bits; this id is of another layout.");
    int64_t v[4];
    id_bits(l).unpack(uint64_t(id), v);
    return Fields{
        .time_units = v[time_field], .node = v[node_field], .sequence = v[sequence_field], .gene = v[gene_field]};
}

int64_t last_unix_ms(const Layout &l) noexcept { return unit_start_unix_ms(l, max_time_units(l)) + (l.unit_ms - 1); }

int64_t unix_ms_of(const Layout &l, int64_t id) { return unit_start_unix_ms(l, unpack(l, id).time_units); }

int64_t unit_containing(const Layout &l, int64_t unix_ms) {
    if (unix_ms < l.epoch_unix_ms || unix_ms > last_unix_ms(l))
        throw Error(ErrorKind::datetime_out_of_range,
                    "time " + describe_unix_ms(unix_ms) + " is outside the range of " + label(l) + " (" +
                        describe_unix_ms(l.epoch_unix_ms) + " to " + describe_unix_ms(last_unix_ms(l)) + ")");
    return (unix_ms - l.epoch_unix_ms) / l.unit_ms;
}

int64_t floor_id(const Layout &l, int64_t unix_ms) { return int64_t(id_bits(l).floor(unit_containing(l, unix_ms))); }

int64_t pack_at(const Layout &l, int64_t unix_ms, const Fields &rest) {
    Fields f = rest;
    f.time_units = unit_containing(l, unix_ms);
    return pack(l, f);
}

} // namespace crid::core::snowflake
