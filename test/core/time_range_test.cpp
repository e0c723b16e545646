// Time conditions to id ranges: the unit arithmetic against a brute force
// over every unit, at every kind of end (open, closed, unbounded, infinite,
// on and off unit boundaries), and each family's first and last id of a unit
// against its own decoder.
#include "check.hpp"

#include "../../src/core/time_range.hpp"
#include "../../src/core/time_units.hpp"
#include "../../src/core/uuidv7.hpp"

#include <optional>
#include <random>

using namespace crid::core;
namespace tr = crid::core::time_range;
using tr::End;
using tr::Grid;
using tr::Op;
using tr::op_named;
using tr::Units;
using tr::units_between;
using tr::units_where;

namespace {

using Kind = End::Kind;

int64_t start_pg_us(const Grid &g, int64_t unit) { return pg_us_from_unix_ms(g.epoch_unix_ms + unit * g.unit_ms); }

bool satisfies(End lower, End upper, int64_t t) {
    bool lo = lower.kind == Kind::unbounded || (lower.kind == Kind::inclusive ? t >= lower.pg_us : t > lower.pg_us);
    bool hi = upper.kind == Kind::unbounded || (upper.kind == Kind::inclusive ? t <= upper.pg_us : t < upper.pg_us);
    return lo && hi;
}

// The same answer by trying every unit of a small grid.
std::optional<Units> brute_force(const Grid &g, End lower, End upper) {
    std::optional<Units> out;
    for (int64_t u = 0; u <= g.max_unit; ++u)
        if (satisfies(lower, upper, start_pg_us(g, u))) {
            if (!out)
                out = Units{u, u};
            out->last = u;
        }
    return out;
}

// First / last unit of a span, -99 for none (plain values for CHECK_EQ).
int64_t first_of(const std::optional<Units> &s) { return s ? s->first : -99; }
int64_t last_of(const std::optional<Units> &s) { return s ? s->last : -99; }

bool same(const std::optional<Units> &a, const std::optional<Units> &b) {
    return a.has_value() == b.has_value() && (!a || (a->first == b->first && a->last == b->last));
}

} // namespace

TEST(units_between_equals_brute_force_at_every_kind_of_end) {
    std::mt19937_64 rng(5);
    for (int64_t unit_ms : {INT64_C(1), INT64_C(10), INT64_C(1000), INT64_C(7)}) {
        Grid g{INT64_C(1767225600000), unit_ms, 40};
        int64_t span_us = (g.max_unit + 3) * unit_ms * 1000;
        int64_t base = start_pg_us(g, 0) - 2 * unit_ms * 1000;
        auto random_end = [&]() {
            End e;
            e.kind = Kind(rng() % 3);
            int64_t pick = rng() % 4;
            if (pick == 0) // exactly a unit start
                e.pg_us = start_pg_us(g, int64_t(rng() % (g.max_unit + 3)) - 1);
            else if (pick == 1) // a microsecond either side of one
                e.pg_us = start_pg_us(g, int64_t(rng() % (g.max_unit + 1))) + (rng() % 2 ? 1 : -1);
            else if (pick == 2)
                e.pg_us = base + int64_t(rng() % uint64_t(span_us));
            else
                e.pg_us = rng() % 2 ? INT64_MIN : INT64_MAX; // -infinity, infinity
            return e;
        };
        for (int i = 0; i < 20000; ++i) {
            End lower = random_end(), upper = random_end();
            if (!same(units_between(g, lower, upper), brute_force(g, lower, upper)))
                crid::test::fail(__FILE__, __LINE__,
                                 "units_between differs for unit " + std::to_string(unit_ms) + " ms, ends " +
                                     std::to_string(lower.pg_us) + " / " + std::to_string(upper.pg_us));
        }
    }
}

TEST(single_comparisons_are_half_ranges) {
    Grid g = tr::uuid_v7::grid();
    int64_t t = pg_us_from_unix_ms(1000); // a whole millisecond
    CHECK_EQ(first_of(units_where(g, Op::ge, t)), 1000);
    CHECK_EQ(first_of(units_where(g, Op::gt, t)), 1001);
    CHECK_EQ(last_of(units_where(g, Op::le, t)), 1000);
    CHECK_EQ(last_of(units_where(g, Op::lt, t)), 999);
    CHECK_EQ(first_of(units_where(g, Op::ge, t + 1)), 1001); // 1 us into ms 1000: ms 1000 starts before it
    CHECK_EQ(last_of(units_where(g, Op::lt, t + 1)), 1000);
    CHECK(!units_where(g, Op::gt, INT64_MAX));
    CHECK(!units_where(g, Op::lt, INT64_MIN));
    CHECK_EQ(last_of(units_where(g, Op::le, INT64_MAX)), int64_t(uuidv7::max_unix_ms));
    CHECK(!units_where(g, Op::lt, pg_us_from_unix_ms(0))); // nothing before 1970
    CHECK(op_named("<=") == Op::le);
    CHECK_THROWS(op_named("="), invalid_parameter);
    CHECK_THROWS(op_named("<>"), invalid_parameter);
}

