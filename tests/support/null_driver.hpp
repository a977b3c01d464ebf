// What tests/support/null_driver.cpp (a CUDA driver with no device behind it) has been asked to
// do, and how a test loaded with it reads that.
#pragma once

#include <cuda.h>

#include <cstdlib>
#include <dlfcn.h>

namespace jet::test {

struct null_driver_counts {
  unsigned long long launches, pool_allocations, pool_frees, allocations;  // the last: cuMemAlloc's
  unsigned long long capture_queries;                                      // cuStreamIsCapturing
  unsigned grid_x, grid_y, block_x;                                        // the last launch's
  const void* first_parameter;  // the last launch's (an elementwise kernel's first output)
};

/// The null driver's counts, when JET_CUDA_DRIVER names it and jet has loaded it; else null.
inline const null_driver_counts* null_driver() {
  const char* path = std::getenv("JET_CUDA_DRIVER");
  void* library = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  return library ? static_cast<const null_driver_counts*>(dlsym(library, "null_driver_record")) : nullptr;
}

}  // namespace jet::test
