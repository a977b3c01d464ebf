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

/// *out = sum of x[i] * y[i] over n float32, by CUB's DeviceReduce::Sum over a transform
/// iterator (its temporary storage allocated once, outside the timed calls after the first).
void run_cub_dot(const float* x, const float* y, float* out, std::size_t n);

/// cudaMemcpyAsync device to device: the copy ceiling.
void run_memcpy(void* dst, const void* src, std::size_t bytes);

/// The last CUDA runtime error as text, or an empty string.
const char* native_error();

}  // namespace bench
