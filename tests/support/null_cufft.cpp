// A cuFFT that transforms nothing, for testing jet's FFT host path where there is no GPU (with
// null_driver.cpp as the driver): it records the plans it is asked to make and the executions,
// in null_cufft_record, which the tests read (jet loads it with JET_CUFFT_LIBRARY). What the
// transforms compute is the GPU tests' business.
#include "null_cufft.hpp"

#include <cstddef>
#include <cstring>

extern "C" {

jet::test::null_cufft_record null_cufft_record;

namespace {
int next_handle = 1;
void executed(const char* name, void* in, void* out) {
  auto& r = null_cufft_record;
  if (r.execs++ == 0) r.first_in = in, r.first_out = out;
  r.last_in = in, r.last_out = out, r.last_exec = name;
}
}  // namespace

int cufftGetVersion(int* version) {
  *version = 12000;
  return 0;
}
int cufftCreate(int* plan) {
  *plan = next_handle++;
  return 0;
}
int cufftDestroy(int) {
  ++null_cufft_record.plans_destroyed;
  return 0;
}
int cufftSetStream(int, CUstream s) {
  null_cufft_record.stream = s;
  return 0;
}
int cufftMakePlanMany64(int, int rank, long long* n, long long* inembed, long long istride, long long idist,
                        long long* onembed, long long ostride, long long odist, int type, long long batch,
                        std::size_t* work) {
  auto& r = null_cufft_record;
  if (n[0] == r.fail_n) return r.fail_result;
  ++r.plans_made;
  r.type = type, r.rank = rank, r.istride = istride, r.idist = idist, r.ostride = ostride, r.odist = odist;
  r.batch = batch;
  for (int k = 0; k < rank && k < 2; ++k) r.n[k] = n[k], r.inembed[k] = inembed[k], r.onembed[k] = onembed[k];
  *work = 0;
  return 0;
}
int cufftXtSetJITCallback(int, const char* symbol, const void*, std::size_t lto_ir_bytes, int type, void** info) {
  auto& r = null_cufft_record;
  if (r.refuse_callbacks) return r.refuse_callbacks;
  ++r.callbacks;
  std::strncpy(r.callback_symbol, symbol, sizeof r.callback_symbol - 1);
  r.callback_lto_ir_bytes = lto_ir_bytes, r.callback_type = type, r.callback_info = info[0];
  return 0;
}
int cufftExecC2C(int, void* in, void* out, int direction) {
  null_cufft_record.direction = direction;
  executed("cufftExecC2C", in, out);
  return 0;
}
int cufftExecZ2Z(int, void* in, void* out, int direction) {
  null_cufft_record.direction = direction;
  executed("cufftExecZ2Z", in, out);
  return 0;
}
int cufftExecR2C(int, void* in, void* out) { return executed("cufftExecR2C", in, out), 0; }
int cufftExecD2Z(int, void* in, void* out) { return executed("cufftExecD2Z", in, out), 0; }
int cufftExecC2R(int, void* in, void* out) { return executed("cufftExecC2R", in, out), 0; }
int cufftExecZ2D(int, void* in, void* out) { return executed("cufftExecZ2D", in, out), 0; }

}  // extern "C"
