// The snowflake generator as a pure state machine: the caller passes the clock
// in and gets back "issue this id", "wait for the clock" or "refuse", so unit
// tests drive it with a fake clock and the PostgreSQL side runs it over a
// shared-memory word with compare-and-swap (claim() below).
//
// A node's whole state is one 64-bit word, state_bits(): the time unit and
// sequence of the last id this node issued, laid out as in the id itself.
// The empty word 0 reads as "unit 0, sequence 0 already issued": the one id at
// the very first unit of the epoch with sequence 0 is never minted, and in
// exchange the word needs no flag and no offset and can never repeat an id.
//
// Clock policy ("spin, borrow, fail": crid.clock_wait_ms, crid.clock_borrow_ms), with drift = how far the
// clock is behind the last id:
//   clock ahead of the last id      -> issue (now, 0)
//   same unit                       -> issue (last, seq + 1); exhausted -> wait for the next unit
//   behind by at most wait_ms       -> wait: the caller re-reads the clock and retries
//   behind by at most borrow_ms     -> issue on the logical clock (last, seq + 1), or
//                                      (last + 1, 0) when exhausted, unless that would put
//                                      the id more than borrow_ms ahead of the clock
//   behind by more                  -> refuse, naming the drift
#pragma once
#include "pure_cpp.hpp"

#include "monotonic_word.hpp"
#include "snowflake_layout.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace crid::core::snowflake {

// crid.clock_wait_ms and crid.clock_borrow_ms. Negative values act as 0.
struct Policy {
    int64_t wait_ms = 5;
    int64_t borrow_ms = 1000;
};

struct Step {
    enum class Kind { issue, wait, refuse };
    Kind kind = Kind::refuse;
    uint64_t next_state = 0;     // issue: the word to publish; otherwise the word unchanged
    int64_t unit = 0;            // issue: time units since the epoch of the id
    int64_t sequence = 0;        // issue: its sequence
    int64_t wait_until_unit = 0; // wait: retry once the clock reads at least this unit
    int64_t drift_ms = 0;        // how far the clock is behind the last id (refuse: how far
                                 // ahead of the clock the next id would have to be)
    bool borrowed = false;       // issue: the id is ahead of the clock (logical clock)
    bool exhausted = false;      // the sequence of the last unit ran out: a wait for that
                                 // reason, or a borrow that moved to the next unit
};

// Where the fields of a state word sit: an id's time and sequence, without
// its node and gene.
BitLayout state_bits(const Layout &layout);

// The word for a last issued (unit, sequence), both in range. The word is
// state_bits(): time above sequence. These three do its arithmetic inline,
// as the generator runs them several times per id (a core test holds them
// equal to state_bits()).
inline uint64_t encode_state(const Layout &l, int64_t unit, int64_t sequence) noexcept {
    return uint64_t(unit) << l.sequence_bits | uint64_t(sequence);
}

// The time unit and the sequence recorded in a word.
inline int64_t state_unit(const Layout &l, uint64_t state) noexcept {
    return int64_t(state >> l.sequence_bits & max_of_width(l.time_bits));
}
inline int64_t state_sequence(const Layout &l, uint64_t state) noexcept {
    return int64_t(state & max_of_width(l.sequence_bits));
}

// The clock in time units since the layout's epoch (floor). Throws
// datetime_out_of_range, naming the clock and the epoch, before the epoch.
int64_t unit_of_unix_ms(const Layout &layout, int64_t unix_ms);

// What to do after `state` when the clock reads `now_unit`. The layout must be
// validated. Throws datetime_out_of_range when the clock is before the epoch or
// the id would not fit the time field.
Step next(const Layout &layout, const Policy &policy, uint64_t state, int64_t now_unit);

// The state after a restart or crash: every later id is in a unit strictly
// after the one containing high_water_unix_ms (the last Unix ms any id issued
// before may carry), so it is greater than all of them. A mark before the
// epoch gives the empty state.
uint64_t state_after_restart(const Layout &layout, int64_t high_water_unix_ms);

// The high-water mark to persist for a state: the last Unix ms of its unit.
int64_t high_water_of(const Layout &layout, uint64_t state);

// The id of an issue step for a node and gene (range-checked by pack()).
// id_from_no_issue() throws internal for a step that issues nothing.
[[noreturn]] void id_from_no_issue();
inline int64_t id_from(const Layout &l, const Step &step, int64_t node, int64_t gene) {
    if (step.kind != Step::Kind::issue) [[unlikely]]
        id_from_no_issue();
    return pack(l, Fields{.time_units = step.unit, .node = node, .sequence = step.sequence, .gene = gene});
}

