// The environment, read in one place: every variable jet reads (README, "Environment"), each read
// once per process when it is first needed, parsed strictly. A value that does not parse is one
// warning naming the variable, the value and what is accepted; jet then uses the default. Also
// jet's two ways of writing to stderr: warnings, and the JET_LOG=info log. Depends on nothing else
// of jet's core.
#pragma once

#include <jet/runtime.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace jet::detail {

/// "jet: warning: <message>" on stderr.
void print_warning(const std::string& message);

/// JET_LOG=info: "jet: <message>" on stderr; nothing at the default level.
void log_info(const std::string& message);

// --- Parsers: the whole text, exactly, or nothing (no signs, spaces or suffixes). Words are
// matched ignoring case.

/// Decimal digits of a number that fits in 64 bits.
std::optional<std::uint64_t> parse_decimal(std::string_view text);

struct kernel_shape_choice {
  unsigned threads, ilp;
  unsigned vec;  // the widest vector in elements; 0: as wide as 16 bytes allow
};
/// JET_KERNEL_SHAPE: "<threads>,<ilp>[,<vec>]", threads a multiple of 32 from 32 to 1024, ilp 1
/// to 16, vec 1, 2, 4, 8 or 16.
std::optional<kernel_shape_choice> parse_kernel_shape(std::string_view text);
/// JET_INTERPRETER_ELEMENTS: 1 to 16.
std::optional<unsigned> parse_interpreter_elements(std::string_view text);
/// JET_JIT: sync, async or interpret.
std::optional<jit_policy> parse_jit_policy(std::string_view text);
/// JET_MEMORY_POOL: on (true) or off (false).
std::optional<bool> parse_on_off(std::string_view text);
enum class log_level { warning, info };
/// JET_LOG: warning or info.
std::optional<log_level> parse_log_level(std::string_view text);

// --- Settings: unset or empty is the default (but JET_CACHE_DIR, where empty turns the disk
// cache off). Variables that name a path are read with secure_getenv: a setuid or setgid program
// ignores them.

/// JET_KERNEL_SHAPE, when set to a valid shape.
std::optional<kernel_shape_choice> kernel_shape_setting();
/// JET_INTERPRETER_ELEMENTS, when set to a valid count.
std::optional<unsigned> interpreter_elements_setting();
/// JET_OUTLINE_COST, when set to a number: the formula cost above which a kernel compiles its
/// formula once rather than inlining it (codegen/kernel_parts.hpp, outline_cost).
std::optional<std::uint64_t> outline_cost_setting();
/// JET_JIT; async by default.
jit_policy jit_policy_setting();
/// JET_MEMORY_POOL; on by default.
bool memory_pool_setting();
/// JET_FFT_CALLBACKS; off by default. On: an FFT's operand expression is computed in cuFFT's
/// loads (README, "FFT", says why that is not the default).
bool fft_callbacks_setting();
/// JET_LOG; warning by default.
log_level log_level_setting();
/// JET_CACHE_MAX_BYTES; 1 GiB by default. 0 stores nothing.
std::uint64_t cache_max_bytes_setting();
/// The disk cache's directory: $JET_CACHE_DIR, else $XDG_CACHE_HOME/jet (when absolute), else
/// $HOME/.cache/jet; empty for no disk cache (JET_CACHE_DIR set empty, or none of them set).
const std::filesystem::path& cache_directory_setting();
/// JET_CUDA_DRIVER, the driver library to load; libcuda.so.1 by default.
const std::string& cuda_driver_setting();

}  // namespace jet::detail
