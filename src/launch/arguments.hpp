// A fused kernel's parameters, packed in the order the code generator declares them.
#pragma once

#include "launch/planner.hpp"

#include <jet/detail/core.hpp>

#include <cstddef>

namespace jet::detail {

/// The parameters of one launch and the values they point to that are not the plan's (its
/// strides and extents) or the evaluation's (its scalars): params point into this object, which
/// is therefore filled in place and never copied.
struct kernel_arguments {
  void* params[2 * max_outputs + 2 * max_inputs + max_scalars + 6];
  unsigned count = 0;
  void* outputs[max_outputs];
  const void* inputs[max_inputs];
  unsigned long long n;

  kernel_arguments() = default;
  kernel_arguments(const kernel_arguments&) = delete;
  kernel_arguments& operator=(const kernel_arguments&) = delete;
};

/// Appends the outputs of an elementwise kernel and their strides (the parameters before the inputs').
void pack_outputs(const evaluation& e, const plan& p, kernel_arguments& a);

/// Appends the parameters after the outputs: distinct inputs and their strides, the scalars the
/// kernel takes, n, and the index space's extents where the kernel uses them.
void pack_inputs(const evaluation& e, const plan& p, std::size_t n, kernel_arguments& a);

}  // namespace jet::detail
