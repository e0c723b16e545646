#include "marks.hpp"

#include "error.hpp"
#include "text.hpp"

#include <charconv>
#include <cstdio>
#include <vector>

namespace crid::core::marks {

namespace {

constexpr std::string_view high_water_header = "crid_high_water 2";
constexpr std::string_view registry_header = "crid_registry_mark 1";
constexpr size_t max_value = 512; // longer values are damage, not data

[[noreturn]] void damaged(std::string_view file, const std::string &why) {
    throw Error(ErrorKind::invalid_text, std::string(file) + " is damaged: " + why);
}

struct Line {
    std::string_view key, value;
};

// The "key value" lines between the header and a checksum that matches.
std::vector<Line> checked_lines(std::string_view file, std::string_view header, std::string_view text) {
    if (text.substr(0, header.size()) != header || text.size() == header.size() || text[header.size()] != '\n')
        damaged(file, "its first line is not \"" + std::string(header) + "\"");
    size_t sum_at = text.rfind("checksum ");
    if (sum_at == std::string_view::npos || sum_at == 0 || text[sum_at - 1] != '\n')
        damaged(file, "it has no checksum line (a write may have been cut short)");
    std::string_view sum_text = text.substr(sum_at + 9);
    if (sum_text.size() != 17 || sum_text.back() != '\n')
        damaged(file, "its checksum line is malformed");
    sum_text.remove_suffix(1);
    for (char c : sum_text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            damaged(file, "its checksum line is malformed");
    uint64_t written = 0;
    auto [end, ec] = std::from_chars(sum_text.data(), sum_text.data() + sum_text.size(), written, 16);
    if (ec != std::errc() || end != sum_text.data() + sum_text.size())
        damaged(file, "its checksum line is malformed");
    std::string_view body = text.substr(0, sum_at);
    if (checksum(body) != written)
        damaged(file, "its checksum does not match its contents");
    std::vector<Line> lines;
    body.remove_prefix(header.size() + 1);
    while (!body.empty()) {
        size_t nl = body.find('\n');
        if (nl == std::string_view::npos)
            damaged(file, "a line does not end");
        std::string_view line = body.substr(0, nl);
        body.remove_prefix(nl + 1);
        size_t space = line.find(' ');
        if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
            line.size() - space - 1 > max_value)
            damaged(file, "a line is not \"key value\"");
        for (char c : line)
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
                damaged(file, "a line holds a control character");
        lines.push_back({line.substr(0, space), line.substr(space + 1)});
    }
    return lines;
}

// The value of `key`, which must appear exactly once.
std::string_view value_of(std::string_view file, const std::vector<Line> &lines, std::string_view key) {
    std::string_view found;
    int count = 0;
    for (const Line &l : lines)
        if (l.key == key) {
            found = l.value;
            ++count;
        }
    if (count != 1)
        damaged(file, count == 0 ? "it has no " + std::string(key) + " line"
                                 : "it has " + std::to_string(count) + " " + std::string(key) + " lines");
    return found;
}

// Every key is one the format knows.
void only_keys(std::string_view file, const std::vector<Line> &lines, std::initializer_list<std::string_view> keys) {
    for (const Line &l : lines) {
        bool known = false;
        for (std::string_view k : keys)
            known = known || l.key == k;
        if (!known)
            damaged(file, "it has an unknown line \"" + std::string(l.key.substr(0, 40)) + "\"");
    }
}

int64_t number(std::string_view file, std::string_view key, std::string_view text) {
    int64_t v = -1;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (!text::all_digits(text) || ec != std::errc() || end != text.data() + text.size())
        damaged(file, std::string(key) + " is not a number from 0 to 9223372036854775807");
    return v;
}

std::string with_checksum(std::string body) {
    char sum[32];
    std::snprintf(sum, sizeof sum, "checksum %016llx\n", static_cast<unsigned long long>(checksum(body)));
    return body + sum;
}

// crid 0.1.0's crid_high_water: "<unix ms>" and "<layout>", separated and
// followed by whitespace.
HighWater parse_high_water_0_1(std::string_view text) {
    auto token = [&text]() {
        size_t start = 0;
        while (start < text.size() && text::is_space(text[start]))
            ++start;
        size_t stop = start;
        while (stop < text.size() && !text::is_space(text[stop]))
            ++stop;
        std::string_view t = text.substr(start, stop - start);
        text.remove_prefix(stop);
        return t;
    };
    std::string_view ms = token(), layout = token();
    bool printable = true;
    for (char c : layout)
        printable = printable && c > 0x20 && c < 0x7f;
    if (ms.empty() || layout.empty() || !printable || !text::trim(text).empty() || layout.size() > 255)
        damaged("crid_high_water", "it is neither the format of crid 0.2 nor that of 0.1 (a millisecond and a layout)");
    HighWater mark;
    mark.unix_ms = number("crid_high_water", "its millisecond", ms);
    mark.layout = std::string(layout);
    return mark;
}

} // namespace

uint64_t checksum(std::string_view bytes) noexcept {
    uint64_t h = UINT64_C(14695981039346656037);
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= UINT64_C(1099511628211);
    }
    return h;
}

std::string format(const HighWater &mark) {
    return with_checksum(std::string(high_water_header) + "\nunix_ms " + std::to_string(mark.unix_ms) +
                         "\nsnowflake_layout " + mark.layout + "\n");
}

std::string format(const RegistryMark &mark) {
    return with_checksum(std::string(registry_header) + "\nunix_s " + std::to_string(mark.unix_s) + "\nsequence " +
                         std::to_string(mark.sequence) + "\n");
}

HighWater parse_high_water(std::string_view text) {
    constexpr std::string_view file = "crid_high_water";
    if (text.substr(0, file.size()) != file)
        return parse_high_water_0_1(text);
    std::vector<Line> lines = checked_lines(file, high_water_header, text);
    only_keys(file, lines, {"unix_ms", "snowflake_layout"});
    HighWater mark;
    mark.unix_ms = number(file, "unix_ms", value_of(file, lines, "unix_ms"));
    mark.layout = std::string(value_of(file, lines, "snowflake_layout"));
    return mark;
}

RegistryMark parse_registry_mark(std::string_view text) {
    constexpr std::string_view file = "crid_registry_mark";
    std::vector<Line> lines = checked_lines(file, registry_header, text);
    only_keys(file, lines, {"unix_s", "sequence"});
    RegistryMark mark;
    mark.unix_s = number(file, "unix_s", value_of(file, lines, "unix_s"));
    mark.sequence = number(file, "sequence", value_of(file, lines, "sequence"));
    return mark;
}

} // namespace crid::core::marks
