// The snowflake generator under a fake clock: sequence and exhaustion, each
// tier of the clock policy, the end of the time field, restarts from a
// high-water mark, a long jittering run, and threads racing on one word.
#include "check.hpp"

#include "../../src/core/clock.hpp"
#include "../../src/core/monotonic_word.hpp"
#include "../../src/core/snowflake_generator.hpp"
#include "../../src/core/time_units.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <random>
#include <thread>
#include <vector>

using namespace crid::core;
using namespace crid::core::snowflake;

using crid::test::contains;
using crid::test::message_of;

namespace {

constexpr int64_t epoch_2026 = INT64_C(1767225600000);

// Four ids a millisecond, so tests reach exhaustion quickly.
Layout tiny() { return server_layout(epoch_2026, 10, 2, 0); }

const Policy policy{}; // wait 5 ms, borrow 1000 ms

using Kind = Step::Kind;

} // namespace

TEST(state_word_encodes_unit_and_sequence) {
    Layout l = tiny();
    uint64_t s = encode_state(l, 123456, 3);
    CHECK_EQ(s, (UINT64_C(123456) << 2) | 3);
    CHECK_EQ(state_unit(l, s), 123456);
    CHECK_EQ(state_sequence(l, s), 3);
    CHECK_EQ(state_unit(l, 0), 0);
    CHECK_EQ(state_sequence(l, 0), 0);
}

// The inline state arithmetic is state_bits()'s, for every width the
// settings allow.
TEST(state_arithmetic_is_state_bits) {
    std::mt19937_64 rng(7);
    for (int sequence = 1; sequence <= 22; ++sequence)
        for (int node = 0; node <= 16 && node + sequence <= 31; node += 4) {
            Layout l = server_layout(epoch_2026, node, sequence, 0);
            const BitLayout bits = state_bits(l);
            for (int i = 0; i < 100; ++i) {
                const int64_t unit = i == 0 ? max_time_units(l) : int64_t(rng() % uint64_t(max_time_units(l) + 1));
                const int64_t seq = i == 0 ? max_sequence(l) : int64_t(rng() % uint64_t(max_sequence(l) + 1));
                const int64_t values[] = {unit, seq};
                const uint64_t word = bits.pack_unchecked(values);
                CHECK_EQ(encode_state(l, unit, seq), word);
                CHECK_EQ(state_unit(l, word), int64_t(bits.field(0).get(word)));
                CHECK_EQ(state_sequence(l, word), int64_t(bits.field(1).get(word)));
            }
        }
}

TEST(empty_state_issues_from_the_clock) {
    Layout l = tiny();
    Step s = next(l, policy, 0, 10);
    CHECK(s.kind == Kind::issue);
    CHECK_EQ(s.unit, 10);
    CHECK_EQ(s.sequence, 0);
    CHECK(!s.borrowed);
    CHECK_EQ(s.next_state, encode_state(l, 10, 0));
    // The empty word counts as (0, 0) issued, so unit 0 starts at sequence 1.
    Step at_epoch = next(l, policy, 0, 0);
    CHECK(at_epoch.kind == Kind::issue);
    CHECK_EQ(at_epoch.unit, 0);
    CHECK_EQ(at_epoch.sequence, 1);
    CHECK(id_from(l, at_epoch, 0, 0) > 0);
}

TEST(same_unit_increments_the_sequence) {
    Layout l = tiny();
    uint64_t state = next(l, policy, 0, 500).next_state;
    for (int64_t seq = 1; seq <= 3; ++seq) {
        Step s = next(l, policy, state, 500);
        CHECK(s.kind == Kind::issue);
        CHECK_EQ(s.unit, 500);
        CHECK_EQ(s.sequence, seq);
        CHECK(!s.borrowed && !s.exhausted);
        state = s.next_state;
    }
}

