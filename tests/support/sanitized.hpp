// Built with sanitizers (the asan preset defines JET_TESTS_SANITIZED), the tests that compile many
// kernels with NVRTC compile every nvrtc_stride-th: NVRTC is not instrumented, but ASan's malloc
// makes it about 6 times slower, and the plain build compiles them all. The sources are still
// generated, by the instrumented host code, and the snapshot test generates every one.
#pragma once

#include <cstddef>

namespace jet::test {

#ifdef JET_TESTS_SANITIZED
inline constexpr std::size_t nvrtc_stride = 4;
#else
inline constexpr std::size_t nvrtc_stride = 1;
#endif

}  // namespace jet::test
