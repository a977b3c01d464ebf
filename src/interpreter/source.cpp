#include "interpreter/source.hpp"

#include "codegen/complex_source.hpp"
#include "codegen/source_text.hpp"
#include "codegen/spelling.hpp"
#include "settings.hpp"

#include <functional>
#include <string>

namespace jet::detail {

bool interpreter_math_only(op_id op) {
  switch (op) {
    case op_id::log:
    case op_id::sin:
    case op_id::cos:
    case op_id::pow: return false;
    default: return op_cost(op) >= 8;
  }
}

bool interpretable_op(op_id op, const interpreter_family& f) {
  const op_spelling& s = spelling(op);
  if (s.cuda.empty() || s.result_rule == rule::random) return false;  // leaves, user functions, Philox
  if (s.result_rule == rule::count) return false;                     // a uint8 result
  if (is_complex(f.compute)) {
    if (s.result_rule == rule::float64) return f.compute == dtype::complex128;
    return takes_complex(op, f) || (takes_real(op, f) && !interpreter_math_only(op));
  }
  if (s.result_rule == rule::make_complex) return false;  // a complex result
  if (interpreter_math_only(op) && (!f.math || interpreter_special(op) != f.special)) return false;
  if (!accepts(s.operand_domain, f.compute)) return false;
  if (s.result_rule == rule::float64) return f.compute == dtype::float64;
  // Integers compute floating ops in float64.
  return is_floating(f.compute) || (s.result_rule != rule::floating && s.result_rule != rule::phase);
}

bool interpreter_special(op_id op) {
  switch (op) {
    case op_id::erf:
    case op_id::erfc:
    case op_id::erfcx:
    case op_id::erfinv:
    case op_id::erfcinv:
    case op_id::normcdf:
    case op_id::normcdfinv:
    case op_id::lgamma:
    case op_id::tgamma:
    case op_id::j0:
    case op_id::j1:
    case op_id::y0:
    case op_id::y1:
    case op_id::i0:
    case op_id::i1: return true;
    default: return false;
  }
}

bool takes_complex(op_id op, const interpreter_family& f) {
  return is_complex(f.compute) && accepts(spelling(op).operand_domain, f.compute);
}

bool takes_real(op_id op, const interpreter_family& f) {
  return accepts(spelling(op).operand_domain, real_type(f.compute));
}

bool interpreter_stores(const interpreter_family& f, dtype t) {
  return t == dtype::boolean || compute_type(t) == f.compute || compute_type(t) == real_type(f.compute);
}

bool interpreter_calls(op_id op, const interpreter_family& f) {
  return interpreter_math_only(op) || (is_complex(f.compute) && op_cost(op) >= 8);
}

// The interpreter's kernel (interpreter/program.hpp says how it runs). What an instruction costs is its
// dispatch (the instruction's bytes, then a binary search of the op's switch: NVVM emits no jump
// tables), once per thread, plus `elements` operations; so more elements a thread run faster,
// as long as the machine registers allow enough warps (the figures per family: benchmarks/RESULTS.md).
unsigned interpreter_elements(const interpreter_family& f) {
  const unsigned requested = interpreter_elements_setting().value_or(0);
  return requested && requested % f.group == 0 ? requested : f.elements;
}

namespace {

// The kernel's opening: its family, the op functions and jet_opaque.
void interpreter_declarations(source_writer& w, const interpreter_family& f) {
  const std::string value = value_type(f.compute),
                    stored = join(dtype_count, [&](unsigned t) {
                      return interpreter_stores(f, dtype(t)) ? std::string(name(dtype(t))) + " " : std::string();
                    });
  w.line("// jet interpreter, family ", f.name, ": computes in ", value, "; operands in ", stored);
  w.line("template <class T, unsigned N> struct alignas(sizeof(T) * N) jet_vector { T v[N]; };");
  for (const float16_format& h : float16_formats)
    if (interpreter_stores(f, h.type)) w.raw(conversion_functions(h));
  w.raw(op_helpers);
  if (is_complex(f.compute)) w.raw(complex_helpers);
  for (std::size_t op = 0; op < std::size(spellings); ++op)
    if (interpretable_op(op_id(op), f) && op != static_cast<std::size_t>(op_id::cast))
      w.raw(op_function(spellings[op], interpreter_calls(op_id(op), f)));
  w.line("typedef ", value, " jet_value;");
  const dtype part = real_type(f.compute);
  const std::string_view constraint = part == dtype::float32   ? "f"
                                      : part == dtype::float64 ? "d"
                                      : size_of(part) == 4     ? "r"
                                                               : "l";
  w.open("__device__ __forceinline__ jet_value jet_opaque(jet_value v) {");
  if (is_complex(f.compute))
    w.line("asm volatile(\"\" : \"+", constraint, "\"(v.re), \"+", constraint, "\"(v.im));");
  else
    w.line("asm volatile(\"\" : \"+", constraint, "\"(v));");
  w.line("return v;");
  w.close();
}

// The kernel's constants, and the program as it reaches the kernel.
void program_declarations(source_writer& w, const interpreter_family& f) {
  w.line("constexpr unsigned threads = ", interpreter_threads, ", elements = ", interpreter_elements(f),
         ", group = ", f.group, ", tile = threads * elements;");
  w.line("constexpr unsigned inputs = ", interpreter_inputs, ";");
  w.line("constexpr unsigned char scalar_operand = ", interpreter_scalar_operand,
         ", no_operand = ", interpreter_no_operand, ";");
  w.line("struct jet_instruction { unsigned char op, dst, a, b, c, type; };");
  w.open("struct jet_program {");
  w.line("unsigned long long n;");
  w.line("const void* inputs[", interpreter_inputs, "];");
  w.line("void* outputs[", interpreter_outputs, "];");
  w.line("unsigned long long scalars[", interpreter_scalars, "];");
  w.line("unsigned count, aligned, prefetch_distance;");
  w.line("unsigned char input_size[", interpreter_inputs, "];");
  w.line("jet_instruction code[", interpreter_code, "];");
  w.close("};");
}

// `each(t, storage)` for each dtype t the family stores, with the name of its storage struct.
template <class F> void for_each_stored(const interpreter_family& f, F each) {
  for (unsigned t = 0; t < dtype_count; ++t)
    if (interpreter_stores(f, dtype(t))) each(t, "jet_storage_" + std::string(name(dtype(t))));
}

// A value of family f as dtype d stores it: the fused kernels' conversion; in a complex family, the
// real part for a real dtype (where the value is real), and for bool whether the value is not 0.
std::string stored_value(const interpreter_family& f, dtype d) {
  if (!is_complex(f.compute)) return stored_as_bits(d) ? rounded(d, "v") : "jet_convert<type>(v)";
  if (d == dtype::boolean) return "v.re != 0 || v.im != 0";
  return is_complex(d) ? "v" : rounded(d, "v.re");
}

// Per stored dtype: its type in memory, a stored element as a value (a bool is 0 or 1) and a value
// as stored, with the conversions the fused kernels use.
void storage_types(source_writer& w, const interpreter_family& f) {
  w.line("// Scalar operand k (scalar_operand + its slot; a complex128 takes two slots, 8-byte aligned).");
  w.open("__device__ __forceinline__ jet_value jet_scalar(const jet_program& p, unsigned k) {");
  if (is_complex(f.compute)) {
    const std::string part = value_type(real_type(f.compute));
    w.line("const ", part, "* const parts = reinterpret_cast<const ", part, "*>(&p.scalars[k - scalar_operand]);");
    w.line("return jet_value(parts[0], parts[1]);");
  } else {
    w.line("return *reinterpret_cast<const jet_value*>(&p.scalars[k - scalar_operand]);");
  }
  w.close();
  for_each_stored(f, [&](unsigned t, const std::string& storage) {
    const dtype d = dtype(t);
    w.open("struct ", storage, " {");
    w.line("typedef ", storage_type(d), " type;");
    w.line("static __device__ __forceinline__ jet_value from(type s) { return jet_value(", widened(d, "s"), "); }");
    w.line("static __device__ __forceinline__ type to(jet_value v) { return ", stored_value(f, d), "; }");
    w.close("};");
  });
}

// Loads, stores and registers, the same for every family but for the constants above them.
constexpr std::string_view interpreter_helpers =
    R"cuda(// A thread's element j of a tile starting at `base`: on a full tile of aligned operands, vector
// j / group of the thread, where the block's threads read consecutive vectors (group elements of
// the compute type: 16 bytes, less for a narrower stored type); otherwise base + j * threads +
// threadIdx.x, one element at a time, masked by n. Every operand of a tile maps alike.
template <bool full, class S> __device__ __forceinline__ void jet_load(jet_value (&d)[elements], const void* p,
                                                                     unsigned long long base, unsigned long long n) {
  typedef typename S::type stored;
  const stored* s = static_cast<const stored*>(p) + base;
  if (full) {
#pragma unroll
    for (unsigned v = 0; v < elements / group; ++v) {
      const jet_vector<stored, group> x =
          *reinterpret_cast<const jet_vector<stored, group>*>(s + (v * threads + threadIdx.x) * group);
#pragma unroll
      for (unsigned j = 0; j < group; ++j) d[v * group + j] = S::from(x.v[j]);
    }
  } else {
#pragma unroll
    for (unsigned j = 0; j < elements; ++j) {
      const unsigned i = j * threads + threadIdx.x;
      d[j] = i < n - base ? S::from(s[i]) : jet_value(0);
    }
  }
}
template <bool full, class S> __device__ __forceinline__ void jet_store(const jet_value (&d)[elements], void* p,
                                                                      unsigned long long base, unsigned long long n) {
  typedef typename S::type stored;
  stored* o = static_cast<stored*>(p) + base;
  if (full) {
#pragma unroll
    for (unsigned v = 0; v < elements / group; ++v) {
      jet_vector<stored, group> x;
#pragma unroll
      for (unsigned j = 0; j < group; ++j) x.v[j] = S::to(d[v * group + j]);
      *reinterpret_cast<jet_vector<stored, group>*>(o + (v * threads + threadIdx.x) * group) = x;
    }
  } else {
#pragma unroll
    for (unsigned j = 0; j < elements; ++j) {
      const unsigned i = j * threads + threadIdx.x;
      if (i < n - base) o[i] = S::to(d[j]);
    }
  }
}
template <class F> __device__ __forceinline__ void jet_copy(F& to, const jet_value (&from)[elements]) {
#pragma unroll
  for (unsigned j = 0; j < elements; ++j) to[j] = from[j];
}
// The registers: each thread's own slice of the block's shared memory (as many registers as the
// program uses), vector v of register k at jet_registers[(k * vectors + v) * threads + thread],
// so that a warp reads and writes 512 consecutive bytes, without bank conflicts. Register numbers
// are warp-uniform, so addressing them costs a multiply, not a dispatch.
typedef jet_vector<jet_value, group> jet_chunk;
constexpr unsigned vectors = elements / group;
extern __shared__ jet_chunk jet_registers[];
__device__ __forceinline__ jet_chunk* jet_register(unsigned k) { return jet_registers + k * vectors * threads + threadIdx.x; }
__device__ __forceinline__ void jet_save(unsigned k, const jet_value (&from)[elements]) {
  jet_chunk* r = jet_register(k);
#pragma unroll
  for (unsigned v = 0; v < vectors; ++v) {
    jet_chunk x;
#pragma unroll
    for (unsigned j = 0; j < group; ++j) x.v[j] = from[v * group + j];
    r[v * threads] = x;
  }
}
// Operand k (a register, or a scalar broadcast) into `to`.
__device__ __forceinline__ void jet_operand(jet_value (&to)[elements], const jet_program& p, unsigned k) {
  if (k >= scalar_operand) {
    const jet_value s = jet_scalar(p, k);
#pragma unroll
    for (unsigned j = 0; j < elements; ++j) to[j] = s;
    return;
  }
  const jet_chunk* r = jet_register(k);
#pragma unroll
  for (unsigned v = 0; v < vectors; ++v) {
    const jet_chunk x = r[v * threads];
#pragma unroll
    for (unsigned j = 0; j < group; ++j) to[v * group + j] = x.v[j];
  }
}
)cuda";

// `label`, then its statements a level deeper, ending with a break.
void unbraced_case(source_writer& w, const std::string& label, const std::function<void()>& statements) {
  w.line(label);
  w.indent();
  statements();
  w.line("break;");
  w.outdent();
}

// A case whose statements need a block: they stand at its label's depth, its brace a level out.
void braced_case(source_writer& w, unsigned op, const std::function<void()>& statements) {
  w.line("case ", op, ": {");
  statements();
  w.line("break;");
  w.close();
  w.indent();
}

// Loads one input, or two (a != b) issued before either result is saved, so that both are in
// flight at once.
void load_case(source_writer& w, const interpreter_family& f) {
  braced_case(w, static_cast<unsigned>(op_id::input), [&] {
    w.line("jet_value t[elements], u[elements];");
    w.line("const bool two = in.a != in.b;");
    w.open("switch (in.type) {");
    for_each_stored(f, [&](unsigned t, const std::string& storage) {
      unbraced_case(w, "case " + number(t) + ":", [&] {
        w.line("jet_load<full, ", storage, ">(t, p.inputs[in.a], base, p.n);");
        w.line("if (two) jet_load<full, ", storage, ">(u, p.inputs[in.b], base, p.n);");
      });
    });
    w.close();
    w.line("jet_save(in.dst, t);");
    w.line("if (two) jet_save(in.c, u);");
  });
}

// Stores operand a, or the accumulator, as the dtype named by `type`.
void store_case(source_writer& w, const interpreter_family& f) {
  braced_case(w, store_op, [&] {
    w.line("jet_value t[elements];");
    w.line("if (in.a == ", interpreter_accumulator, ") jet_copy(t, acc);");
    w.line("else jet_operand(t, p, in.a);");
    w.open("switch (in.type) {");
    for_each_stored(f, [&](unsigned t, const std::string& storage) {
      w.line("case ", t, ": jet_store<full, ", storage, ">(t, p.outputs[in.dst], base, p.n); break;");
    });
    w.close();
  });
}

// An op's cases. Each reads the operands it has itself: a read guarded at run time ahead of the
// switch would leave b and c undefined on some paths, and ptxas then copies them around the loop.
// The accumulator reaches each op through an empty volatile asm: otherwise the compiler hoists
// parts of sin's and cos's argument reduction above the dispatch, into every instruction.
void op_cases(source_writer& w, const interpreter_family& f, std::size_t op) {
  const op_spelling& s = spellings[op];
  if (op_id(op) == op_id::cast) {  // converts to the dtype named by `type` and back
    unbraced_case(w, "case " + number(op) + ":  // cast", [&] {
      w.open("switch (in.type) {");
      for_each_stored(f, [&](unsigned t, const std::string& storage) {
        unbraced_case(w, "case " + number(t) + ":", [&] {
          w.line("#pragma unroll");
          w.line("for (unsigned j = 0; j < elements; ++j) acc[j] = ", storage, "::from(", storage, "::to(acc[j]));");
        });
      });
      w.close();
    });
    return;
  }
  // One case with operands from registers, and for a binary op one with a scalar second operand.
  // A complex family's case computes on complex operands or on real ones (their real parts) as
  // the instruction's type says; a condition is a real part either way.
  const bool complex_family = is_complex(f.compute);
  auto call = [&](bool scalar_second, bool real_parts) {
    static constexpr std::string_view operand_names[] = {"jet_opaque(acc[j])", "b[j]", "c[j]"};
    std::string text = "jet_" + std::string(s.tag) + "(";
    for (int k = 0; k < s.arity; ++k) {
      const bool part = complex_family && (real_parts || (k == 0 && s.result_rule == rule::select));
      text += (k ? ", " : "") + std::string(k == 1 && scalar_second ? "s" : operand_names[k]) + (part ? ".re" : "");
    }
    return "for (unsigned j = 0; j < elements; ++j) acc[j] = jet_value(" + text + "));";
  };
  for (int scalar_second = 0; scalar_second <= (s.arity == 2); ++scalar_second) {
    w.open("case ", static_cast<unsigned>(op + scalar_second * scalar_second_op), ": {");
    if (scalar_second) w.line("const jet_value s = jet_scalar(p, in.b);");
    if (s.arity >= 2 && !scalar_second) w.line("jet_operand(b, p, in.b);");
    if (s.arity == 3) w.line("jet_operand(c, p, in.c);");
    const bool complex_case = takes_complex(op_id(op), f), real_case = !complex_family || takes_real(op_id(op), f);
    if (complex_case && real_case) {
      w.open("if (in.type == ", static_cast<unsigned>(f.compute), ") {");
      w.line("#pragma unroll");
      w.line(call(scalar_second, false));
      w.reopen("} else {");
      w.line("#pragma unroll");
      w.line(call(scalar_second, true));
      w.close();
    } else {
      w.line("#pragma unroll");
      w.line(call(scalar_second, complex_family && !complex_case));
    }
    w.line("break;");
    w.close();
  }
}

// jet_run: the dispatch loop over the program, a case per instruction.
void run_function(source_writer& w, const interpreter_family& f) {
  w.line("// Runs the program over one tile. Every thread of the grid runs the same instructions, so each");
  w.line("// switch below branches alike across a warp.");
  w.open(
      "template <bool full> __device__ __forceinline__ void jet_run(const jet_program& p, unsigned long long base) {");
  w.line("jet_value acc[elements];");
  w.line("#pragma unroll 1");
  w.open("for (unsigned pc = 0; pc < p.count; ++pc) {");
  w.line("const jet_instruction in = p.code[pc];");
  w.line("jet_value b[elements], c[elements];");
  w.open("switch (in.op) {");
  load_case(w, f);
  unbraced_case(w, "case " + number(fetch_op) + ":", [&] { w.line("jet_operand(acc, p, in.a);"); });
  unbraced_case(w, "case " + number(save_op) + ":", [&] { w.line("jet_save(in.dst, acc);"); });
  store_case(w, f);
  w.line("default:");
  w.line("switch (in.op) {");
  for (std::size_t op = 0; op < std::size(spellings); ++op)
    if (interpretable_op(op_id(op), f)) op_cases(w, f, op);
  w.line("}");
  w.close();
  w.close();
  w.close();
  w.line();
}

constexpr std::string_view interpreter_prefetch =
    R"cuda(// Asks L2 for the inputs of the tile at `later` (whole tiles only), which a block launched later
// loads: 128-byte lines, one a lane; warp w takes inputs w, w + 4, ... A tile's input is at most
// 4 KiB (tile elements of the compute type), 32 lines.
__device__ __forceinline__ void jet_prefetch(const jet_program& p, unsigned long long later) {
  if (later >= p.n || p.n - later < tile) return;
  const unsigned lane = threadIdx.x % 32, line = 128;
  for (unsigned k = threadIdx.x / 32; k < inputs && p.input_size[k]; k += threads / 32)
    if (lane * line < tile * p.input_size[k])
      asm volatile("prefetch.global.L2 [%0];" ::"l"(static_cast<const char*>(p.inputs[k]) + later * p.input_size[k] + lane * line));
}

)cuda";

}  // namespace

std::string interpreter_source(const interpreter_family& f) {
  source_writer w;
  interpreter_declarations(w, f);
  program_declarations(w, f);
  storage_types(w, f);
  w.raw(interpreter_helpers);
  run_function(w, f);
  w.raw(interpreter_prefetch);
  w.open("extern \"C\" __global__ void __launch_bounds__(threads) ", interpreter_kernel_name,
         "(const __grid_constant__ jet_program p) {");
  w.raw(R"cuda(const unsigned long long base = (unsigned long long)blockIdx.x * tile;
jet_prefetch(p, base + (unsigned long long)p.prefetch_distance * tile);
if (p.aligned && p.n - base >= tile) jet_run<true>(p, base);
else jet_run<false>(p, base);
)cuda");
  w.close();
  return w.take();
}

}  // namespace jet::detail
