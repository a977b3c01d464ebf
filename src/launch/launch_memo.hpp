// The last compiled launch of each kernel slot, remembered so that evaluating the same expression
// over the same operands again (a time step, a loop) skips planning: the plan depends only on the
// operands' addresses, layouts and scalar bytes, the device and the jit policy, and the memo
// compares those, bytes to bytes, with no hashing.
#pragma once

#include "codegen/geometry.hpp"
#include "launch/planner.hpp"

#include <jet/detail/core.hpp>

#include <cuda.h>

namespace jet::detail {

/// Launches e as its slot's remembered launch, when e has the very operands that launch had:
/// the same input and output pointers, the same layout objects holding equal layouts, the same
/// scalar bytes, on the same device under the same jit policy. Whether it launched.
bool launch_again(const evaluation& e);

/// Remembers the compiled launch of e as planned by p (f over grid g) for launch_again. A slot
/// whose operands name more layout objects than the memo keeps is not remembered.
void remember_launch(const evaluation& e, const plan& p, CUfunction f, const launch_grid& g);

}  // namespace jet::detail
