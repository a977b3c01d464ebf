// The peers jet is measured against, written the way a CUDA programmer would.
#include "native_peers.hpp"

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/transform.h>

namespace bench {
namespace {

template <class T> __device__ T sigmoid(T v) { return T(1) / (T(1) + exp(-v)); }

// Each expression as a functor of up to four operands.
template <class T, expr E> struct fn;
template <class T> struct fn<T, expr::add> {
  __host__ __device__ T operator()(T x, T y, T = 0, T = 0) const { return x + y; }
};
template <class T> struct fn<T, expr::relu_add> {
  __host__ __device__ T operator()(T x, T y, T = 0, T = 0) const { return fmax(x + y, T(0)); }
};
template <class T> struct fn<T, expr::axpbypc> {
  __host__ __device__ T operator()(T x, T y, T = 0, T = 0) const { return T(a) * x + T(b) * y + T(c); }
};
template <class T> struct fn<T, expr::chain> {
  __device__ T operator()(T x, T y, T = 0, T = 0) const { return tanh(T(1.5) * x + y) * sigmoid(x - y) + x * y; }
};
template <class T> struct fn<T, expr::four> {
  __host__ __device__ T operator()(T x, T y, T z, T w) const { return x * y + z * w; }
};

template <class T, expr E, int N> __device__ T apply_at(const T* const* in, std::size_t i) {
  if constexpr (N == 2)
    return fn<T, E>{}(in[0][i], in[1][i]);
  else
    return fn<T, E>{}(in[0][i], in[1][i], in[2][i], in[3][i]);
}

struct inputs {
  const void* p[4];
};

template <class T, expr E, int N> __global__ void masked(inputs in, T* out, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const T* ptr[4] = {(const T*)in.p[0], (const T*)in.p[1], (const T*)in.p[2], (const T*)in.p[3]};
  if (i < n) out[i] = apply_at<T, E, N>(ptr, i);
}

template <class T> struct alignas(16) vec16 { T v[16 / sizeof(T)]; };

template <class T, expr E, int N> __global__ void __launch_bounds__(256) vectorized(inputs in, T* out, std::size_t n) {
  constexpr int V = 16 / sizeof(T), ILP = 4, THREADS = 256;
  const std::size_t base = std::size_t(blockIdx.x) * THREADS * ILP * V;
  const T* ptr[4] = {(const T*)in.p[0], (const T*)in.p[1], (const T*)in.p[2], (const T*)in.p[3]};
  if (base + THREADS * ILP * V <= n) {
    vec16<T> v[N][ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k)
#pragma unroll
      for (int j = 0; j < N; ++j) v[j][k] = *(const vec16<T>*)(ptr[j] + base + (k * THREADS + threadIdx.x) * V);
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      vec16<T> r;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        if constexpr (N == 2)
          r.v[e] = fn<T, E>{}(v[0][k].v[e], v[1][k].v[e]);
        else
          r.v[e] = fn<T, E>{}(v[0][k].v[e], v[1][k].v[e], v[2][k].v[e], v[3][k].v[e]);
      }
      *(vec16<T>*)(out + base + (k * THREADS + threadIdx.x) * V) = r;
    }
  } else {
    for (std::size_t i = base + threadIdx.x; i < n; i += THREADS) out[i] = apply_at<T, E, N>(ptr, i);
  }
}

template <class T, expr E> struct four_of_tuple {
  template <class Tuple> __device__ T operator()(const Tuple& t) const {
    return fn<T, E>{}(thrust::get<0>(t), thrust::get<1>(t), thrust::get<2>(t), thrust::get<3>(t));
  }
};

template <class T, expr E> struct two {
  __device__ T operator()(T x, T y) const { return fn<T, E>{}(x, y); }
};

template <class T, expr E> void launch(native impl, const void* const* in_, T* out, std::size_t n) {
  constexpr int N = input_count[static_cast<int>(E)];
  inputs in{{in_[0], in_[1], N > 2 ? in_[2] : nullptr, N > 2 ? in_[3] : nullptr}};
  const T* x = (const T*)in_[0];
  const T* y = (const T*)in_[1];
  switch (impl) {
    case native::cuda_masked: masked<T, E, N><<<(n + 1023) / 1024, 1024>>>(in, out, n); break;
    case native::cuda_float4: {
      const std::size_t tile = 256 * 4 * (16 / sizeof(T));
      vectorized<T, E, N><<<(n + tile - 1) / tile, 256>>>(in, out, n);
      break;
    }
    case native::thrust:
      if constexpr (N == 2) {
        thrust::transform(thrust::device, x, x + n, y, out, two<T, E>{});
      } else {
        auto first = thrust::make_zip_iterator(x, y, (const T*)in_[2], (const T*)in_[3]);
        thrust::transform(thrust::device, first, first + n, out, four_of_tuple<T, E>{});
      }
      break;
  }
}