TEST(exhaustion_waits_for_the_next_unit) {
    Layout l = tiny();
    uint64_t full = encode_state(l, 500, 3);
    Step s = next(l, policy, full, 500);
    CHECK(s.kind == Kind::wait);
    CHECK(s.exhausted);
    CHECK_EQ(s.wait_until_unit, 501);
    CHECK_EQ(s.drift_ms, 0);
    CHECK_EQ(s.next_state, full); // nothing to publish
    Step later = next(l, policy, full, 501);
    CHECK(later.kind == Kind::issue);
    CHECK_EQ(later.unit, 501);
    CHECK_EQ(later.sequence, 0);
}

TEST(clock_ahead_restarts_the_sequence) {
    Layout l = tiny();
    Step s = next(l, policy, encode_state(l, 500, 2), 9000);
    CHECK(s.kind == Kind::issue);
    CHECK_EQ(s.unit, 9000);
    CHECK_EQ(s.sequence, 0);
}

TEST(small_step_back_waits) {
    Layout l = tiny();
    Step s = next(l, policy, encode_state(l, 100, 1), 95);
    CHECK(s.kind == Kind::wait);
    CHECK(!s.exhausted);
    CHECK_EQ(s.drift_ms, 5);
    CHECK_EQ(s.wait_until_unit, 100); // sequence left in unit 100
    Step full = next(l, policy, encode_state(l, 100, 3), 97);
    CHECK(full.kind == Kind::wait);
    CHECK_EQ(full.wait_until_unit, 101);
    // wait_ms = 0 never waits for the clock: it borrows at once.
    Step no_wait = next(l, Policy{0, 1000}, encode_state(l, 100, 1), 99);
    CHECK(no_wait.kind == Kind::issue);
    CHECK(no_wait.borrowed);
}

TEST(larger_step_back_borrows_strictly_increasing_ids) {
    Layout l = tiny();
    uint64_t state = encode_state(l, 1000, 0);
    int64_t last_id = pack(l, Fields{.time_units = 1000, .node = 3});
    int borrowed_units = 0;
    for (int i = 0; i < 40; ++i) {
        Step s = next(l, policy, state, 400); // 600 ms behind, clock frozen
        CHECK(s.kind == Kind::issue);
        CHECK(s.borrowed);
        CHECK_EQ(s.drift_ms, (state_unit(l, state) - 400) * l.unit_ms);
        int64_t id = id_from(l, s, 3, 0);
        CHECK(id > last_id);
        last_id = id;
        if (s.exhausted) {
            ++borrowed_units;
            CHECK_EQ(s.sequence, 0);
            CHECK_EQ(s.unit, state_unit(l, state) + 1);
        }
        state = s.next_state;
    }
    CHECK_EQ(borrowed_units, 10); // 40 ids at 4 per unit moved 10 units ahead
    CHECK_EQ(state_unit(l, state), 1010);
}

TEST(sonyflake_units_scale_the_drift) {
    Layout s = layout_named("sonyflake");
    // One 10 ms unit behind is more than wait_ms: borrow; exhausted -> next unit.
    Step step = next(s, policy, encode_state(s, 100, 255), 99);
    CHECK(step.kind == Kind::issue);
    CHECK(step.borrowed && step.exhausted);
    CHECK_EQ(step.unit, 101);
    CHECK_EQ(step.sequence, 0);
    Step refuse = next(s, policy, encode_state(s, 1000, 0), 899);
    CHECK(refuse.kind == Kind::refuse);
    CHECK_EQ(refuse.drift_ms, 1010);
}

TEST(borrowing_never_runs_more_than_borrow_ms_ahead) {
    Layout l = tiny();
    Policy p{5, 10};
    // 10 ms behind with sequence left: borrow in the same unit.
    Step same = next(l, p, encode_state(l, 100, 2), 90);
    CHECK(same.kind == Kind::issue);
    CHECK_EQ(same.unit, 100);
    // Exhausted: unit 101 would be 11 ms ahead of the clock.
    Step s = next(l, p, encode_state(l, 100, 3), 90);
    CHECK(s.kind == Kind::refuse);
    CHECK(s.exhausted);
    CHECK_EQ(s.drift_ms, 11);
    std::string m = refusal_message(s, p);
    CHECK(contains(m, "11 ms"));
    CHECK(contains(m, "crid.clock_borrow_ms (10)"));
    // One ms later the next unit is exactly borrow_ms ahead: allowed.
    Step ok = next(l, p, encode_state(l, 100, 3), 91);
    CHECK(ok.kind == Kind::issue);
    CHECK_EQ(ok.unit, 101);
    CHECK(ok.borrowed && ok.exhausted);
}

