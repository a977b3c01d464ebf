// cuFFT plans, cached per transform type, layout and stream.
#pragma once

#include "fft/cufft.hpp"
#include "fft/geometry.hpp"

#include <jet/detail/core.hpp>

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

namespace jet::detail {

/// The operand expression a plan computes in its loads (load_callback.hpp): its description
/// (null: none, the plan reads its input buffer), the variant it is computed with, and whether the
/// buffer is padded.
struct fft_load_fusion {
  const kernel_desc* desc = nullptr;
  variant_key variant;
  bool padded = false;
};

/// What a plan is made for: cuFFT's type (which also gives the precision), the batched layout,
/// the stream it runs on (a plan's work area serves one stream at a time) and its load callback.
struct fft_plan_key {
  cufft_type type;
  fft_batches layout;
  CUstream stream;
  fft_load_fusion load;
};

/// A cuFFT plan. Executions lock `running` from cufftSetStream to the last cufftExec*: cuFFT's
/// calls on one plan are not safe from several threads at once. An entry asked for a load
/// callback that cuFFT refuses (a kernel out of resources) holds no cuFFT plan: fused() is false,
/// and the caller transforms with the plain plan of the layout.
class fft_plan {
 public:
  explicit fft_plan(const fft_plan_key& key);
  ~fft_plan();
  fft_plan(const fft_plan&) = delete;
  fft_plan& operator=(const fft_plan&) = delete;

  cufft_handle handle() const { return handle_; }
  bool fused() const { return parameters_ != nullptr; }
  /// The device block the load callback reads its run-time values from, of parameter_bytes().
  void* parameters() const { return parameters_; }
  std::size_t parameter_bytes() const { return parameter_bytes_; }
  std::mutex running;

 private:
  bool make(const fft_plan_key& key, bool with_callback, const std::string& what);
  cufft_result set_load_callback(const fft_plan_key& key);

  cufft_handle handle_ = -1;
  std::string lto_ir_;  // kept, with caller_info_, while cuFFT may read them
  void* parameters_ = nullptr;
  std::size_t parameter_bytes_ = 0;
  void* caller_info_[1] = {nullptr};
};

/// The plan for key, made on the first request (under the cache's lock: concurrent first calls
/// plan once). The cache keeps the 32 plans used last; a plan evicted while in use lives on until
/// its last user lets go.
std::shared_ptr<fft_plan> cached_fft_plan(const fft_plan_key& key);

/// "C2C of n = (64), batch 8 (...)": for error messages.
std::string describe(const fft_plan_key& key);

}  // namespace jet::detail