template <class T> void dispatch(native impl, expr e, const void* const* in, void* out, std::size_t n) {
  switch (e) {
    case expr::add: return launch<T, expr::add>(impl, in, (T*)out, n);
    case expr::relu_add: return launch<T, expr::relu_add>(impl, in, (T*)out, n);
    case expr::axpbypc: return launch<T, expr::axpbypc>(impl, in, (T*)out, n);
    case expr::chain: return launch<T, expr::chain>(impl, in, (T*)out, n);
    case expr::four: return launch<T, expr::four>(impl, in, (T*)out, n);
  }
}

}  // namespace

void run_native(native impl, expr e, bool f64, const void* const* in, void* out, std::size_t n) {
  if (f64)
    dispatch<double>(impl, e, in, out, n);
  else
    dispatch<float>(impl, e, in, out, n);
}

namespace {

// The CUDA samples' BlackScholes kernel (BlackScholes_kernel.cuh), with expf, logf, sqrtf and IEEE
// division where the sample takes fast intrinsics (__expf, __logf, __fdividef): the maths of
// examples/black_scholes.hpp, operation for operation.
__device__ inline float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
  const float rsqrt2pi = 0.39894228040143267793994605993438f;
  const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  const float tail = rsqrt2pi * expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? 1.0f - tail : tail;
}

__device__ inline void option_prices(float& call, float& put, float s, float x, float t, float r, float v) {
  const float sqrt_t = sqrtf(t);
  const float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float cnd_d1 = cnd(d1), cnd_d2 = cnd(d2);
  const float discounted_strike = x * expf(-r * t);
  call = s * cnd_d1 - discounted_strike * cnd_d2;
  put = discounted_strike * (1.0f - cnd_d2) - s * (1.0f - cnd_d1);
}

// As the sample launches it: two options per thread through float2 accesses, 128 threads per
// block; an odd last option alone.
__global__ void __launch_bounds__(128)
    black_scholes_kernel(const float* __restrict__ s, const float* __restrict__ x, const float* __restrict__ t,
                         float* __restrict__ call, float* __restrict__ put, float r, float v, std::size_t n) {
  const std::size_t i = 2 * (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x);
  if (i + 1 < n) {
    const float2 s2 = *(const float2*)(s + i), x2 = *(const float2*)(x + i), t2 = *(const float2*)(t + i);
    float2 c, p;
    option_prices(c.x, p.x, s2.x, x2.x, t2.x, r, v);
    option_prices(c.y, p.y, s2.y, x2.y, t2.y, r, v);
    *(float2*)(call + i) = c;
    *(float2*)(put + i) = p;
  } else if (i < n) {
    option_prices(call[i], put[i], s[i], x[i], t[i], r, v);
  }
}

}  // namespace

void run_black_scholes(const float* s, const float* x, const float* t, float* call, float* put, std::size_t n, float r,
                       float v) {
  const std::size_t pairs = (n + 1) / 2;
  black_scholes_kernel<<<(pairs + 127) / 128, 128>>>(s, x, t, call, put, r, v, n);
}

namespace {
struct product_at {
  const float* x;
  const float* y;
  __device__ float operator()(std::size_t i) const { return x[i] * y[i]; }
};
}  // namespace

void run_cub_dot(const float* x, const float* y, float* out, std::size_t n) {
  static void* temporary = nullptr;
  static std::size_t temporary_bytes = 0;
  auto products = thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0), product_at{x, y});
  std::size_t bytes = 0;
  cub::DeviceReduce::Sum(nullptr, bytes, products, out, n);
  if (bytes > temporary_bytes) {
    cudaFree(temporary);
    cudaMalloc(&temporary, bytes);
    temporary_bytes = bytes;
  }
  cub::DeviceReduce::Sum(temporary, bytes, products, out, n);
}

void run_memcpy(void* dst, const void* src, std::size_t bytes) {
  cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
}

const char* native_error() {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? "" : cudaGetErrorString(e);
}

}  // namespace bench
