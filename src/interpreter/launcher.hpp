// The interpreter's launch: its kernels loaded (from the disk cache, or compiled on a background
// thread), a program launched, and the jit policy that decides when the interpreter runs.
#pragma once

#include "interpreter/encoder.hpp"

#include <jet/detail/core.hpp>

#include <cstdint>

namespace jet::detail {

/// Whether the interpreter kernel of family f is loaded or the disk cache holds it (then it is
/// loaded now); if not, the first such call starts compiling it on a background thread. (The
/// interpreter's launch loads it, or waits for it, itself.)
bool interpreter_ready(const interpreter_family& f);

/// Launches the interpreter on `e` (its pointers, n, alignment and prefetch filled in here); JET_LOG=info logs it.
void launch_interpreter(encoding& e, void* const* outputs, const void* const* inputs, std::uint64_t n);

/// The policy in force (JET_JIT at start-up, then jet::set_jit_policy).
jit_policy current_jit_policy();

}  // namespace jet::detail
