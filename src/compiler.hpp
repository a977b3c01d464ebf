// NVRTC: CUDA source → cubin for one architecture. Needs no GPU.
#pragma once

#include <string>
#include <vector>

namespace jet::detail {

struct cubin {
  std::string image;
  double compile_ms;
};

/// NVRTC's options for sm_<arch>. The disk cache's key holds them, so a cubin compiled with other
/// options is never loaded.
std::vector<std::string> compile_options(int arch);

/// The version of the NVRTC library loaded, as "13.0".
std::string nvrtc_version();

/// Compiles `source` for sm_<arch>. On failure throws compile_error carrying the full log, the
/// source with line numbers and `expression` (the C++ expression it came from).
cubin compile_to_cubin(const std::string& source, int arch, const std::string& expression);

/// Makes the process, when it exits, wait first for the compiles still running and start no new
/// one (NVRTC's state dies at exit). Called on each thread that starts a compile, before it starts
/// one on another thread; cheap after the first call.
void wait_for_compiles_at_exit();

/// True once the process exits: a compile refused then is no error worth reporting.
bool process_exiting();

}  // namespace jet::detail
