// Random bits drawn from a CSPRNG in chunks, so one id does not cost one call
// into the entropy source. The pool remembers which process filled it: a
// forked child must never hand out bytes its parent may also use.
#pragma once
#include "pure_cpp.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace crid::core {

class RandomPool {
  public:
    // Fills `len` bytes from a CSPRNG; false on failure.
    using Fill = bool (*)(void *dst, size_t len);

    // The next 64 random bits. `process_id` identifies the calling process;
    // a change discards what is left. Throws internal if `fill` fails.
    // Inline: every UUIDv7 takes one, and only one in 2,048 refills.
    uint64_t next64(Fill fill, int process_id) {
        if (owner_ != process_id || used_ + sizeof(uint64_t) > chunk) [[unlikely]]
            refill(fill, process_id);
        uint64_t v;
        std::memcpy(&v, bytes_ + used_, sizeof v);
        used_ += sizeof v;
        return v;
    }

  private:
    void refill(Fill fill, int process_id);
    // Bytes drawn per fill: 16 KiB, as a fill costs about 12,000 instructions
    // besides the bytes (OpenSSL's per-call setup): 6 per value at this size,
    // 24 at 4 KiB.
    static constexpr size_t chunk = 16384;
    alignas(8) unsigned char bytes_[chunk];
    size_t used_ = chunk;
    int owner_ = 0;
};

} // namespace crid::core
