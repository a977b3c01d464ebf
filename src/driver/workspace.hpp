// The reductions' workspaces on the device, one per stream.
#pragma once

#include <cuda.h>

#include <cstddef>

namespace jet::detail {

// The reductions' workspace on the device, one per stream: each block's partial (an accumulator
// is at most 16 bytes, a complex128 sum's) and the ticket counter that tells the last block to finish (the kernel
// leaves it at 0). A stream's launches run one after another, so they share it; launches on
// different streams may run at once, so they do not. It is allocated outside the pool and zeroed
// on a stream of its own: valid on every stream at once, even when the first reduction on a stream
// is being captured into a graph. When a jet::stream ends, its workspace goes to the next stream
// that needs one, which first waits for the ended stream's work; but one that a graph captured is
// kept for good, since the graph may still run.
struct workspace {
  void* partials;
  void* ticket;
  bool in_graph = false;
};

/// Stream s's workspace, with partial_bytes of partials (the same every call): made, or taken
/// from a stream that ended.
workspace reduction_workspace(CUstream s, std::size_t partial_bytes);

/// A jet::stream ends: its reductions' workspace goes to the next stream that needs one.
void reduction_stream_ends(CUstream s);

}  // namespace jet::detail
