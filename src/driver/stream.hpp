// The calling thread's current stream, stream capture, and kernel launches on that stream.
#pragma once

#include <cuda.h>

namespace jet::detail {

/// The calling thread's current stream (null: the legacy default stream), and whether a stream is
/// being captured into a graph (for the legacy stream: or one it would synchronize with is).
CUstream current_stream_handle();
/// Makes s the calling thread's current stream (jet::stream_guard).
void set_current_stream(CUstream s);
bool is_capturing(CUstream s);
/// Whether work queued on s now goes into a graph, asked without a driver call for the legacy
/// stream: CUDA never captures work there (while another stream captures, work there fails
/// instead), so a reduction on it, the common case, makes no capture query.
bool captures_into_graph(CUstream s);

/// While alive, lets the calling thread make calls that a stream capture in the global or
/// thread-local mode refuses as unsafe in general (loading a module, allocating outside the pool):
/// jet makes them only where they are no stream operation, as the driver provides for libraries.
class capture_exemption {
 public:
  capture_exemption();
  ~capture_exemption();
  capture_exemption(const capture_exemption&) = delete;
  capture_exemption& operator=(const capture_exemption&) = delete;

 private:
  CUstreamCaptureMode previous_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

/// Launches f with grid_extent(blocks) blocks of `threads` threads on the calling thread's current
/// stream (kernels and the interpreter alike, so that both run in stream order and in captures),
/// with `shared_bytes` of dynamic shared memory a block.
void launch_kernel(CUfunction f, unsigned long long blocks, unsigned threads, void** params, unsigned rows = 1,
                   unsigned shared_bytes = 0);

}  // namespace jet::detail
