// A CUDA driver with no device behind it, for testing jet's host path (planning, the kernel cache,
// the launch, memory and streams) where there is no GPU: it reports one sm_90 device with a memory
// pool, hands out host memory as device memory, copies with memcpy, runs no kernel, and captures
// streams into empty graphs. It counts what it is asked to do in null_driver_record, which the
// tests read (jet loads it with JET_CUDA_DRIVER). Kernels' results are not computed: those are the
// GPU tests' business.
#include "null_driver.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

extern "C" {

jet::test::null_driver_counts null_driver_record;

}  // extern "C"

namespace {

// One per cuStreamCreate; the legacy stream (null) never captures.
struct null_stream {
  bool capturing = false;
};
null_stream* as_null(CUstream s) { return reinterpret_cast<null_stream*>(s); }
int context, module, function, pool, graph, graph_exec;

}  // namespace

extern "C" {

#define OK return CUDA_SUCCESS
CUresult cuInit(unsigned flags) { OK; }
CUresult cuGetErrorName(CUresult e, const char** s) {
  *s = "CUDA_ERROR_NULL_DRIVER";
  OK;
}
CUresult cuGetErrorString(CUresult e, const char** s) {
  *s = "the null driver's error";
  OK;
}
CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  OK;
}
CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  *d = 0;
  OK;
}
CUresult cuDeviceGetName(char* name, int length, CUdevice d) {
  std::strncpy(name, "null device", length);
  OK;
}
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute a, CUdevice d) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    default: *value = 1;
  }
  OK;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  *c = reinterpret_cast<CUcontext>(&context);
  OK;
}
CUresult cuCtxSetCurrent(CUcontext c) { OK; }
CUresult cuCtxSynchronize(void) { OK; }
CUresult cuModuleLoadData(CUmodule* m, const void* image) {
  *m = reinterpret_cast<CUmodule>(&module);
  OK;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  *f = reinterpret_cast<CUfunction>(&function);
  OK;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int value) { OK; }
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void** params, void** extra) {
  ++null_driver_record.launches;
  null_driver_record.grid_x = gx;
  null_driver_record.grid_y = gy;
  null_driver_record.block_x = bx;
  null_driver_record.first_parameter = *static_cast<void* const*>(params[0]);
  OK;
}
// cuMemAlloc's memory is mapped, not malloc'd: jet keeps some for the whole process on purpose (a
// reduction's workspace, which graphs may hold on to), and LeakSanitizer is to judge host memory.
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  void* mapped = mmap(nullptr, bytes + sizeof(size_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  ++null_driver_record.allocations;
  *static_cast<size_t*>(mapped) = bytes;
  *p = reinterpret_cast<CUdeviceptr>(static_cast<char*>(mapped) + sizeof(size_t));
  OK;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  char* mapped = reinterpret_cast<char*>(p) - sizeof(size_t);
  munmap(mapped, *reinterpret_cast<size_t*>(mapped) + sizeof(size_t));
  OK;
}
CUresult cuEventCreate(CUevent* e, unsigned flags) {
  *e = reinterpret_cast<CUevent>(new char);
  OK;
}
CUresult cuEventRecord(CUevent e, CUstream s) { OK; }
CUresult cuEventSynchronize(CUevent e) { OK; }
CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent stop) {
  *ms = 0;
  OK;
}
CUresult cuEventDestroy_v2(CUevent e) {
  delete reinterpret_cast<char*>(e);
  OK;
}
CUresult cuStreamCreate(CUstream* s, unsigned flags) {
  *s = reinterpret_cast<CUstream>(new null_stream);
  OK;
}
CUresult cuStreamDestroy_v2(CUstream s) {
  delete as_null(s);
  OK;
}
CUresult cuStreamSynchronize(CUstream s) { OK; }
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) { OK; }
CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus* status) {
  ++null_driver_record.capture_queries;
  *status = s && as_null(s)->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  OK;
}
CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode) {
  if (!s) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  as_null(s)->capturing = true;
  OK;
}
CUresult cuStreamEndCapture(CUstream s, CUgraph* g) {
  as_null(s)->capturing = false;
  *g = reinterpret_cast<CUgraph>(&graph);
  OK;
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec* e, CUgraph g, unsigned long long flags) {
  *e = reinterpret_cast<CUgraphExec>(&graph_exec);
  OK;
}
CUresult cuGraphLaunch(CUgraphExec e, CUstream s) { OK; }
CUresult cuGraphExecDestroy(CUgraphExec e) { OK; }
CUresult cuGraphDestroy(CUgraph g) { OK; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* s, size_t bytes, CUstream st) {
  std::memcpy(reinterpret_cast<void*>(d), s, bytes);
  OK;
}
CUresult cuMemcpyDtoHAsync_v2(void* d, CUdeviceptr s, size_t bytes, CUstream st) {
  std::memcpy(d, reinterpret_cast<void*>(s), bytes);
  OK;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t bytes, CUstream st) {
  std::memmove(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), bytes);
  OK;
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned value, size_t count, CUstream s) {
  for (size_t i = 0; i < count; ++i) reinterpret_cast<unsigned*>(d)[i] = value;
  OK;
}
CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) { OK; }
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* p, CUdevice d) {
  *p = reinterpret_cast<CUmemoryPool>(&pool);
  OK;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool p, CUmemPool_attribute a, void* value) { OK; }
CUresult cuMemPoolTrimTo(CUmemoryPool p, size_t keep) { OK; }
// Pool memory is freed at once: nothing runs on the streams, so nothing can still use it.
CUresult cuMemAllocAsync(CUdeviceptr* p, size_t bytes, CUstream s) {
  ++null_driver_record.pool_allocations;
  *p = reinterpret_cast<CUdeviceptr>(std::malloc(bytes));
  OK;
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) {
  ++null_driver_record.pool_frees;
  std::free(reinterpret_cast<void*>(p));
  OK;
}

}  // extern "C"
