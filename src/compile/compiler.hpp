// NVRTC: CUDA source → cubin for one architecture. Needs no GPU.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace jet::detail {

struct cubin {
  std::string image;
  double compile_ms;
};

/// NVRTC's options for sm_<arch>. The disk cache's key holds them, so a cubin compiled with other
/// options is never loaded.
std::vector<std::string> compile_options(int arch, bool fast_compile = false);

/// The version of the NVRTC library loaded, as "13.0".
std::string nvrtc_version();
/// NVRTC's major version (13 for CUDA 13).
int nvrtc_major_version();

/// What a kernel is made of, for the reports of its compile: the expression's nodes and user
/// functions (JET_FUNCTION), none for jet's own kernels such as the interpreter.
struct kernel_origin {
  std::size_t nodes = 0;
  std::size_t user_functions = 0;
  // Compiled for compile time rather than run time (NVRTC's --Ofast-compile=mid, from NVRTC 13):
  // the interpreter's math families, whose long functions NVRTC otherwise optimizes for seconds.
  bool fast_compile = false;
};

/// Compiles `source` for sm_<arch>. On failure throws compile_error carrying the full log, the
/// source with line numbers and `expression` (the C++ expression it came from). Warnings that
/// mean undefined behaviour (a missing return, a variable used before it is set, a constant
/// shift or division out of range) are errors; other warnings about a kernel with user functions
/// are printed on stderr. JET_LOG=info logs the start of each compile with its size; a compile of
/// an expression slower than slow_compile_seconds is reported on stderr, once per process.
cubin compile_to_cubin(const std::string& source, int arch, const std::string& expression, kernel_origin origin = {});

/// Compiles `source` for compute_<arch> into LTO-IR (`image`), which a later link finishes: what
/// cuFFT takes for a callback. Errors and reports as compile_to_cubin's.
cubin compile_to_lto_ir(const std::string& source, int arch, const std::string& expression, kernel_origin origin = {});

/// How long an expression's compile may take before jet says so on stderr (once per process).
inline constexpr double slow_compile_seconds = 2.0;

/// For tests: report compiles slower than `seconds` (negative: slow_compile_seconds), and report
/// the next one even if one was reported already.
void set_slow_compile_report(double seconds);

/// Makes the process, when it exits, wait first for the compiles still running and start no new
/// one (NVRTC's state dies at exit). Called on each thread that starts a compile, before it starts
/// one on another thread; cheap after the first call.
void wait_for_compiles_at_exit();

/// True once the process exits: a compile refused then is no error worth reporting.
bool process_exiting();

}  // namespace jet::detail