TEST(step_back_beyond_borrow_refuses_with_the_drift) {
    Layout l = tiny();
    uint64_t state = encode_state(l, 5000, 0);
    Step s = next(l, policy, state, 3157);
    CHECK(s.kind == Kind::refuse);
    CHECK_EQ(s.drift_ms, 1843);
    CHECK(!s.exhausted);
    CHECK_EQ(s.next_state, state);
    CHECK_EQ(refusal_message(s, policy), std::string("the clock moved back by 1843 ms, more than "
                                                     "crid.clock_borrow_ms (1000); refusing to mint ids that could "
                                                     "repeat"));
    CHECK(contains(refusal_hint(policy), "crid.clock_borrow_ms"));
    CHECK(next(l, policy, state, 4000).kind == Kind::issue); // exactly borrow_ms behind
    CHECK(next(l, policy, state, 3999).kind == Kind::refuse);
    CHECK_THROWS(id_from(l, s, 0, 0), internal);
}

TEST(time_field_overflow_throws) {
    Layout l = server_layout(epoch_2026, 16, 15, 0); // 32 bits of time
    int64_t max = max_time_units(l);
    CHECK_EQ(max, (INT64_C(1) << 32) - 1);
    CHECK(next(l, policy, 0, max).kind == Kind::issue);
    CHECK_THROWS(next(l, policy, 0, max + 1), datetime_out_of_range);
    uint64_t full = encode_state(l, max, max_sequence(l));
    CHECK_THROWS(next(l, policy, full, max), datetime_out_of_range);          // no unit to wait for
    CHECK_THROWS(next(l, policy, full, max - 100), datetime_out_of_range);    // no unit to borrow
    CHECK(next(l, policy, encode_state(l, max, 0), max).kind == Kind::issue); // sequence left
    std::string m = message_of([&] { next(l, policy, 0, max + 1); });
    CHECK(contains(m, "exhausted"));
    CHECK(contains(m, describe_unix_ms(last_unix_ms(l))));
}

TEST(clock_before_epoch_throws_naming_both) {
    Layout l = tiny();
    CHECK_THROWS(next(l, policy, 0, -1), datetime_out_of_range);
    CHECK_THROWS(next(l, policy, 0, INT64_MIN), datetime_out_of_range);
    CHECK_THROWS(unit_of_unix_ms(l, epoch_2026 - 1), datetime_out_of_range);
    CHECK_THROWS(unit_of_unix_ms(l, INT64_MIN), datetime_out_of_range);
    try {
        unit_of_unix_ms(l, epoch_2026 - 1);
        CHECK(false);
    } catch (const Error &e) {
        CHECK(contains(e.what(), "2025-12-31 23:59:59.999+00"));
        CHECK(contains(e.what(), "2026-01-01 00:00:00.000+00"));
    }
    try {
        next(l, policy, 0, -2);
        CHECK(false);
    } catch (const Error &e) {
        CHECK(contains(e.what(), "2025-12-31 23:59:59.998+00"));
    }
}

TEST(unit_of_unix_ms_floors_to_the_unit) {
    Layout s = layout_named("sonyflake");
    CHECK_EQ(unit_of_unix_ms(s, s.epoch_unix_ms), 0);
    CHECK_EQ(unit_of_unix_ms(s, s.epoch_unix_ms + 9), 0);
    CHECK_EQ(unit_of_unix_ms(s, s.epoch_unix_ms + 10), 1);
    CHECK_EQ(unit_start_unix_ms(s, 1), s.epoch_unix_ms + 10);
    CHECK_EQ(unit_of_unix_ms(tiny(), epoch_2026 + 777), 777);
}

