// Counter-based random numbers (Philox4x32-10): a value per element that depends only on the seed
// and the element's index, so results are reproducible and fuse into any expression.
//   z = x + 0.1f * jet::random_normal(x.shape(), 42);   // one kernel, no random array in memory
#pragma once

#include <jet/ops.hpp>

#include <cstdint>

namespace jet {

/// The index of each element of `s` in C order (int64), an operand that reads no memory.
inline counter counter_of(const jet::shape& s) { return counter{s}; }

/// Uniform floats in (0, 1], one per element of shape s, reproducible from the seed (a kernel
/// argument: a new seed never recompiles).
inline auto random_uniform(const jet::shape& s, std::int64_t seed) { return philox_uniform(counter_of(s), seed); }

/// Standard normal floats (Box-Muller over two uniforms per element), reproducible from the seed.
inline auto random_normal(const jet::shape& s, std::int64_t seed) {
  auto u1 = philox_uniform(counter_of(s) * 2, seed);
  auto u2 = philox_uniform(counter_of(s) * 2 + 1, seed);
  return sqrt(-2.0f * log(u1)) * cos(6.2831853071795864f * u2);
}

}  // namespace jet
