#include "snowflake_generator.hpp"

#include "error.hpp"
#include "time_units.hpp"

namespace crid::core::snowflake {

namespace {

[[noreturn]] void before_epoch(const Layout &l, const std::string &clock) {
    throw Error(ErrorKind::datetime_out_of_range,
                "the clock reads " + clock + ", before the epoch of snowflake layout " + l.name + " (" +
                    describe_unix_ms(l.epoch_unix_ms) + ")",
                "Check the server clock, or the epoch setting (crid.snowflake_epoch for this server's layout).");
}

// Thrown instead of letting a unit wrap around the time field, which would
// restart ids at the bottom of the range.
[[noreturn]] void past_the_end(const Layout &l) {
    throw Error(ErrorKind::datetime_out_of_range,
                "the time field of snowflake layout " + l.name + " is exhausted: it ends at " +
                    describe_unix_ms(last_unix_ms(l)),
                "A later epoch or more time bits give the layout a new range.");
}

} // namespace

BitLayout state_bits(const Layout &l) { return BitLayout({{"time", l.time_bits}, {"sequence", l.sequence_bits}}); }

int64_t unit_of_unix_ms(const Layout &l, int64_t unix_ms) {
    if (unix_ms < l.epoch_unix_ms)
        before_epoch(l, describe_unix_ms(unix_ms));
    // Millisecond layouts are the hot case; a 64-bit division costs more
    // than the rest of the step.
    if (l.unit_ms == 1)
        return unix_ms - l.epoch_unix_ms;
    return (unix_ms - l.epoch_unix_ms) / l.unit_ms;
}

Step next(const Layout &l, const Policy &p, uint64_t state, int64_t now) {
    if (now < 0) {
        int64_t ms = 0;
        bool overflow = __builtin_mul_overflow(now, l.unit_ms, &ms) || __builtin_add_overflow(ms, l.epoch_unix_ms, &ms);
        before_epoch(l, overflow ? std::to_string(-now) + " time units before it" : describe_unix_ms(ms));
    }
    const int64_t max_unit = max_time_units(l), max_seq = max_sequence(l);
    const int64_t last = state_unit(l, state), seq = state_sequence(l, state);
    Step s;
    s.next_state = state;
    auto issue = [&](int64_t unit, int64_t sequence, bool borrowed) {
        if (unit > max_unit)
            past_the_end(l);
        s.kind = Step::Kind::issue;
        s.unit = unit;
        s.sequence = sequence;
        s.borrowed = borrowed;
        s.next_state = encode_state(l, unit, sequence);
        return s;
    };
    if (now > last)
        return issue(now, 0, false);
    if (now == last) {
        if (seq < max_seq)
            return issue(last, seq + 1, false);
        if (last >= max_unit)
            past_the_end(l); // no later unit to wait for
        s.kind = Step::Kind::wait;
        s.wait_until_unit = last + 1;
        s.exhausted = true;
        return s;
    }
    // The clock is behind the last id. The layout's range fits int64 ms, so
    // this product cannot overflow.
    s.drift_ms = (last - now) * l.unit_ms;
    if (s.drift_ms <= p.wait_ms) {
        s.kind = Step::Kind::wait;
        s.wait_until_unit = seq < max_seq ? last : last + 1;
        return s;
    }
    if (s.drift_ms > p.borrow_ms)
        return s; // refuse
    if (seq < max_seq)
        return issue(last, seq + 1, true);
    // Exhausted while borrowing: the next unit, if that keeps the logical
    // clock within borrow_ms of the wall clock.
    s.exhausted = true;
    if (last >= max_unit)
        past_the_end(l);
    int64_t lead = (last + 1 - now) * l.unit_ms;
    if (lead <= p.borrow_ms)
        return issue(last + 1, 0, true);
    s.drift_ms = lead;
    return s; // refuse
}

std::optional<Step> added_after(const Layout &l, const Policy &p, uint64_t prior, int64_t now) {
    const uint64_t claimed = prior + 1;
    const int64_t unit = state_unit(l, claimed), sequence = state_sequence(l, claimed);
    // claim() adds only where the word cannot pass the time field; a value
    // that did would decode to an early unit and must never be issued.
    if ((claimed >> (l.time_bits + l.sequence_bits)) != 0 || unit < now)
        return std::nullopt;
    Step s;
    s.kind = Step::Kind::issue;
    s.next_state = claimed;
    s.unit = unit;
    s.sequence = sequence;
    if (unit > now) {
        s.drift_ms = (unit - now) * l.unit_ms;
        if (s.drift_ms > p.borrow_ms)
            return std::nullopt;
        s.borrowed = true;
        s.exhausted = true; // only a carry over the last sequence gets ahead of the clock here
    }
    return s;
}

uint64_t state_after_restart(const Layout &l, int64_t high_water_unix_ms) {
    if (high_water_unix_ms < l.epoch_unix_ms)
        return 0;
    // The last id of the mark's unit, as if just issued. A mark past the time
    // field clamps to its last unit: the next call reports the exhausted range.
    return state_bits(l).ceiling((high_water_unix_ms - l.epoch_unix_ms) / l.unit_ms);
}

int64_t high_water_of(const Layout &l, uint64_t state) {
    return unit_start_unix_ms(l, state_unit(l, state)) + (l.unit_ms - 1);
}

void id_from_no_issue() {
    throw Error(ErrorKind::internal, "snowflake id_from() called with a step that issues no id");
}

std::string refusal_message(const Step &step, const Policy &p) {
    const std::string setting = "crid.clock_borrow_ms (" + std::to_string(p.borrow_ms) + ")";
    if (step.exhausted)
        return "the clock is behind the last snowflake id of this node and that unit's sequence is used up: the next "
               "id would be " +
               std::to_string(step.drift_ms) + " ms ahead of the clock, more than " + setting +
               "; refusing to mint ids that could repeat";
    return "the clock moved back by " + std::to_string(step.drift_ms) + " ms, more than " + setting +
           "; refusing to mint ids that could repeat";
}

std::string refusal_hint(const Policy &p) {
    return "Ids resume once the clock catches up with the last id issued (NTP stepped the clock back, or a restart "
           "resumed from a high-water mark ahead of it). Raising crid.clock_borrow_ms above " +
           std::to_string(p.borrow_ms) + " lets ids continue that far ahead of the clock.";
}

} // namespace crid::core::snowflake
