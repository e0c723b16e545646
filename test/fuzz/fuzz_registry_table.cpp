// crid.registry_table: any text is a table name or a core error, and a name
// quoted in full reads back as the same name.
#include "fuzz.hpp"

#include "../../src/core/registry_table.hpp"

using namespace crid::core::registry;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    TableName name;
    if (!crid::fuzz::accepted([&] { name = parse_table_name(crid::fuzz::text_of(data, size)); }))
        return 0;
    crid::fuzz::require(!name.schema.empty() && !name.name.empty(), "both parts are named");
    crid::fuzz::require(name.schema.size() <= max_identifier_bytes && name.name.size() <= max_identifier_bytes,
                        "parts fit a PostgreSQL name");
    TableName again;
    crid::fuzz::require(crid::fuzz::accepted([&] { again = parse_table_name(quoted(name)); }), "quoted() reads back");
    crid::fuzz::require(again == name, "the same name");
    return 0;
}
