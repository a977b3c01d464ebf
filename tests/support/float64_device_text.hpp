// jet's float64 device functions (ops.def's helper blocks, cut out by tests/CMakeLists.txt: the
// double-double inverse functions, normcdf and the large-argument Bessel functions) compiled on
// the host in namespace device_text, with the host's libm where the text calls CUDA's functions.
// Compile with -ffp-contract=off: NVRTC's --fmad=false contracts nothing either.
#pragma once

#include <cmath>
#include <numbers>

namespace device_text {
using std::isinf;
inline void sincos(double x, double* s, double* c) { *s = std::sin(x), *c = std::cos(x); }
inline double normcdf(double x) { return std::erfc(-x / std::numbers::sqrt2) / 2; }
#define __device__
#define __forceinline__ inline
#include "float64_inverse_functions.inc"
#include "float64_special_functions.inc"
#undef __device__
#undef __forceinline__
}  // namespace device_text
