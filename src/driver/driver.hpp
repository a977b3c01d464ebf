// The CUDA driver, loaded at run time: jet links no libcuda, so programs start (and compile-only
// work runs) on machines without one.
#pragma once

#include <cuda.h>

#include <string>

namespace jet::detail {

// Every driver entry point jet calls, with the versioned symbol it is exported as.
#define JET_DRIVER_FUNCTIONS(X)                                           \
  X(cuInit, "cuInit")                                                     \
  X(cuGetErrorName, "cuGetErrorName")                                     \
  X(cuGetErrorString, "cuGetErrorString")                                 \
  X(cuDeviceGetCount, "cuDeviceGetCount")                                 \
  X(cuDeviceGet, "cuDeviceGet")                                           \
  X(cuDeviceGetName, "cuDeviceGetName")                                   \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute")                         \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                 \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")                                   \
  X(cuCtxSynchronize, "cuCtxSynchronize")                                 \
  X(cuModuleLoadData, "cuModuleLoadData")                                 \
  X(cuModuleGetFunction, "cuModuleGetFunction")                           \
  X(cuFuncSetAttribute, "cuFuncSetAttribute")                             \
  X(cuLaunchKernel, "cuLaunchKernel")                                     \
  X(cuMemAlloc, "cuMemAlloc_v2")                                          \
  X(cuMemFree, "cuMemFree_v2")                                            \
  X(cuEventCreate, "cuEventCreate")                                       \
  X(cuEventRecord, "cuEventRecord")                                       \
  X(cuEventSynchronize, "cuEventSynchronize")                             \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2")                          \
  X(cuEventDestroy, "cuEventDestroy_v2")                                  \
  X(cuStreamCreate, "cuStreamCreate")                                     \
  X(cuStreamDestroy, "cuStreamDestroy_v2")                                \
  X(cuStreamSynchronize, "cuStreamSynchronize")                           \
  X(cuStreamWaitEvent, "cuStreamWaitEvent")                               \
  X(cuStreamIsCapturing, "cuStreamIsCapturing")                           \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2")                      \
  X(cuStreamEndCapture, "cuStreamEndCapture")                             \
  X(cuGraphInstantiate, "cuGraphInstantiateWithFlags") /* CUDA 11.4 on */ \
  X(cuGraphLaunch, "cuGraphLaunch")                                       \
  X(cuGraphExecDestroy, "cuGraphExecDestroy")                             \
  X(cuGraphDestroy, "cuGraphDestroy")                                     \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")                            \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")                            \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")                            \
  X(cuMemsetD32Async, "cuMemsetD32Async")                                 \
  X(cuThreadExchangeStreamCaptureMode, "cuThreadExchangeStreamCaptureMode")

// Entry points of stream-ordered memory (CUDA 11.2 on): without them jet allocates with cuMemAlloc.
#define JET_DRIVER_POOL_FUNCTIONS(X)                        \
  X(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool") \
  X(cuMemPoolSetAttribute, "cuMemPoolSetAttribute")         \
  X(cuMemPoolTrimTo, "cuMemPoolTrimTo")                     \
  X(cuMemAllocAsync, "cuMemAllocAsync")                     \
  X(cuMemFreeAsync, "cuMemFreeAsync")

struct driver_api {
#define JET_DRIVER_MEMBER(name, symbol) decltype(&::name) name = nullptr;
  JET_DRIVER_FUNCTIONS(JET_DRIVER_MEMBER)
  JET_DRIVER_POOL_FUNCTIONS(JET_DRIVER_MEMBER)  // null when the driver lacks them
#undef JET_DRIVER_MEMBER
};

/// The loaded driver with a primary context current on the calling thread.
/// Throws no_device with the reason when there is no driver or no device.
const driver_api& driver();

/// Throws cuda_error (out_of_memory for CUDA_ERROR_OUT_OF_MEMORY) naming `call` unless r succeeded.
void check(CUresult r, const char* call);

/// The x extent of a one-dimensional grid of `blocks` blocks. invalid_argument for 0 (the driver
/// refuses an empty grid: callers launch nothing when there is no work) and for more than
/// 2^31 - 1, the driver's limit in x, rather than a cast that would wrap.
unsigned grid_extent(unsigned long long blocks);

/// The device jet uses, queried once.
struct device_properties {
  CUdevice device;
  int ordinal;
  int arch;  // 90 for sm_90
  int multiprocessors;
  std::string name;
  CUmemoryPool pool;  // the device's default memory pool, or null: then jet uses cuMemAlloc
};
const device_properties& properties();

}  // namespace jet::detail