TEST(id_from_packs_node_and_gene) {
    Layout l = server_layout(epoch_2026, 8, 12, 4);
    Step s = next(l, policy, 0, 1000);
    int64_t id = id_from(l, s, 200, 9);
    Fields f = unpack(l, id);
    CHECK_EQ(f.time_units, 1000);
    CHECK_EQ(f.node, 200);
    CHECK_EQ(f.sequence, 0);
    CHECK_EQ(f.gene, 9);
    CHECK_THROWS(id_from(l, s, 256, 0), numeric_out_of_range);
    CHECK_THROWS(id_from(l, s, 0, 16), numeric_out_of_range);
}

TEST(restart_resumes_above_every_earlier_id) {
    Layout l = tiny();
    LocalWord before;
    int64_t clock = 5000, max_before = -1;
    for (int i = 0; i < 2000; ++i) {
        Step s = claim(before, l, policy, [&] { return clock; });
        if (s.kind == Kind::issue)
            max_before = std::max(max_before, id_from(l, s, 1, 0));
        else
            clock = s.wait_until_unit;
        if (i % 3 == 0)
            ++clock;
    }
    int64_t hw = high_water_of(l, before.load());
    int64_t hw_unit = unit_of_unix_ms(l, hw);
    CHECK_EQ(hw_unit, state_unit(l, before.load()));
    uint64_t restarted = state_after_restart(l, hw);
    CHECK_EQ(state_unit(l, restarted), hw_unit);
    CHECK_EQ(state_sequence(l, restarted), max_sequence(l));

    // Whatever the clock reads after the crash, an id is greater or refused.
    const int64_t offsets[] = {-5000, -1001, -1000, -999, -300, -6, -3, -1, 0, 1, 2, 1000};
    for (int64_t off : offsets) {
        LocalWord after{restarted};
        int64_t now = hw_unit + off;
        for (int i = 0; i < 50; ++i) {
            Step s = claim(after, l, policy, [&] { return now; });
            if (s.kind == Kind::issue)
                CHECK(id_from(l, s, 1, 0) > max_before);
            else if (s.kind == Kind::wait)
                CHECK(s.wait_until_unit > now);
            else
                CHECK(s.drift_ms > policy.borrow_ms);
        }
    }
    CHECK(next(l, policy, restarted, hw_unit - 3).kind == Kind::wait);
    CHECK(next(l, policy, restarted, hw_unit - 300).kind == Kind::issue);
    CHECK(next(l, policy, restarted, hw_unit - 999).kind == Kind::issue);
    CHECK(next(l, policy, restarted, hw_unit - 1000).kind == Kind::refuse); // next unit 1001 ms ahead
    CHECK(next(l, policy, restarted, hw_unit - 3000).kind == Kind::refuse);
    CHECK(next(l, policy, restarted, hw_unit).kind == Kind::wait);
    CHECK_EQ(next(l, policy, restarted, hw_unit + 1).unit, hw_unit + 1);
    CHECK_EQ(state_after_restart(l, epoch_2026 - 1), 0u);
    CHECK_EQ(state_unit(l, state_after_restart(l, INT64_MAX)), max_time_units(l));
}

TEST(sonyflake_high_water_covers_the_whole_unit) {
    Layout s = layout_named("sonyflake");
    uint64_t state = encode_state(s, 42, 3);
    CHECK_EQ(high_water_of(s, state), s.epoch_unix_ms + 429);
    CHECK_EQ(state_unit(s, state_after_restart(s, high_water_of(s, state))), 42);
}

