// NVRTC: CUDA source → cubin for one architecture. Needs no GPU.
#pragma once

#include <string>

namespace jet::detail {

struct cubin {
  std::string image;
  double compile_ms;
};

/// Compiles `source` for sm_<arch>. On failure throws compile_error carrying the full log, the
/// source with line numbers and `expression` (the C++ expression it came from).
cubin compile_to_cubin(const std::string& source, int arch, const std::string& expression);

}  // namespace jet::detail