TEST(uuid_v7_first_and_last_ids_bracket_the_millisecond) {
    for (int64_t ms : {INT64_C(0), INT64_C(1645557742000), int64_t(uuidv7::max_unix_ms)}) {
        Uuid first = tr::uuid_v7::first_id(ms), last = tr::uuid_v7::last_id(ms);
        CHECK_EQ(uuidv7::unix_ms_of(first), uint64_t(ms));
        CHECK_EQ(uuidv7::unix_ms_of(last), uint64_t(ms));
        CHECK(first < last);
        // Every v7 of that millisecond lies between them, the hash-tailed ones too.
        Uuid some = uuidv7::deterministic(uint64_t(ms), 1, "k", 1);
        CHECK(first <= some && some <= last);
        if (ms > 0)
            CHECK(tr::uuid_v7::last_id(ms - 1) < first);
    }
}

TEST(snowflake_first_and_last_ids_bracket_the_unit) {
    for (const char *name : {"twitter", "sonyflake", "crid", "epoch=2020-01-01,unit=1s,node=4,sequence=8,gene=3"}) {
        snowflake::Layout l = snowflake::layout_named(name);
        Grid g = tr::snowflake::grid(l);
        for (int64_t unit : {INT64_C(0), INT64_C(1), INT64_C(123456789), g.max_unit}) {
            int64_t first = tr::snowflake::first_id(l, unit);
            int64_t last = tr::snowflake::last_id(l, unit);
            CHECK_EQ(snowflake::unpack(l, first).time_units, unit);
            CHECK_EQ(snowflake::unpack(l, last).time_units, unit);
            CHECK_EQ(snowflake::unix_ms_of(l, first), g.epoch_unix_ms + unit * g.unit_ms);
            if (unit > 0)
                CHECK_EQ(tr::snowflake::last_id(l, unit - 1) + 1, first);
        }
        CHECK_EQ(tr::snowflake::last_id(l, g.max_unit), INT64_MAX);
    }
    CHECK_THROWS(tr::snowflake::check_sorted_by_time(snowflake::layout_named("discord")), invalid_parameter);
    CHECK_THROWS(tr::snowflake::check_sorted_by_time(snowflake::layout_named("instagram")), invalid_parameter);
    CHECK_EQ(crid::test::message_of([] { tr::snowflake::check_sorted_by_time(snowflake::layout_named("twitter")); }),
             "");
}

TEST(crid_first_and_last_ids_bracket_the_second) {
    crid_ids::Layout l;
    Grid g = tr::crid_ids::grid(l);
    CHECK_EQ(g.unit_ms, 1000);
    CHECK_EQ(g.epoch_unix_ms, crid_ids::default_epoch_unix_ms);
    for (int64_t ts : {INT64_C(0), INT64_C(28828458), g.max_unit}) {
        int64_t first = tr::crid_ids::first_id(l, ts), last = tr::crid_ids::last_id(l, ts);
        CHECK_EQ(crid_ids::unpack(l, first).ts, ts);
        CHECK_EQ(crid_ids::unpack(l, first).seq, 0);
        CHECK_EQ(crid_ids::unpack(l, last).ts, ts);
        CHECK_EQ(crid_ids::unpack(l, last).seq, crid_ids::sequence_space(l) - 1);
    }
}

TEST(id_in_answers_for_ids_of_the_family_only) {
    Grid g = tr::uuid_v7::grid();
    auto span = units_between(g, End{End::Kind::inclusive, pg_us_from_unix_ms(1000)},
                              End{End::Kind::exclusive, pg_us_from_unix_ms(2000)});
    CHECK(tr::uuid_v7::id_in(tr::uuid_v7::first_id(1000), span));
    CHECK(tr::uuid_v7::id_in(tr::uuid_v7::last_id(1999), span));
    CHECK(!tr::uuid_v7::id_in(tr::uuid_v7::first_id(2000), span));
    CHECK(!tr::uuid_v7::id_in(tr::uuid_v7::last_id(999), span));
    Uuid v4 = tr::uuid_v7::first_id(1500);
    v4.bytes[6] = uint8_t(0x40 | (v4.bytes[6] & 0x0F));
    CHECK(!tr::uuid_v7::id_in(v4, span)); // its leading bits say 1500, but it is no version 7
    CHECK(!tr::uuid_v7::id_in(tr::uuid_v7::first_id(1500), std::nullopt));

    snowflake::Layout twitter = snowflake::layout_named("twitter");
    auto all = units_between(tr::snowflake::grid(twitter), End{}, End{});
    CHECK(tr::snowflake::id_in(twitter, 0, all));
    CHECK(!tr::snowflake::id_in(twitter, -1, all));
    snowflake::Layout discord = snowflake::layout_named("discord");
    CHECK(tr::snowflake::id_in(discord, -1, units_between(tr::snowflake::grid(discord), End{}, End{})));
    crid_ids::Layout l;
    CHECK(tr::crid_ids::id_in(l, 0, units_between(tr::crid_ids::grid(l), End{}, End{})));
    CHECK(!tr::crid_ids::id_in(l, -5, units_between(tr::crid_ids::grid(l), End{}, End{})));
}
