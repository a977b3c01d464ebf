// The per-thread current stream, capture queries, and launches on the current stream.
#include "driver/stream.hpp"

#include "driver/driver.hpp"

namespace jet::detail {
namespace {

thread_local CUstream current = nullptr;  // the legacy default stream until a guard names another

}  // namespace

CUstream current_stream_handle() { return current; }

void set_current_stream(CUstream s) { current = s; }

bool is_capturing(CUstream s) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  // The legacy stream reports an error while a stream it would synchronize with is capturing.
  return driver().cuStreamIsCapturing(s, &status) != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool captures_into_graph(CUstream s) { return s != nullptr && is_capturing(s); }

capture_exemption::capture_exemption() {
  check(driver().cuThreadExchangeStreamCaptureMode(&previous_), "cuThreadExchangeStreamCaptureMode");
}

capture_exemption::~capture_exemption() { driver().cuThreadExchangeStreamCaptureMode(&previous_); }

void launch_kernel(CUfunction f, unsigned long long blocks, unsigned threads, void** params, unsigned rows,
                   unsigned shared_bytes) {
  const unsigned grid = grid_extent(blocks);
  check(
      driver().cuLaunchKernel(f, grid, rows, 1, threads, 1, 1, shared_bytes, current_stream_handle(), params, nullptr),
      "cuLaunchKernel");
}

}  // namespace jet::detail
