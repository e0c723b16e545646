// The snowflake layout syntax (presets and key=value specs, the layout
// argument of every snowflake decoder): any text is a layout or a core error;
// a layout prints as a spec that reads back to the same layout, and decoding
// ids with it never fails otherwise.
#include "fuzz.hpp"

#include "../../src/core/snowflake_layout.hpp"

using namespace crid::core::snowflake;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Layout layout;
    if (!crid::fuzz::accepted([&] { layout = layout_named(crid::fuzz::text_of(data, size)); }))
        return 0;
    std::string spec = describe(layout);
    Layout again;
    crid::fuzz::require(crid::fuzz::accepted([&] { again = layout_named(spec); }), "describe() reads back");
    crid::fuzz::require(describe(again) == spec, "describe(layout_named(describe(l))) == describe(l)");
    for (int64_t id : {INT64_C(0), INT64_C(1), INT64_C(175928847299117063), INT64_MAX, INT64_MIN, INT64_C(-1)}) {
        Fields f;
        if (crid::fuzz::accepted([&] { f = unpack(layout, id); }))
            crid::fuzz::require(pack(layout, f) == id, "pack(unpack(id)) == id");
        (void)crid::fuzz::accepted([&] { (void)unix_ms_of(layout, id); });
    }
    for (int64_t ms : {INT64_C(0), INT64_C(1767225600000), INT64_C(253402300799999), INT64_MIN, INT64_MAX})
        (void)crid::fuzz::accepted([&] { (void)floor_id(layout, ms); });
    return 0;
}
