// The one way jet gets a cubin, for evaluations and jet::compile alike: the process's disk cache
// (chosen by the environment or set_disk_cache*), else NVRTC, and the result stored.
#pragma once

#include "compile/compiler.hpp"
#include "compile/disk_cache.hpp"

#include <memory>
#include <optional>
#include <string>

namespace jet::detail {

/// What determines a cubin: the generated source, NVRTC's version and options, the architecture
/// and jet's code-generator version.
cache_key cache_key_for(const std::string& source, int arch, bool fast_compile = false);

/// The process's disk cache, as the environment or the last set_disk_cache* call chose it;
/// nullptr when it is off.
std::shared_ptr<const disk_cache> active_disk_cache();

/// A cubin and where it came from.
struct cached_cubin {
  std::string image;
  double compile_ms;  // 0 for a disk hit
  bool from_disk;
};

/// The cubin for `source` on sm_<arch>: from the active disk cache when it holds a valid entry,
/// else compiled with NVRTC (compile_to_cubin, which throws compile_error naming `expression`)
/// and stored. Threads asking at once for the same cubin share one load or compile. Counts disk
/// hits, disk writes and compiles in jet::stats(); JET_LOG=info logs each compile and disk hit.
/// `origin` is passed to compile_to_cubin, for its reports.
cached_cubin cached_compile(const std::string& source, int arch, const std::string& expression,
                            kernel_origin origin = {});

/// The cubin for `source` on sm_<arch> when the active disk cache holds a valid entry for it
/// (counted and logged as a disk hit), else nothing: never compiles.
std::optional<cached_cubin> cached_on_disk(const std::string& source, int arch, const std::string& expression,
                                           bool fast_compile = false);

/// Constructs the process-wide state cached_compile uses, so that an object constructed after
/// this call (the background compiler, whose threads compile until it is destroyed at exit) is
/// destroyed before that state.
void prepare_compiles();

}  // namespace jet::detail
