// Device memory and copies.
#include "driver.hpp"

#include <jet/error.hpp>
#include <jet/runtime.hpp>

#include <string>

namespace jet::detail {

void* device_alloc(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  CUdeviceptr p = 0;
  const CUresult r = driver().cuMemAlloc(&p, bytes);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    throw out_of_memory("jet: out of device memory allocating " + std::to_string(bytes) + " bytes", bytes);
  check(r, "cuMemAlloc");
  return reinterpret_cast<void*>(p);
}

void device_free(void* p) noexcept {
  if (!p) return;
  try {
    driver().cuMemFree(reinterpret_cast<CUdeviceptr>(p));  // a failure here has nowhere to go
  } catch (const error&) {
  }
}

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes) check(driver().cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, bytes), "cuMemcpyHtoD");
}

void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes) check(driver().cuMemcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), bytes), "cuMemcpyDtoH");
}

void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes)
    check(driver().cuMemcpyDtoD(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes),
          "cuMemcpyDtoD");
}

}  // namespace jet::detail
