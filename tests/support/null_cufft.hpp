// What tests/support/null_cufft.cpp (a cuFFT that transforms nothing) has been asked to do, and
// how a test loaded with it reads that.
#pragma once

#include <cuda.h>

#include <cstdlib>
#include <dlfcn.h>

namespace jet::test {

struct null_cufft_record {
  unsigned long long plans_made, plans_destroyed, execs;
  // The last plan made (cufftMakePlanMany64's arguments).
  int type, rank;
  long long n[2], inembed[2], istride, idist, onembed[2], ostride, odist, batch;
  // Executions: the first since execs was last set to 0, and the last.
  void *first_in, *first_out, *last_in, *last_out;
  int direction;          // the last C2C or Z2Z execution's
  CUstream stream;        // the last cufftSetStream's
  const char* last_exec;  // "cufftExecC2C", ...
  // A plan whose n[0] is fail_n fails with fail_result (set by the test).
  long long fail_n;
  int fail_result;
  // Load callbacks (cufftXtSetJITCallback): how many were set, the last one's symbol, LTO-IR size,
  // callback type and caller_info[0]; refuse_callbacks, when not 0, is what the call returns.
  unsigned long long callbacks;
  char callback_symbol[32];
  unsigned long long callback_lto_ir_bytes;
  int callback_type;
  void* callback_info;
  int refuse_callbacks;
};

/// The null cuFFT's record, when JET_CUFFT_LIBRARY names it and jet has loaded it; else null.
inline null_cufft_record* null_cufft() {
  const char* path = std::getenv("JET_CUFFT_LIBRARY");
  void* library = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  return library ? static_cast<null_cufft_record*>(dlsym(library, "null_cufft_record")) : nullptr;
}

}  // namespace jet::test
