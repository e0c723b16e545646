// A module's struct in shared memory: the one step every module's
// startup_*() begins with. Called in the postmaster at start and after every
// crash (with AddinShmemInitLock held by the hub), and found again, not
// created, by a process that attaches later.
#pragma once

#include "common/postgres_headers.hpp"

extern "C" {
#include "storage/shmem.h"
}

#include <cstring>

namespace crid::pg {

// The struct `name` of `size` bytes (several T for an array), zeroed when
// this call created it; `created` says so, and the caller then initialises
// its locks and atomics.
template <class T>
T *shared_struct(const char *name, bool &created, Size size = sizeof(T)) {
    bool found = false;
    T *p = static_cast<T *>(ShmemInitStruct(name, size, &found));
    if (!found)
        std::memset(static_cast<void *>(p), 0, size);
    created = !found;
    return p;
}

} // namespace crid::pg
