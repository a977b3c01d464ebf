// An expression's kernel description encoded as the interpreter's program: its family, loads,
// ops with registers allocated by liveness, and stores; or why the interpreter cannot run it.
#pragma once

#include "interpreter/program.hpp"

#include <cstdint>
#include <string>

namespace jet::detail {

/// An expression as the interpreter runs it, or why it cannot.
struct encoding {
  const interpreter_family* family = nullptr;  // null: not interpretable, see `reason`
  std::string reason;
  program code{};  // pointers and n are the launch's to fill in
  unsigned input_count = 0, output_count = 0;
  unsigned registers = 0;  // registers the program uses (each a block's shared memory slice)
};

/// Encodes `d` for the interpreter: its family, the loads of its distinct inputs (input slot k is
/// distinct input unique_of[k]; null: every slot its own), the ops in post-order with registers
/// allocated by liveness, the scalar operands converted to the compute type as the fused kernel
/// converts them (equal values in one slot), and the stores. `scalars` may be null (then scalar
/// values are left 0, each in its own slot). The repeats whose bit is set in `shared` (the launch
/// variant's) are computed once, as the fused kernel computes them. The loads come first, as in
/// the fused kernels, when the registers allow, else each before its first use.
encoding encode_for_interpreter(const kernel_desc& d, const scalar_value* scalars, const std::uint8_t* unique_of,
                                std::uint64_t shared = 0);

}  // namespace jet::detail
