#include "random_pool.hpp"

#include "error.hpp"

#include <cstring>

namespace crid::core {

uint64_t RandomPool::next64(Fill fill, int process_id) {
    if (owner_ != process_id || used_ + sizeof(uint64_t) > chunk) {
        if (!fill(bytes_, chunk))
            throw Error(ErrorKind::internal, "could not generate random bytes");
        owner_ = process_id;
        used_ = 0;
    }
    uint64_t v;
    std::memcpy(&v, bytes_ + used_, sizeof v);
    used_ += sizeof v;
    return v;
}

} // namespace crid::core
