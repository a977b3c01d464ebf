// Device memory and copies, in order on the calling thread's current stream. Memory comes from
// the device's default pool (stream-ordered, cached: freed memory is reused without a system
// call and allocating is legal during graph capture), else from cuMemAlloc.
#include "driver.hpp"

#include <jet/error.hpp>
#include <jet/runtime.hpp>

#include <string>

namespace jet::detail {
namespace {

CUresult allocate(CUdeviceptr& p, std::size_t bytes, CUstream s) {
  const CUmemoryPool pool = properties().pool;
  return pool ? driver().cuMemAllocAsync(&p, bytes, s) : driver().cuMemAlloc(&p, bytes);
}

}  // namespace

void* device_alloc(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const CUstream s = current_stream_handle();
  const bool pool = properties().pool != nullptr;
  if (!pool && is_capturing(s))
    throw invalid_argument("jet: cannot allocate " + std::to_string(bytes) +
                           " bytes during stream capture: the CUDA driver has no stream-ordered memory pool");
  CUdeviceptr p = 0;
  CUresult r = allocate(p, bytes, s);
  if (r == CUDA_ERROR_OUT_OF_MEMORY && pool && !is_capturing(s)) {
    // Memory freed on other streams may still be pending, and the pool keeps freed memory that
    // other allocators in the process may hold on to: wait for the frees, give it back, retry.
    release_cached_memory();
    r = allocate(p, bytes, s);
  }
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    throw out_of_memory("jet: out of device memory allocating " + std::to_string(bytes) + " bytes", bytes);
  check(r, pool ? "cuMemAllocAsync" : "cuMemAlloc");
  return reinterpret_cast<void*>(p);
}

void device_free(void* p) noexcept {
  if (!p) return;
  try {  // a failure here has nowhere to go
    const auto address = reinterpret_cast<CUdeviceptr>(p);
    if (properties().pool) driver().cuMemFreeAsync(address, current_stream_handle());
    else driver().cuMemFree(address);
  } catch (const error&) {
  }
}

namespace {

// Host memory is copied in order on the current stream, and the call returns when the copy is
// done: the caller may reuse the host memory at once, even page-locked memory (from which the
// copy itself would return early).
CUstream host_copy_stream(std::size_t bytes, const char* direction) {
  const CUstream s = current_stream_handle();
  if (is_capturing(s))
    throw invalid_argument("jet: cannot copy " + std::to_string(bytes) + " bytes " + direction +
                           " during stream capture: a graph would copy from host memory that is gone by then");
  return s;
}

}  // namespace

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (!bytes) return;
  const CUstream s = host_copy_stream(bytes, "from the host");
  check(driver().cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), src, bytes, s), "cuMemcpyHtoDAsync");
  check(driver().cuStreamSynchronize(s), "cuStreamSynchronize");
}

void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (!bytes) return;
  const CUstream s = host_copy_stream(bytes, "to the host");
  check(driver().cuMemcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src), bytes, s), "cuMemcpyDtoHAsync");
  check(driver().cuStreamSynchronize(s), "cuStreamSynchronize");
}

void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes)
    check(driver().cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes,
                                     current_stream_handle()),
          "cuMemcpyDtoDAsync");
}

}  // namespace jet::detail

namespace jet {

void release_cached_memory() {
  synchronize();
  if (const CUmemoryPool pool = detail::properties().pool)
    detail::check(detail::driver().cuMemPoolTrimTo(pool, 0), "cuMemPoolTrimTo");
}

}  // namespace jet