TEST(jittering_fake_clock_keeps_ids_strictly_increasing) {
    Layout l = server_layout(epoch_2026, 10, 4, 0); // 16 ids a ms: exhaustion is common
    Policy p{5, 200};
    LocalWord word;
    std::mt19937_64 rng(20260101);
    int64_t clock = 10000, last_id = -1;
    int issued = 0, waits = 0, exhausted_waits = 0, borrows = 0, refusals = 0;
    for (int i = 0; i < 300000; ++i) {
        uint64_t r = rng() % 1000;
        if (r >= 600 && r < 900)
            clock += 1;
        else if (r >= 900 && r < 980)
            clock -= int64_t(rng() % 8); // NTP slew-sized steps back
        else if (r >= 980 && r < 998)
            clock -= int64_t(rng() % 300); // up to and past borrow_ms
        else if (r >= 998)
            clock -= 1000 + int64_t(rng() % 2000); // far beyond borrow_ms
        clock = std::max<int64_t>(clock, 0);
        Step s = claim(word, l, p, [&] { return clock; });
        if (s.kind == Kind::issue) {
            int64_t id = id_from(l, s, 5, 0);
            if (id <= last_id) {
                CHECK(id > last_id);
                break;
            }
            last_id = id;
            ++issued;
            CHECK(s.unit >= clock);
            CHECK_EQ(s.borrowed, s.unit > clock);
            CHECK(s.unit - clock <= p.borrow_ms);
            borrows += s.borrowed;
        } else if (s.kind == Kind::wait) {
            ++waits;
            exhausted_waits += s.exhausted;
            CHECK(s.wait_until_unit > clock);
            clock = s.wait_until_unit; // the caller sleeps until then
        } else {
            ++refusals;
            CHECK(s.drift_ms > p.borrow_ms);
            clock += 400; // the caller reports the error; time passes
        }
    }
    CHECK(issued > 200000);
    CHECK(waits > 0);
    CHECK(exhausted_waits > 0);
    CHECK(borrows > 0);
    CHECK(refusals > 0);
}

namespace {

// Runs `threads` threads that each claim `per_thread` ids from one word with
// the given clock, spinning on wait, and checks the ids: increasing per thread,
// distinct overall.
template <class Clock, class OnWait>
void race(const Layout &l, const Policy &p, int threads, int per_thread, Clock clock, OnWait on_wait) {
    ThreadWord word;
    std::vector<std::vector<int64_t>> ids(static_cast<size_t>(threads));
    std::atomic<int> refusals{0}, errors{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            auto &mine = ids[size_t(t)];
            mine.reserve(size_t(per_thread));
            try {
                while (int(mine.size()) < per_thread) {
                    Step s = claim(word, l, p, clock);
                    if (s.kind == Kind::issue)
                        mine.push_back(id_from(l, s, 7, 0));
                    else if (s.kind == Kind::wait)
                        on_wait(s);
                    else if (++refusals > 1000)
                        return;
                }
            } catch (...) {
                ++errors;
            }
        });
    }
    for (auto &th : pool)
        th.join();
    CHECK_EQ(errors.load(), 0);
    std::vector<int64_t> all;
    for (auto &mine : ids) {
        CHECK_EQ(int(mine.size()), per_thread);
        for (size_t i = 1; i < mine.size(); ++i)
            if (mine[i] <= mine[i - 1]) {
                CHECK(mine[i] > mine[i - 1]);
                break;
            }
        all.insert(all.end(), mine.begin(), mine.end());
    }
    std::sort(all.begin(), all.end());
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
}

} // namespace

TEST(threads_on_one_word_with_the_real_clock) {
    Layout l = layout_named("epoch=2020-01-01,node=10,sequence=12");
    auto clock = [&] { return unit_of_unix_ms(l, wall_clock_ns() / ns_per_ms); };
    race(l, policy, 4, 100000, clock, [](const Step &) {});
}

TEST(threads_on_one_word_with_a_jumpy_fake_clock) {
    Layout l = server_layout(epoch_2026, 10, 6, 0);
    std::atomic<int64_t> fake{1000000};
    std::atomic<uint64_t> calls{0};
    auto clock = [&] {
        uint64_t n = calls.fetch_add(1);
        if (n % 997 == 0)
            return fake.fetch_sub(3) - 3; // small steps back: waits
        if (n % 7919 == 0)
            return fake.fetch_sub(150) - 150; // larger: borrows
        if (n % 13 == 0)
            return fake.fetch_add(1) + 1;
        return fake.load();
    };
    race(l, policy, 4, 100000, clock, [&](const Step &) { fake.fetch_add(1); });
}

