// Hand-written CUDA and Thrust versions of the benchmarked expressions (native_peers.cu, built
// with nvcc). Plain functions, so the host-compiled benchmark links them without nvcc's headers.
#pragma once

#include "expressions.hpp"

#include <cstddef>

namespace bench {

enum class native { cuda_masked, cuda_float4, thrust };
inline constexpr const char* native_names[] = {"cuda_masked", "cuda_float4", "thrust"};

/// Launches `impl` of `e` on the default stream: out[i] = e(in[0][i], .., in[k][i]); T is float
/// (f64 false) or double. The tutorial's kernel (cuda_masked) is one element per thread, 1024
/// threads; cuda_float4 does 16-byte vectors, four per thread in flight.
void run_native(native impl, expr e, bool f64, const void* const* in, void* out, std::size_t n);

/// Black-Scholes call and put prices of n options (examples/black_scholes.hpp's formula) by a
/// hand-written kernel in the shape of the CUDA samples' one (nvcc -O3, expf, logf, IEEE division
/// and square root), on the default stream; every pointer 8-byte aligned.
void run_black_scholes(const float* s, const float* x, const float* t, float* call, float* put, std::size_t n, float r,
                       float v);

/// Calls of the transcendental functions per option.
struct transcendental_calls {
  std::size_t log, exp, sqrt;
};
/// run_black_scholes's: logf and sqrtf once, expf three times (of -r t, and in each CND).
inline constexpr transcendental_calls black_scholes_hand_calls{1, 3, 1};

/// *out = sum of x[i] * y[i] over n float32, by CUB's DeviceReduce::Sum over a transform
/// iterator (its temporary storage allocated once, outside the timed calls after the first).
void run_cub_dot(const float* x, const float* y, float* out, std::size_t n);

/// cudaMemcpyAsync device to device: the copy ceiling.
void run_memcpy(void* dst, const void* src, std::size_t bytes);

/// The last CUDA runtime error as text, or an empty string.
const char* native_error();

}  // namespace bench
