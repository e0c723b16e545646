// The mark files a server reads at start (crid_high_water, also in crid
// 0.1.0's format, and crid_registry_mark): any bytes are a mark or a core
// error (never trusted, never a crash), and a mark written reads back.
#include "fuzz.hpp"

#include "../../src/core/marks.hpp"

using namespace crid::core::marks;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string_view text = crid::fuzz::text_of(data, size);
    HighWater high_water;
    if (crid::fuzz::accepted([&] { high_water = parse_high_water(text); })) {
        HighWater again;
        crid::fuzz::require(crid::fuzz::accepted([&] { again = parse_high_water(format(high_water)); }) &&
                                again == high_water,
                            "a high-water mark written reads back");
    }
    RegistryMark registry;
    if (crid::fuzz::accepted([&] { registry = parse_registry_mark(text); })) {
        RegistryMark again;
        crid::fuzz::require(crid::fuzz::accepted([&] { again = parse_registry_mark(format(registry)); }) &&
                                again == registry,
                            "a registry mark written reads back");
    }
    return 0;
}