// The fetch_add path of claim(): what an add that raced past the unit's last
// sequence may issue.
TEST(an_add_in_the_unit_issues_the_next_sequence) {
    Layout l = tiny(); // 4 sequences a unit
    std::optional<Step> s = added_after(l, policy, encode_state(l, 100, 1), 100);
    CHECK(s.has_value());
    CHECK_EQ(s->unit, 100);
    CHECK_EQ(s->sequence, 2);
    CHECK(!s->borrowed);
    CHECK_EQ(s->next_state, encode_state(l, 100, 2));
}

TEST(an_add_past_the_last_sequence_borrows_the_next_unit) {
    Layout l = tiny();
    std::optional<Step> s = added_after(l, policy, encode_state(l, 100, 3), 100);
    CHECK(s.has_value());
    CHECK_EQ(s->unit, 101);
    CHECK_EQ(s->sequence, 0);
    CHECK(s->borrowed);
    CHECK(s->exhausted);
    CHECK_EQ(s->drift_ms, 1);
    // Without a borrow window the value is skipped, never issued.
    CHECK(!added_after(l, Policy{5, 0}, encode_state(l, 100, 3), 100).has_value());
    // Past the time field: never issued (it would decode to unit 0).
    CHECK(!added_after(l, policy, encode_state(l, max_time_units(l), 3), max_time_units(l)).has_value());
}

namespace {

// A word that counts the adds claim() makes.
struct CountingWord {
    LocalWord word;
    int adds = 0;
    uint64_t load() const noexcept { return word.load(); }
    void store(uint64_t v) noexcept { word.store(v); }
    uint64_t fetch_add(uint64_t v) noexcept { return ++adds, word.fetch_add(v); }
    bool compare_exchange(uint64_t &expected, uint64_t desired) noexcept {
        return word.compare_exchange(expected, desired);
    }
};

} // namespace

TEST(claim_adds_only_where_the_word_cannot_pass_the_time_field) {
    Layout l = tiny();
    const int64_t last = max_time_units(l);
    // 1024 racers over 4 sequences could carry 256 units: near the end of the
    // time field the claim compare-and-swaps instead.
    CountingWord near_end;
    near_end.store(encode_state(l, last - 10, 2));
    Step s = claim(
        near_end, l, policy, [&] { return last - 10; }, 1024);
    CHECK(s.kind == Kind::issue);
    CHECK_EQ(s.sequence, 3);
    CHECK_EQ(near_end.adds, 0);
    CHECK_EQ(near_end.load(), encode_state(l, last - 10, 3));
    // Far from it, the next sequence of the word's unit is one add.
    CountingWord far;
    far.store(encode_state(l, 1000, 2));
    s = claim(
        far, l, policy, [&] { return int64_t(1000); }, 1024);
    CHECK(s.kind == Kind::issue);
    CHECK_EQ(s.sequence, 3);
    CHECK_EQ(far.adds, 1);
    CHECK_EQ(far.load(), encode_state(l, 1000, 3));
    // A new unit, a borrow or an exhausted unit still compare-and-swap or wait.
    s = claim(
        far, l, policy, [&] { return int64_t(1000); }, 1024);
    CHECK(s.kind == Kind::wait);
    s = claim(
        far, l, policy, [&] { return int64_t(1001); }, 1024);
    CHECK(s.kind == Kind::issue);
    CHECK_EQ(s.unit, 1001);
    CHECK_EQ(far.adds, 1);
}

// claim() decides the add without next(): one claim from a word, with the
// clock anywhere around the word's unit, must give the step next() gives,
// and leave the word where that step (or, for an add that carried, the add)
// put it.
TEST(claim_issues_what_next_would) {
    std::mt19937_64 rng(11);
    Layout l = tiny();
    Policy p{5, 3};
    for (int i = 0; i < 20000; ++i) {
        const int64_t unit = 1000 + int64_t(rng() % 8), seq = int64_t(rng() % 4);
        const int64_t now = 1000 + int64_t(rng() % 16) - 4;
        const uint64_t state = encode_state(l, unit, seq);
        CountingWord word;
        word.store(state);
        const Step expected = next(l, p, state, now);
        const Step got = claim(word, l, p, [&] { return now; });
        CHECK(got.kind == expected.kind);
        CHECK_EQ(got.unit, expected.unit);
        CHECK_EQ(got.sequence, expected.sequence);
        CHECK_EQ(got.borrowed, expected.borrowed);
        CHECK_EQ(got.next_state, expected.next_state);
        CHECK_EQ(word.load(), expected.kind == Kind::issue ? expected.next_state : state);
        // The add is taken exactly for the next sequence of the word's unit.
        CHECK_EQ(word.adds, (now == unit && seq < max_sequence(l)) ? 1 : 0);
        if (got.kind != expected.kind || got.next_state != expected.next_state)
            break;
    }
}

