// The interpreter kernel's source for each family, generated from the op table.
#pragma once

#include "interpreter/program.hpp"

#include <string>

namespace jet::detail {

/// Whether the interpreter of family f has op `op` (from the op table: every op with a CUDA
/// spelling but random numbers, and floating ones only in floating families; in a complex family,
/// every op on complex operands and the core ones on real operands).
bool interpretable_op(op_id op, const interpreter_family& f);
/// Whether a complex family f computes op on complex operands, and whether f computes it on
/// operands of f's real type (a real family on its compute type): the op table's domain column.
bool takes_complex(op_id op, const interpreter_family& f);
bool takes_real(op_id op, const interpreter_family& f);
/// Whether family f's kernel calls op's function rather than inlining it into each element: the
/// math-only ops, and in a complex family every op of op_cost 8 and up.
bool interpreter_calls(op_id op, const interpreter_family& f);
/// Whether op is held by the math families only: a long op (op_cost 8 and up: the CUDA math
/// functions beyond the ones most formulas use, log, sin, cos and pow; fmod, remainder,
/// floor_divide, power, gcd and lcm with their loops and 64-bit divisions), which the core families
/// would inline into each of their unrolled elements. The math families call each such op instead,
/// one body for NVRTC to compile: inlined like the core's, the float32 kernel's one-time compile
/// would take 2.5 times as long. (An integer expression with such an op compiles: there is no
/// integer math family.)
bool interpreter_math_only(op_id op);
/// Whether op is one of the special functions (erf and its kin, normcdf, the gamma and Bessel
/// functions), which a family of their own holds apart from the other long ones: each family's
/// one-time compile stays within 10 s on an H200's host (benchmarks/RESULTS.md).
bool interpreter_special(op_id op);
/// Whether the interpreter of family f loads and stores elements of dtype t.
bool interpreter_stores(const interpreter_family& f, dtype t);

/// The elements per thread and register family f's kernel is built and launched with: f.elements,
/// or JET_INTERPRETER_ELEMENTS where that is a multiple of f.group up to 16: a tuning knob for
/// benchmark runs, read once. Fewer elements hold fewer machine registers (float32 on sm_90: 56 at
/// 8 against 96 at 16), so more warps per multiprocessor, for more dispatch per element.
unsigned interpreter_elements(const interpreter_family& f);
/// Bytes of a block's shared memory that one register of family f takes.
inline unsigned register_bytes(const interpreter_family& f) {
  return interpreter_threads * interpreter_elements(f) * static_cast<unsigned>(size_of(f.compute));
}

/// The interpreter kernel's source for one family, generated from the op table.
std::string interpreter_source(const interpreter_family& f);

}  // namespace jet::detail
