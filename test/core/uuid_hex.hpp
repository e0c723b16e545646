// UUIDs from their hex text in tests (dashes skipped, either case), so test
// vectors read as their sources print them.
#pragma once

#include "../../src/core/uuid.hpp"

namespace crid::test {

inline core::Uuid uuid_from_hex(const char *text) {
    core::Uuid u;
    int n = 0;
    for (const char *p = text; *p; ++p) {
        if (*p == '-')
            continue;
        int v = (*p >= '0' && *p <= '9') ? *p - '0' : ((*p | 0x20) - 'a' + 10);
        u.bytes[n / 2] = uint8_t(n % 2 ? (u.bytes[n / 2] | v) : v << 4);
        ++n;
    }
    return u;
}

} // namespace crid::test
