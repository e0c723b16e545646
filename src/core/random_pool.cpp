#include "random_pool.hpp"

#include "error.hpp"

namespace crid::core {

void RandomPool::refill(Fill fill, int process_id) {
    if (!fill(bytes_, chunk))
        throw Error(ErrorKind::internal, "could not generate random bytes");
    owner_ = process_id;
    used_ = 0;
}

} // namespace crid::core
