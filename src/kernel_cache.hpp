// The in-memory kernel cache: per expression type a lock-free slot (kernel_slot, in the header),
// behind it one process-wide map from kernel content to compiled function.
#pragma once

#include <jet/detail/core.hpp>

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace jet::detail {

/// The kernel for (desc, variant) on the current device, compiled on first use. Concurrent
/// callers asking for the same kernel compile it once.
CUfunction find_kernel(const kernel_desc& desc, kernel_slot& slot, const variant_key& variant);

/// The kernel in the expression type's slot, or null (then find_kernel, or find_ready_kernel).
CUfunction find_in_slot(kernel_slot& slot, const variant_key& variant);

/// The kernel for (desc, variant) when it is compiled already; otherwise null, and the first such
/// call queues its compile on a background thread (jit_policy::async). A compile that fails there
/// is reported on stderr and counted; this keeps returning null for it.
CUfunction find_ready_kernel(const kernel_desc& desc, kernel_slot& slot, const variant_key& variant);

/// The kernel for (desc, variant) when it is loaded already or the disk cache holds it (the first
/// call for a kernel looks there, ~1 ms); otherwise null. Never compiles.
CUfunction find_stored_kernel(const kernel_desc& desc, kernel_slot& slot, const variant_key& variant);

/// Loads a cubin as a module (kept for the life of the process) and returns its kernel `name`.
CUfunction load_function(const std::string& cubin, const char* name);

/// Forgets the background compiles not yet started (benchmarks: no compiles left running into
/// the next measurement).
void drop_background_compiles();

/// One kernel find_kernels_in_parallel is to make ready.
struct kernel_request {
  const kernel_desc* desc;
  kernel_slot* slot;
  variant_key variant;
};
/// find_kernel for each request, in parallel threads; rethrows the first failure.
void find_kernels_in_parallel(const kernel_request* kernels, std::size_t count);

}  // namespace jet::detail
