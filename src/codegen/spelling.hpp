// How jet spells things in CUDA and in C++: the op table's and the reductions' spellings, the
// CUDA types of stored and computed values, the 16-bit floats' conversions, and the expression
// written out for messages. Shared by every kernel source jet writes (fused kernels, reductions,
// the interpreter).
#pragma once

#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/rules.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace jet::detail {

inline constexpr const char* kernel_name = "jet_kernel";

/// Raise this when the meaning of a generated kernel changes while its source text may not (how
/// it is launched, what its parameters are): the disk cache's key holds it, so a cubin that an
/// older jet stored is compiled again rather than launched the new way.
inline constexpr int codegen_version = 3;

struct op_spelling {
  std::string_view tag;
  std::string_view cpp;  // C++ spelling: "operator+" or a function name
  int arity;
  std::string_view cuda;
  rule result_rule = rule::same;  // ops.def's columns
  domain operand_domain = domain::any;
};

// Indexed by op_id: the two leaf kinds, then the op table in order.
inline constexpr op_spelling spellings[] = {
    {"input", "", 0, ""},
    {"scalar", "", 0, ""},
    {"counter", "", 0, ""},
#define JET_OP1(tag, fn, rule_, domain_, values, cuda, host) {#tag, #fn, 1, cuda, rule::rule_, domain::domain_},
#define JET_OP2(tag, fn, rule_, domain_, values, cuda, host) {#tag, #fn, 2, cuda, rule::rule_, domain::domain_},
#define JET_OP3(tag, fn, rule_, domain_, values, cuda, host) {#tag, #fn, 3, cuda, rule::rule_, domain::domain_},
#include <jet/ops.def>
#undef JET_OP1
#undef JET_OP2
#undef JET_OP3
    {"user", "", 0, ""},
};

inline const op_spelling& spelling(op_id op) { return spellings[static_cast<int>(op)]; }

/// What a node of op `op` costs NVRTC, a plain op 1 (sin 64): roughly the length of its CUDA
/// math library body, which each inlined copy makes NVRTC optimize again.
unsigned op_cost(op_id op);
/// The cost from which an op is one __noinline__ function that each use calls, where a kernel
/// would otherwise hold many copies of it (an outlined formula's repeats, the interpreter's
/// unrolled elements): sin, cos, pow and the special functions, whose bodies are the longest.
inline constexpr unsigned called_op_cost = 32;

/// The op's tag in the op table ("add"), "input", "scalar", "counter" or "user".
inline std::string_view op_tag(op_id op) { return spelling(op).tag; }

// The CUDA type an element is stored as in memory, and the one it is held in inside jet_element.
std::string storage_type(dtype t);
std::string value_type(dtype t);

// 16-bit floats are stored as their bits and computed in float32: a load widens exactly, a store
// rounds to nearest even. These few PTX conversions stand in for cuda_fp16.h and cuda_bf16.h,
// which NVRTC compiles slowly and finds only on the toolkit's include path. cvt.rn.bf16.f32 needs
// sm_80. A kernel carries the definitions of the 16-bit types it uses, and no others.
struct float16_format {
  dtype type;
  std::string_view widen;  // the body of a function of unsigned short h returning its float
  std::string_view round;  // the PTX instruction rounding f32 to the format
};
inline constexpr float16_format float16_formats[] = {
    {dtype::float16, "float f;\n  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n  return f;", "cvt.rn.f16.f32"},
    {dtype::bfloat16, "return __uint_as_float(static_cast<unsigned>(h) << 16);  // float32's upper half",
     "cvt.rn.bf16.f32"},
};

/// Whether t is stored as its bits (a 16-bit float) and computed in float32.
inline bool stored_as_bits(dtype t) { return compute_type(t) != t; }

/// The device functions widening format f to float and rounding float to it.
std::string conversion_functions(const float16_format& f);

// A value of the compute type as stored (rounded, for a 16-bit float; any other value converts
// implicitly), and back.
std::string rounded(dtype t, const std::string& value);
std::string widened(dtype t, const std::string& stored);

// The device helpers that the op table's CUDA spellings use (jet_convert among them).
inline constexpr std::string_view op_helpers =
#define JET_CUDA_HELPERS(source) source
#define JET_OP1(...)
#define JET_OP2(...)
#define JET_OP3(...)
#include <jet/ops.def>
#undef JET_OP1
#undef JET_OP2
#undef JET_OP3
    ;

// The reductions' CUDA spellings, indexed by reduction_id (reductions.def), and their helpers.
struct reduction_spelling {
  std::string_view tag, identity, map, combine, finish;
};
inline constexpr reduction_spelling reduction_spellings[] = {
    {"none", "", "", "", ""},
#define JET_REDUCTION(tag, rule, empty, identity, map, combine, finish, ...) {#tag, identity, map, combine, finish},
#include <jet/reductions.def>
#undef JET_REDUCTION
};
inline constexpr std::string_view reduction_helpers =
#define JET_REDUCTION_HELPERS(source) source
#define JET_REDUCTION(...)
#include <jet/reductions.def>
#undef JET_REDUCTION
    ;

// One device function per op used, e.g.
//   template <class A, class B> __device__ __forceinline__ auto jet_add(A a, B b) { return a + b; }
// or, `called`, __noinline__: a function of its own that each use calls.
std::string op_function(const op_spelling& s, bool called = false);

/// The expression in C++ syntax, operands named in0.. and s0.. by slot; several outputs as a
/// tuple "(a, b)".
std::string describe(const kernel_desc& d);

}  // namespace jet::detail
