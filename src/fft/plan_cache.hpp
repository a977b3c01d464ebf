// cuFFT plans, cached per transform type, layout and stream.
#pragma once

#include "fft/cufft.hpp"
#include "fft/geometry.hpp"

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

namespace jet::detail {

/// What a plan is made for: cuFFT's type (which also gives the precision), the batched layout
/// and the stream it runs on (a plan's work area serves one stream at a time).
struct fft_plan_key {
  cufft_type type;
  fft_batches layout;
  CUstream stream;
};

/// A cuFFT plan. Executions lock `running` from cufftSetStream to the last cufftExec*: cuFFT's
/// calls on one plan are not safe from several threads at once.
class fft_plan {
 public:
  explicit fft_plan(const fft_plan_key& key);
  ~fft_plan();
  fft_plan(const fft_plan&) = delete;
  fft_plan& operator=(const fft_plan&) = delete;

  cufft_handle handle() const { return handle_; }
  std::mutex running;

 private:
  cufft_handle handle_ = -1;
};

/// The plan for key, made on the first request (under the cache's lock: concurrent first calls
/// plan once). The cache keeps the 32 plans used last; a plan evicted while in use lives on until
/// its last user lets go.
std::shared_ptr<fft_plan> cached_fft_plan(const fft_plan_key& key);

/// "C2C of n = (64), batch 8 (...)": for error messages.
std::string describe(const fft_plan_key& key);

}  // namespace jet::detail
