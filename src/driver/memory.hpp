// Device memory and copies (device_alloc, copy_to_device, ... in jet/runtime.hpp), in order on the
// calling thread's current stream, and the small blocks jet keeps per stream on top of the pool.
#pragma once

#include <cuda.h>

namespace jet::detail {

/// jet's own streams: small blocks freed on one wait there for reuse until the stream ends.
void cache_small_blocks_on(CUstream s);
void stop_caching_small_blocks_on(CUstream s);

}  // namespace jet::detail
