// Range ids, shared by the app's range markers (markers.cpp) and BLAS calls
// (blas_hooks.cpp): one counter, so a launch's ranges and its call never share an id.
#pragma once

#include <cstdint>

namespace clprof::shim {

// The next range id (from 1, over all threads). Threads: any.
std::uint32_t next_range_id();

}  // namespace clprof::shim
