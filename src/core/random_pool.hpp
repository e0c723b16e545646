// Random bits drawn from a CSPRNG in chunks, so one id does not cost one call
// into the entropy source. The pool remembers which process filled it: a
// forked child must never hand out bytes its parent may also use.
#pragma once
#include "pure_cpp.hpp"

#include <cstddef>
#include <cstdint>

namespace crid::core {

class RandomPool {
  public:
    // Fills `len` bytes from a CSPRNG; false on failure.
    using Fill = bool (*)(void *dst, size_t len);

    // The next 64 random bits. `process_id` identifies the calling process;
    // a change discards what is left. Throws internal if `fill` fails.
    uint64_t next64(Fill fill, int process_id);

  private:
    static constexpr size_t chunk = 4096;
    alignas(8) unsigned char bytes_[chunk];
    size_t used_ = chunk;
    int owner_ = 0;
};

} // namespace crid::core
