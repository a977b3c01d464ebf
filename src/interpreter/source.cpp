#include "interpreter/source.hpp"

#include "codegen/source_text.hpp"
#include "codegen/spelling.hpp"
#include "settings.hpp"

#include <string>

namespace jet::detail {

bool interpretable_op(op_id op, const interpreter_family& f) {
  const op_spelling& s = spelling(op);
  if (s.cuda.empty() || s.result_rule == rule::random) return false;  // leaves, user functions, Philox
  if (!accepts(s.operand_domain, f.compute)) return false;
  return is_floating(f.compute) || s.result_rule != rule::floating;  // integers compute floating ops in float64
}

bool interpreter_stores(const interpreter_family& f, dtype t) {
  return t == dtype::boolean || compute_type(t) == f.compute;
}

// The interpreter's kernel (interpreter/program.hpp says how it runs). What an instruction costs is its
// dispatch (the instruction's bytes, then a binary search of the op's switch: NVVM emits no jump
// tables), once per thread, plus `elements` operations; so more elements a thread run faster,
// as long as the machine registers allow enough warps. The H200's measurements of 2^28 float32
// elements (benchmarks/RESULTS.md, chains of x + y and then ops with a scalar): 16 elements a thread
// (96 machine registers) run at 0.99, 1.00, 0.92 and 0.71 of the compiled kernel's bandwidth at 1,
// 4, 8 and 16 ops; 8 elements (56 registers) at 0.98, 0.97, 0.88 and 0.56. Local memory (LDL/STL)
// is only in sin's and cos's reduction of huge arguments, as in compiled kernels.
unsigned interpreter_elements(const interpreter_family& f) {
  const unsigned requested = interpreter_elements_setting().value_or(0);
  return requested && requested % f.group == 0 ? requested : f.elements;
}

namespace {

// The kernel's opening: its family, the op functions, the constants and jet_program.
std::string interpreter_declarations(const interpreter_family& f) {
  const std::string value = value_type(f.compute);
  std::string src = "// jet interpreter, family " + std::string(f.name) + ": computes in " + value + "; operands in " +
                    join(dtype_count, [&](unsigned t) {
                      return interpreter_stores(f, dtype(t)) ? std::string(name(dtype(t))) + " " : std::string();
                    }) + "\n";
  src += "template <class T, unsigned N> struct alignas(sizeof(T) * N) jet_vector { T v[N]; };\n";
  for (const float16_format& h : float16_formats)
    if (compute_type(h.type) == f.compute) src += conversion_functions(h);
  src += op_helpers;
  for (std::size_t op = 0; op < std::size(spellings); ++op)
    if (interpretable_op(op_id(op), f) && op != static_cast<std::size_t>(op_id::cast)) src += op_function(spellings[op]);
  src += "typedef " + value + " jet_value;\n";
  const std::string constraint = f.compute == dtype::float32 ? "f" : f.compute == dtype::float64 ? "d"
                                 : size_of(f.compute) == 4   ? "r"
                                                             : "l";
  src += "__device__ __forceinline__ jet_value jet_opaque(jet_value v) {\n  asm volatile(\"\" : \"+" + constraint +
         "\"(v));\n  return v;\n}\n";
  src += "constexpr unsigned threads = " + number(interpreter_threads) + ", elements = " + number(interpreter_elements(f)) +
         ", group = " + number(f.group) + ", tile = threads * elements;\n";
  src += "constexpr unsigned inputs = " + number(interpreter_inputs) + ";\n";
  src += "constexpr unsigned char scalar_operand = " + number(interpreter_scalar_operand) +
         ", no_operand = " + number(interpreter_no_operand) + ";\n";
  src += "struct jet_instruction { unsigned char op, dst, a, b, c, type; };\n";
  src += "struct jet_program {\n  unsigned long long n;\n  const void* inputs[" + number(interpreter_inputs) +
         "];\n  void* outputs[" + number(interpreter_outputs) + "];\n  unsigned long long scalars[" +
         number(interpreter_scalars) + "];\n  unsigned count, aligned, prefetch_distance;\n  unsigned char input_size[" +
         number(interpreter_inputs) + "];\n  jet_instruction code[" +
         number(interpreter_code) + "];\n};\n";

  return src;
}

// The switch cases that load, store and cast each stored dtype of a family.
struct storage_cases {
  std::string load, store, cast;
};

// Per stored dtype: its type in memory, a stored element as a value (a bool is 0 or 1) and a value
// as stored, with the conversions the fused kernels use; and its cases.
std::string storage_types(const interpreter_family& f, storage_cases& cases) {
  std::string src;
  for (unsigned t = 0; t < dtype_count; ++t) {
    const dtype d = dtype(t);
    if (!interpreter_stores(f, d)) continue;
    const std::string storage = "jet_storage_" + std::string(name(d)), stored = storage_type(d);
    src += "struct " + storage + " {\n  typedef " + stored + " type;\n";
    src += "  static __device__ __forceinline__ jet_value from(type s) { return jet_value(" + widened(d, "s") + "); }\n";
    src += "  static __device__ __forceinline__ type to(jet_value v) { return " +
           (stored_as_bits(d) ? rounded(d, "v") : "jet_convert<type>(v)") + "; }\n};\n";
    const std::string id = number(t);
    cases.load += "        case " + id + ":\n          jet_load<full, " + storage + ">(t, p.inputs[in.a], base, p.n);\n          if (two) jet_load<full, " +
                  storage + ">(u, p.inputs[in.b], base, p.n);\n          break;\n";
    cases.store += "        case " + id + ": jet_store<full, " + storage + ">(t, p.outputs[in.dst], base, p.n); break;\n";
    cases.cast += "          case " + id + ":\n#pragma unroll\n            for (unsigned j = 0; j < elements; ++j) acc[j] = " +
                  storage + "::from(" + storage + "::to(acc[j]));\n            break;\n";
  }
  return src;
}

// Loads, stores and registers, the same for every family but for the constants above them.
constexpr std::string_view interpreter_helpers = R"cuda(// A thread's element j of a tile starting at `base`: on a full tile of aligned operands, vector
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
// Scalar operand k (scalar_operand + its slot).
__device__ __forceinline__ jet_value jet_scalar(const jet_program& p, unsigned k) {
  return *reinterpret_cast<const jet_value*>(&p.scalars[k - scalar_operand]);
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
// Runs the program over one tile. Every thread of the grid runs the same instructions, so each
// switch below branches alike across a warp.
template <bool full> __device__ __forceinline__ void jet_run(const jet_program& p, unsigned long long base) {
)cuda";

// jet_run's body: the dispatch loop over the program, a case per instruction.
std::string run_body(const interpreter_family& f, const storage_cases& cases) {
  std::string src;
  src += "  jet_value acc[elements];\n";
  src += "#pragma unroll 1\n  for (unsigned pc = 0; pc < p.count; ++pc) {\n    const jet_instruction in = p.code[pc];\n";
  src += "    jet_value b[elements], c[elements];\n    switch (in.op) {\n";
  // Both loads are issued before either result is saved, so that two are in flight at once; a
  // load of one input (a == b) issues it once.
  src += "      case " + number(static_cast<unsigned>(op_id::input)) + ": {\n      jet_value t[elements], u[elements];\n"
         "      const bool two = in.a != in.b;\n      switch (in.type) {\n" + cases.load + "      }\n"
         "      jet_save(in.dst, t);\n      if (two) jet_save(in.c, u);\n      break;\n    }\n";
  src += "      case " + number(fetch_op) + ":\n        jet_operand(acc, p, in.a);\n        break;\n";
  src += "      case " + number(save_op) + ":\n        jet_save(in.dst, acc);\n        break;\n";
  src += "      case " + number(store_op) + ": {\n      jet_value t[elements];\n"
         "      if (in.a == " + number(interpreter_accumulator) + ") jet_copy(t, acc);\n      else jet_operand(t, p, in.a);\n"
         "      switch (in.type) {\n" + cases.store + "      }\n      break;\n    }\n";
  // Each op case reads the operands it has itself: a read guarded at run time ahead of the switch
  // would leave b and c undefined on some paths, and ptxas then copies them around the loop.
  src += "      default:\n      switch (in.op) {\n";
  // The accumulator reaches each op through an empty volatile asm: otherwise the compiler hoists
  // parts of sin's and cos's argument reduction above the dispatch, into every instruction.
  static constexpr std::string_view operand_names[] = {"jet_opaque(acc[j])", "b[j]", "c[j]"};
  for (std::size_t op = 0; op < std::size(spellings); ++op) {
    if (!interpretable_op(op_id(op), f)) continue;
    const op_spelling& s = spellings[op];
    if (op_id(op) == op_id::cast) {  // converts to the dtype named by `type` and back
      src += "      case " + number(op) + ":  // cast\n        switch (in.type) {\n" + cases.cast + "        }\n        break;\n";
      continue;
    }
    // One case with operands from registers, and for a binary op one with a scalar second operand.
    for (int scalar_second = 0; scalar_second <= (s.arity == 2); ++scalar_second) {
      std::string call = "jet_" + std::string(s.tag) + "(";
      for (int k = 0; k < s.arity; ++k) call += (k ? ", " : "") + std::string(k == 1 && scalar_second ? "s" : operand_names[k]);
      src += "      case " + number(op + scalar_second * scalar_second_op) + ": {\n";
      if (scalar_second) src += "        const jet_value s = jet_scalar(p, in.b);\n";
      if (s.arity >= 2 && !scalar_second) src += "        jet_operand(b, p, in.b);\n";
      if (s.arity == 3) src += "        jet_operand(c, p, in.c);\n";
      src += "#pragma unroll\n        for (unsigned j = 0; j < elements; ++j) acc[j] = jet_value(" + call + "));\n        break;\n      }\n";
    }
  }
  src += "      }\n    }\n  }\n}\n\n";
 
  return src;
}

constexpr std::string_view interpreter_prefetch = R"cuda(// Asks L2 for the inputs of the tile at `later` (whole tiles only), which a block launched later
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
  std::string src = interpreter_declarations(f);
  storage_cases cases;
  src += storage_types(f, cases);
  src += interpreter_helpers;
  src += run_body(f, cases);
  src += interpreter_prefetch;
  src += "extern \"C\" __global__ void __launch_bounds__(threads) " + std::string(interpreter_kernel_name) +
         "(const __grid_constant__ jet_program p) {\n"
         "  const unsigned long long base = (unsigned long long)blockIdx.x * tile;\n"
         "  jet_prefetch(p, base + (unsigned long long)p.prefetch_distance * tile);\n"
         "  if (p.aligned && p.n - base >= tile) jet_run<true>(p, base);\n"
         "  else jet_run<false>(p, base);\n}\n";
  return src;
}

}  // namespace jet::detail
