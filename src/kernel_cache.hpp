// The in-memory kernel cache: per expression type a lock-free slot (kernel_slot, in the header),
// behind it one process-wide map from kernel content to compiled function.
#pragma once

#include <jet/runtime.hpp>

#include <cuda.h>

namespace jet::detail {

/// The kernel for (desc, variant) on the current device, compiled on first use. Concurrent
/// callers asking for the same kernel compile it once.
CUfunction find_kernel(const kernel_desc& desc, kernel_slot& slot, const variant_key& variant);

void count_launch();

}  // namespace jet::detail