// The error message of a refuse step: names the drift and the setting.
std::string refusal_message(const Step &step, const Policy &policy);

// The hint that goes with refusal_message().
std::string refusal_hint(const Policy &policy);

// The step for the word value after `prior` that a fetch_add(1) claimed while
// the clock read `now_unit`: an issue when that value is a valid next state
// (the same unit, or a unit ahead within crid.clock_borrow_ms when other
// claims carried the sequence over), nothing otherwise (the value is skipped:
// the word is past it, so it is never issued).
std::optional<Step> added_after(const Layout &layout, const Policy &policy, uint64_t prior, int64_t now_unit);

// Claims one id from a shared word. It loads the word before reading the clock
// (`now_unit()` returns time units), so any id already in the word was minted
// from an earlier reading: a preempted caller cannot mistake its own stale
// reading for a clock that moved back. After a lost race it reads the clock
// again for the same reason. Returns the issue step that it published, or a
// wait/refuse step for the caller to act on (wait: read the clock and call
// again; a step is never published unless it issues).
//
// Where the word supports fetch_add and the next id is in the unit the word
// already holds (the common case under load), it adds one instead of
// compare-and-swapping: an add always succeeds, where a compare-and-swap
// fails and retries whenever another backend minted on the node in between,
// which is what kept two sessions on one node well below twice one. Adds
// that race past the unit's last sequence carry into the next unit (a borrow
// of one unit, checked by added_after). At most `racers` claims run at once,
// so the word overshoots the last sequence by fewer than `racers`; the add is
// only used where that cannot carry past the time field.
template <Word W, class Clock>
Step claim(W &word, const Layout &layout, const Policy &policy, Clock &&now_unit, uint64_t racers = 1024) {
    uint64_t old = word.load();
    for (;;) {
        const int64_t now = now_unit();
        if constexpr (AtomicWord<W>) {
            // Exactly where next() would issue (unit, seq + 1) in the word's
            // own unit: the clock in that unit and its sequence not used up.
            // Decided here without next(), as it is the case of every id but
            // the first of each unit.
            const int64_t unit = state_unit(layout, old);
            if (now == unit && state_sequence(layout, old) < max_sequence(layout) &&
                uint64_t(max_time_units(layout) - unit) > (racers >> layout.sequence_bits) + 1) {
                const uint64_t claimed = word.fetch_add(1) + 1;
                // Still in the clock's unit: the id is the claimed value itself
                // (what added_after() gives it, without the call).
                if (state_unit(layout, claimed) == now && (claimed >> (layout.time_bits + layout.sequence_bits)) == 0) {
                    Step s;
                    s.kind = Step::Kind::issue;
                    s.next_state = claimed;
                    s.unit = now;
                    s.sequence = state_sequence(layout, claimed);
                    return s;
                }
                if (std::optional<Step> taken = added_after(layout, policy, claimed - 1, now))
                    return *taken;
                old = word.load();
                continue;
            }
        }
        Step step = next(layout, policy, old, now);
        if (step.kind != Step::Kind::issue || word.compare_exchange(old, step.next_state))
            return step;
    }
}

// Claims `count` consecutive sequences of one unit from a shared word (a
// converted sequence whose INCREMENT BY asks for a run of keys per value):
// the issue step names the first, and the word is left at the last, so the
// run is this caller's alone. A run that does not fit in the rest of the
// clock's unit starts at the next unit (a wait, or a borrow as next() would
// give for an exhausted unit). Compare-and-swap only: a run is never split
// by racing adds, since any add changes the word the swap expects. `count`
// must be 1 .. max_sequence(layout) + 1.
template <Word W, class Clock>
Step claim_run(W &word, const Layout &layout, const Policy &policy, Clock &&now_unit, int64_t count) {
    uint64_t old = word.load();
    for (;;) {
        const int64_t now = now_unit();
        Step step = next(layout, policy, old, now);
        if (step.kind == Step::Kind::issue && step.sequence > max_sequence(layout) - (count - 1))
            step = next(layout, policy, encode_state(layout, step.unit, max_sequence(layout)), now);
        if (step.kind != Step::Kind::issue)
            return step;
        step.next_state = encode_state(layout, step.unit, step.sequence + (count - 1));
        if (word.compare_exchange(old, step.next_state))
            return step;
    }
}

} // namespace crid::core::snowflake