// Four sequences a unit and eight threads: adds carry into later units all
// the time, and every id is still distinct and increasing per thread.
TEST(threads_adding_past_tiny_units_stay_distinct) {
    Layout l = server_layout(epoch_2026, 10, 2, 0);
    std::atomic<int64_t> fake{1000000};
    std::atomic<uint64_t> calls{0};
    auto clock = [&] { return calls.fetch_add(1) % 64 == 0 ? fake.fetch_add(1) + 1 : fake.load(); };
    race(l, policy, 8, 20000, clock, [&](const Step &) { fake.fetch_add(1); });
}

// Runs of consecutive sequences: the next free ones of the unit, the next
// unit when the rest is too short (a wait while the clock is in the unit),
// and never overlapping singles claimed in between.
TEST(claim_run_takes_consecutive_sequences) {
    Layout l = tiny(); // sequences 0 .. 3
    LocalWord word;
    int64_t clock = 100;
    Step s = claim_run(
        word, l, policy, [&] { return clock; }, 3);
    CHECK(s.kind == Kind::issue);
    CHECK_EQ(s.unit, 100);
    CHECK_EQ(s.sequence, 0);
    CHECK_EQ(state_sequence(l, word.load()), 2);
    Step one = claim(word, l, policy, [&] { return clock; });
    CHECK_EQ(one.sequence, 3);
    Step full = claim_run(
        word, l, policy, [&] { return clock; }, 2);
    CHECK(full.kind == Kind::wait);
    CHECK_EQ(full.wait_until_unit, 101);
    clock = 101;
    Step next_unit = claim_run(
        word, l, policy, [&] { return clock; }, 4);
    CHECK(next_unit.kind == Kind::issue);
    CHECK_EQ(next_unit.unit, 101);
    CHECK_EQ(next_unit.sequence, 0);
    CHECK_EQ(state_sequence(l, word.load()), 3);
    // A run that does not fit the rest of the unit starts the next one.
    clock = 102;
    CHECK_EQ(claim(word, l, policy, [&] { return clock; }).sequence, 0);
    CHECK(claim_run(
              word, l, policy, [&] { return clock; }, 4)
              .kind == Kind::wait);
    clock = 103;
    Step later = claim_run(
        word, l, policy, [&] { return clock; }, 4);
    CHECK_EQ(later.unit, 103);
    CHECK_EQ(later.sequence, 0);
}

// Threads claiming runs and singles from one word with the real clock: the
// sequences of every run and single are distinct.
TEST(claim_run_races_claim) {
    Layout l = layout_named("epoch=2020-01-01,node=10,sequence=12");
    auto clock = [&] { return unit_of_unix_ms(l, wall_clock_ns() / ns_per_ms); };
    ThreadWord word;
    std::vector<std::vector<int64_t>> ids(4);
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; ++t)
        pool.emplace_back([&, t] {
            auto &mine = ids[size_t(t)];
            while (mine.size() < 40000) {
                const int64_t count = t % 2 ? 99 : 1;
                Step s = count == 1 ? claim(word, l, policy, clock) : claim_run(word, l, policy, clock, count);
                if (s.kind != Kind::issue)
                    continue;
                for (int64_t i = 0; i < count; ++i)
                    mine.push_back(id_from(l, s, 7, 0) + i);
            }
        });
    for (auto &th : pool)
        th.join();
    std::vector<int64_t> all;
    for (auto &mine : ids)
        all.insert(all.end(), mine.begin(), mine.end());
    std::sort(all.begin(), all.end());
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
}
