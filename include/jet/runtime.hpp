// The public runtime queries and settings: device, statistics, synchronization, the jit policy,
// the disk cache. The core that the expression templates call into is jet/detail/core.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace jet {

/// A GPU architecture as NVRTC names it: arch{90} is sm_90.
struct arch {
  int value;
};

/// What jet knows about the device it runs on.
struct device_info {
  int ordinal;
  std::string name;
  jet::arch arch;
  int multiprocessors;
};

/// The device jet evaluates on.
inline constexpr int device_ordinal = 0;

/// The device jet evaluates on (device 0). Throws no_device when there is no driver or device.
device_info current_device();

/// Whether a CUDA driver and device are usable; on false, `reason` says why.
bool device_available(std::string* reason = nullptr);

/// Waits for all work queued on the device, on every stream.
void synchronize();

/// Waits for all work, then hands the device memory jet's pool keeps for reuse back to the system
/// (for other allocators in the process; jet does this itself before reporting out_of_memory).
void release_cached_memory();

/// Counters over the life of the process.
struct statistics {
  std::uint64_t launches;             // kernels launched by evaluations
  std::uint64_t memory_hits;          // evaluations whose kernel came from the in-memory cache
  std::uint64_t disk_hits;            // kernels loaded from the disk cache instead of compiled
  std::uint64_t disk_writes;          // kernels stored into the disk cache
  std::uint64_t compiles;             // kernels compiled by NVRTC, for evaluations and jet::compile
  double compile_ms;                  // time spent in those compiles
  std::uint64_t interpreted;          // of the launches, those of the interpreter (jit_policy)
  std::uint64_t background_failures;  // fused kernels that failed to compile in the background
};
statistics stats();

/// How an evaluation of a never-seen expression gets its kernel (README, "First results without
/// waiting for the compiler"):
///   sync       compile the fused kernel with NVRTC (or load it from the disk cache) and wait;
///   async      run the precompiled interpreter kernel at once while the fused kernel compiles on a
///              background thread, then switch to it (the default);
///   interpret  run the interpreter and never compile, where it can express the evaluation.
/// An evaluation the interpreter cannot express (user functions, random numbers, counters, strided
/// or broadcast operands, mixed compute types, too many registers) compiles synchronously under
/// every policy; JET_LOG=info says why. JET_JIT=sync|async|interpret chooses at start-up.
enum class jit_policy { sync, async, interpret };
void set_jit_policy(jit_policy policy);
jit_policy get_jit_policy();

/// The on-disk kernel cache keeps compiled kernels across processes. It is on unless turned off,
/// in $JET_CACHE_DIR, else $XDG_CACHE_HOME/jet, else ~/.cache/jet; `JET_CACHE_DIR=` (empty) turns
/// it off. A directory that others could write to is refused: jet then caches in memory only.
/// set_disk_cache(false) turns it off; true goes back to what the environment says.
void set_disk_cache(bool enabled);
/// Uses `directory` for the disk cache from now on; an empty one turns it off.
void set_disk_cache_directory(const std::string& directory);
/// The directory in use, or empty when the disk cache is off or its directory was refused.
std::string disk_cache_directory();

/// A kernel compiled without touching a device (jet::compile).
struct compiled_kernel {
  jet::arch arch;
  std::string source;
  std::string cubin;
  double compile_ms;     // 0 when the cubin came from the disk cache
  bool from_disk_cache;  // loaded from the disk cache rather than compiled
};

}  // namespace jet
