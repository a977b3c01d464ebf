// The CUDA driver, loaded at run time: jet links no libcuda, so programs start (and compile-only
// work runs) on machines without one.
#pragma once

#include <cuda.h>

#include <string>

namespace jet::detail {

// Every driver entry point jet calls, with the versioned symbol it is exported as.
#define JET_DRIVER_FUNCTIONS(X)                       \
  X(cuInit, "cuInit")                                 \
  X(cuGetErrorName, "cuGetErrorName")                 \
  X(cuGetErrorString, "cuGetErrorString")             \
  X(cuDeviceGetCount, "cuDeviceGetCount")             \
  X(cuDeviceGet, "cuDeviceGet")                       \
  X(cuDeviceGetName, "cuDeviceGetName")               \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute")     \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")               \
  X(cuCtxSynchronize, "cuCtxSynchronize")             \
  X(cuModuleLoadData, "cuModuleLoadData")             \
  X(cuModuleGetFunction, "cuModuleGetFunction")       \
  X(cuLaunchKernel, "cuLaunchKernel")                 \
  X(cuMemAlloc, "cuMemAlloc_v2")                      \
  X(cuMemFree, "cuMemFree_v2")                        \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2")                  \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2")                  \
  X(cuMemcpyDtoD, "cuMemcpyDtoD_v2")                  \
  X(cuEventCreate, "cuEventCreate")                   \
  X(cuEventRecord, "cuEventRecord")                   \
  X(cuEventSynchronize, "cuEventSynchronize")         \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2")      \
  X(cuEventDestroy, "cuEventDestroy_v2")

struct driver_api {
#define JET_DRIVER_MEMBER(name, symbol) decltype(&::name) name = nullptr;
  JET_DRIVER_FUNCTIONS(JET_DRIVER_MEMBER)
#undef JET_DRIVER_MEMBER
};

/// The loaded driver with a primary context current on the calling thread.
/// Throws no_device with the reason when there is no driver or no device.
const driver_api& driver();

/// Throws cuda_error (out_of_memory for CUDA_ERROR_OUT_OF_MEMORY) naming `call` unless r succeeded.
void check(CUresult r, const char* call);

/// The device jet uses, queried once.
struct device_properties {
  CUdevice device;
  int ordinal;
  int arch;  // 90 for sm_90
  int multiprocessors;
  std::string name;
};
const device_properties& properties();

}  // namespace jet::detail
