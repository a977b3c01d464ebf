// An FFT's shapes (fft_geometry_of, declared in jet/fft.hpp) and how cuFFT's batched layouts
// cover them: no driver, no cuFFT.
#pragma once

#include <jet/fft.hpp>

namespace jet::detail {

/// One cuFFT plan's layout (cufftMakePlanMany64's parameters, in elements of the input's and of
/// the output's types), run `loops` times with both pointers advanced by in_step and out_step
/// elements each time. A transform along an axis with axes both before and after it is batched
/// over the more numerous of the two, and the other is the loop: one plan cannot step through two
/// batch strides.
struct fft_batches {
  int rank;
  long long n[2];
  long long inembed[2], istride, idist;
  long long onembed[2], ostride, odist;
  long long batch;
  long long loops, in_step, out_step;
};

/// g's batches; g.output has no extent 0.
fft_batches batches_of(const fft_geometry& g);

/// "jet::fft", "jet::irfft", "jet::ifft2", ...
const char* fft_function_name(fft_kind kind, int rank);

}  // namespace jet::detail
