// Inputs the fuzzers of test/fuzz found to break a promise, kept as unit
// tests (their files also stay in the seed corpus): each must now be a
// clean core error.
#include "check.hpp"

#include "../../src/core/marks.hpp"
#include "../../src/core/snowflake_layout.hpp"

#include <string>

using namespace crid::core;

// fuzz_snowflake_layout: a long epoch fraction overflowed an int while it was
// read (undefined behaviour) before being refused for having over 3 digits.
TEST(fuzz_finding_long_epoch_fraction) {
    CHECK_THROWS(snowflake::layout_named("epoch=2020-01-01T12:30:00." + std::string(80, '2') + "Z,node=10,sequence=12"),
                 invalid_parameter);
}

// fuzz_marks: crid 0.1.0's high-water format took any bytes as a layout,
// NUL and control characters included, which the current format cannot write.
TEST(fuzz_finding_control_characters_in_an_old_mark) {
    CHECK_THROWS(marks::parse_high_water(std::string("1767225600123\nepoch=2026\0\x01,node=1\n", 35)), invalid_text);
}
