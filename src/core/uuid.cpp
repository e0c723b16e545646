#include "uuid.hpp"

namespace crid::core {

uint64_t get_be(const Uuid &u, int first, int count) noexcept {
    uint64_t v = 0;
    for (int i = first; i < first + count; ++i)
        v = (v << 8) | u.bytes[i];
    return v;
}

std::string Uuid::to_string() const {
    static const char hex[] = "0123456789abcdef";
    std::string s;
    s.reserve(36);
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            s.push_back('-');
        s.push_back(hex[bytes[i] >> 4]);
        s.push_back(hex[bytes[i] & 0xF]);
    }
    return s;
}

} // namespace crid::core
