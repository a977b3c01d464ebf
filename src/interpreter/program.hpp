// The interpreter's machine: one precompiled kernel per compute-type family that evaluates any elementwise
// expression of that family from an instruction list passed by value as its kernel parameter, so
// that a never-seen expression runs at once while NVRTC compiles its fused kernel in the
// background (the jit policy, README "First results without waiting for the compiler").
//
// Its speed comes from doing little per instruction and amortizing that over many elements:
// - an accumulator machine: every op computes in place in the accumulator from its first operand
//   there, so a chain of ops (the common case) moves no data; only a value read again later is
//   saved to a register, and an op's first operand not in the accumulator is fetched into it;
// - values: the accumulator, a vector of the thread's `elements` values (64 bytes of the compute
//   type) in machine registers, and up to `interpreter_registers` registers of as many values, the
//   thread's own slices of the block's shared memory (as many as the program uses): an operand's
//   register number is an address, not a dispatch, and machine registers hold only the
//   accumulator and the operands of the instruction at hand, so that a thread can take many
//   elements (its instruction's dispatch amortized over more) and an SM many threads. (The
//   registers were machine registers once, reached through switches over register numbers: twice
//   the dispatch, 128 machine registers, and 0.57 of the compiled kernel's bandwidth at 8 ops
//   where this runs at 0.92.) The CPU tests check that ptxas reports no spill, and no stack but
//   sin's and cos's reduction of huge arguments;
// - every thread runs the same instruction stream, so each switch is warp-uniform: an instruction
//   costs its dispatch once per thread and `elements` unrolled operations;
// - operands are registers or scalars read straight from the program (no instruction moves a
//   scalar into a register); a binary op with a scalar second operand has its own case;
// - on a full tile of aligned operands each thread reads and writes 16-byte vectors (`group`
//   elements), the block's threads on consecutive vectors; on the last tile, or when an operand is
//   misaligned, elements a block's width apart one at a time, masked by n;
// - each block first asks L2 for the inputs of the tile `prefetch_distance` tiles ahead
//   (prefetches hold no registers), so that the block which later runs that tile finds them there:
//   more bytes in flight than the blocks' own loads keep.
#pragma once

#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/core.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace jet::detail {

/// The types an interpreter kernel computes in: every node's value, and every operand as an op
/// sees it, is of the family's compute type or bool (held as 0 or 1 of the compute type).
/// Operands are stored as a dtype that computes in it, or bool; outputs likewise.
/// A core family holds all ops but the long math functions (interpreter_math_only); a math family
/// adds those but the special functions (interpreter_special), a special family adds these alone:
/// an expression runs on the first family of its compute type that has all its ops.
/// A complex family computes in complex values and in their parts' real type: a real value (or a
/// bool) is held as a complex one with imaginary part 0, which is also that value as a complex
/// operand, and an op on real operands computes on the real parts. It holds the ops that take
/// complex operands, all of them, and the core ones on real operands.
struct interpreter_family {
  std::string_view name;
  dtype compute;
  unsigned elements;  // per thread and register: 64 bytes of the compute type
  unsigned group;     // elements per vector load or store: 16 bytes of the compute type
  bool math = false;
  bool special = false;  // a math family of the special functions (interpreter_special) alone
};
inline constexpr interpreter_family interpreter_families[] = {
    {"float32", dtype::float32, 16, 4},  // float32, float16 and bfloat16 storage
    {"float64", dtype::float64, 8, 2},
    {"int32", dtype::int32, 16, 4},
    {"int64", dtype::int64, 8, 2},
    {"float32 math", dtype::float32, 16, 4, true},
    {"float32 special", dtype::float32, 16, 4, true, true},
    {"float64 math", dtype::float64, 8, 2, true},
    {"float64 special", dtype::float64, 8, 2, true, true},
    {"complex64", dtype::complex64, 8, 2},
    {"complex128", dtype::complex128, 4, 1},
};

inline constexpr unsigned interpreter_threads = 128;
inline constexpr unsigned interpreter_registers = 16;
inline constexpr unsigned interpreter_inputs = 16;
inline constexpr unsigned interpreter_outputs = max_outputs;
inline constexpr unsigned interpreter_scalars = 32;
inline constexpr unsigned interpreter_code = 256;

/// One instruction. `op` is
/// - an op_id of the table: the accumulator becomes the op of the accumulator and operands b, c (a
///   cast converts it to `type` and back); op | scalar_second_op: a binary op whose b is a scalar;
/// - op_id::input: load inputs a and b, stored as `type`, into registers dst and c: two loads in
///   flight at once (one input: a == b and dst == c);
/// - fetch_op: operand a into the accumulator; save_op: the accumulator into register dst;
/// - store_op: operand a (or the accumulator) into output dst, stored as `type`.
/// An operand is a register, interpreter_scalar_operand + k for scalar k (of the compute type), or
/// interpreter_accumulator (a store's only); an unused one is interpreter_no_operand.
struct instruction {
  std::uint8_t op, dst, a, b, c, type;
};
inline constexpr std::uint8_t fetch_op = 253, save_op = 254, store_op = 255;
inline constexpr std::uint8_t scalar_second_op = 128;
inline constexpr std::uint8_t interpreter_accumulator = interpreter_registers;
inline constexpr std::uint8_t interpreter_scalar_operand = 128;
inline constexpr std::uint8_t interpreter_no_operand = 255;
static_assert(interpreter_accumulator < interpreter_scalar_operand &&
              interpreter_scalar_operand + interpreter_scalars <= interpreter_no_operand);
static_assert(static_cast<unsigned>(op_id::user) < scalar_second_op &&
              static_cast<unsigned>(op_id::user) + scalar_second_op < fetch_op);

/// The interpreter kernel's one parameter (byte for byte the jet_program of its source).
struct program {
  std::uint64_t n;
  const void* inputs[interpreter_inputs];
  void* outputs[interpreter_outputs];
  std::uint64_t scalars[interpreter_scalars];   // each scalar's value in the compute type, its bytes
  std::uint32_t count;                          // instructions
  std::uint32_t aligned;                        // every operand is aligned for the vector loads
  std::uint32_t prefetch_distance;              // in tiles
  std::uint8_t input_size[interpreter_inputs];  // bytes of an element of each input; 0 past the last
  instruction code[interpreter_code];
};
static_assert(sizeof(program) <= 4096, "jet: the interpreter's program must fit the 4 KiB of kernel parameters");
// The device's jet_program has these members in this order: natural alignment, no padding.
static_assert(offsetof(program, scalars) == 8 + 8 * (interpreter_inputs + interpreter_outputs) &&
              offsetof(program, code) ==
                  offsetof(program, scalars) + 8 * interpreter_scalars + 12 + interpreter_inputs);

inline constexpr const char* interpreter_kernel_name = "jet_interpret";

}  // namespace jet::detail
