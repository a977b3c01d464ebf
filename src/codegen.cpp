#include "codegen.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace jet::detail {
namespace {

struct op_spelling {
  std::string_view tag;
  std::string_view cpp;  // C++ spelling: "operator+" or a function name
  int arity;
  std::string_view cuda;
};

// Indexed by op_id: the two leaf kinds, then the op table in order.
constexpr op_spelling spellings[] = {
    {"input", "", 0, ""},
    {"scalar", "", 0, ""},
#define JET_OP1(tag, fn, rule, cuda, host) {#tag, #fn, 1, cuda},
#define JET_OP2(tag, fn, rule, cuda, host) {#tag, #fn, 2, cuda},
#define JET_OP3(tag, fn, rule, cuda, host) {#tag, #fn, 3, cuda},
#include <jet/ops.def>
#undef JET_OP1
#undef JET_OP2
#undef JET_OP3
};

const op_spelling& spelling(op_id op) { return spellings[static_cast<int>(op)]; }

// The CUDA type an element is stored as in memory, and the one it is held in inside jet_element.
std::string storage_type(dtype t) { return std::string(cuda_name(t)); }
std::string value_type(dtype t) { return std::string(cuda_name(compute_type(t))); }

// 16-bit floats are stored as their bits and computed in float32: a load widens exactly, a store
// rounds to nearest even. These few PTX conversions stand in for cuda_fp16.h and cuda_bf16.h,
// which NVRTC compiles slowly and finds only on the toolkit's include path. cvt.rn.bf16.f32 needs
// sm_80. A kernel carries the definitions of the 16-bit types it uses, and no others.
struct float16_format {
  dtype type;
  std::string_view widen;  // the body of a function of unsigned short h returning its float
  std::string_view round;  // the PTX instruction rounding f32 to the format
};
constexpr float16_format float16_formats[] = {
    {dtype::float16, "float f;\n  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n  return f;",
     "cvt.rn.f16.f32"},
    {dtype::bfloat16, "return __uint_as_float(static_cast<unsigned>(h) << 16);  // float32's upper half",
     "cvt.rn.bf16.f32"},
};

bool stored_as_bits(dtype t) { return compute_type(t) != t; }

std::string widen_function(dtype t) { return "jet_" + std::string(name(t)) + "_to_float"; }
std::string round_function(dtype t) { return "jet_float_to_" + std::string(name(t)); }

std::string conversion_functions(const float16_format& f) {
  return "__device__ __forceinline__ float " + widen_function(f.type) + "(unsigned short h) {\n  " +
         std::string(f.widen) + "\n}\n__device__ __forceinline__ unsigned short " +
         round_function(f.type) + "(float f) {\n  unsigned short h;\n  asm(\"" + std::string(f.round) +
         " %0, %1;\" : \"=h\"(h) : \"f\"(f));\n  return h;\n}\n";
}

// A value of the compute type as stored (rounded, for a 16-bit float; any other value converts
// implicitly), and back.
std::string rounded(dtype t, const std::string& value) {
  return stored_as_bits(t) ? round_function(t) + "(" + value + ")" : value;
}
std::string widened(dtype t, const std::string& stored) {
  return stored_as_bits(t) ? widen_function(t) + "(" + stored + ")" : stored;
}

bool uses_dtype(const kernel_desc& d, dtype t) {
  if (d.out == t) return true;
  for (unsigned i = 0; i < d.node_count; ++i)
    if (d.nodes[i].type == t) return true;
  return false;
}

// One device function per op used, e.g.
//   template <class A, class B> __device__ __forceinline__ auto jet_add(A a, B b) { return a + b; }
std::string op_function(const op_spelling& s) {
  static constexpr std::string_view types[] = {"A", "B", "C"}, names[] = {"a", "b", "c"};
  std::string params, tparams;
  for (int k = 0; k < s.arity; ++k) {
    tparams += std::string(k ? ", " : "") + "class " + std::string(types[k]);
    params += std::string(k ? ", " : "") + std::string(types[k]) + " " + std::string(names[k]);
  }
  return "template <" + tparams + "> __device__ __forceinline__ auto jet_" + std::string(s.tag) + "(" + params +
         ") { return " + std::string(s.cuda) + "; }\n";
}

// The name under which a node's value is known inside jet_element.
std::string value_name(const kernel_desc& d, const variant_key& v, unsigned index) {
  const node& n = d.nodes[index];
  if (n.op == op_id::input) return "x" + std::to_string(v.unique_of[n.arg[0]]);
  if (n.op == op_id::scalar) return "s" + std::to_string(n.arg[0]);
  return "t" + std::to_string(index);
}

std::string operand(const kernel_desc& d, const variant_key& v, const node& n, int k) {
  const std::string name = value_name(d, v, n.arg[k]);
  if (compute_type(d.nodes[n.arg[k]].type) == compute_type(n.arg_type[k])) return name;
  return "static_cast<" + value_type(n.arg_type[k]) + ">(" + name + ")";
}

// The dtype of distinct input k.
dtype distinct_type(const kernel_desc& d, const variant_key& v, unsigned k) {
  for (unsigned slot = 0; slot < d.input_count; ++slot)
    if (v.unique_of[slot] == k) return d.input_types[slot];
  return d.out;
}

// The dtype of scalar slot k.
dtype scalar_type(const kernel_desc& d, unsigned k) {
  for (unsigned i = 0; i < d.node_count; ++i)
    if (d.nodes[i].op == op_id::scalar && d.nodes[i].arg[0] == k) return d.nodes[i].type;
  return d.out;
}

// Appends ", x0, x1, s0" style lists: `each(k)` for every distinct input, then `scalar(k)`.
template <class Input, class Scalar>
std::string join_operands(const kernel_desc& d, unsigned inputs, Input each, Scalar scalar) {
  std::string s;
  for (unsigned k = 0; k < inputs; ++k) s += (s.empty() ? "" : ", ") + each(k);
  for (unsigned k = 0; k < d.scalar_count; ++k) s += (s.empty() ? "" : ", ") + scalar(k);
  return s;
}

std::string describe_node(const kernel_desc& d, unsigned index, bool top) {
  const node& n = d.nodes[index];
  if (n.op == op_id::input) return "in" + std::to_string(n.arg[0]);
  if (n.op == op_id::scalar) return "s" + std::to_string(n.arg[0]);
  const op_spelling& s = spelling(n.op);
  const bool infix = s.cpp.starts_with("operator");
  std::string args[3];
  for (int k = 0; k < n.arity; ++k) args[k] = describe_node(d, n.arg[k], !infix);  // call arguments need no parentheses
  if (infix) {
    const std::string symbol(s.cpp.substr(8));
    if (n.arity == 1) return symbol + args[0];
    const std::string infix = args[0] + " " + symbol + " " + args[1];
    return top ? infix : "(" + infix + ")";
  }
  std::string call(s.cpp);
  if (n.op == op_id::cast) call += "<" + std::string(name(n.type)) + ">";
  call += "(";
  for (int k = 0; k < n.arity; ++k) call += (k ? ", " : "") + args[k];
  return call + ")";
}

}  // namespace

kernel_shape shape_of(const variant_key& v) {
  // 128 threads with two 16-byte vectors per operand in flight measured best on the H200 from 2^20
  // to 2^28 elements, against 256x2, 256x4, 128x4 and 512x2 (benchmarks/RESULTS.md).
  // JET_KERNEL_SHAPE=threads,ilp replaces it for the whole process: a tuning knob for benchmark
  // runs, read once.
  static const kernel_shape chosen = [] {
    kernel_shape s{128, 2, 0};
    if (const char* env = std::getenv("JET_KERNEL_SHAPE")) {
      unsigned threads = 0, ilp = 0;
      if (std::sscanf(env, "%u,%u", &threads, &ilp) == 2 && threads >= 32 && threads <= 1024 && threads % 32 == 0 &&
          ilp >= 1 && ilp <= 16)
        s = {threads, ilp, 0};
      else
        std::fprintf(stderr, "jet: ignoring JET_KERNEL_SHAPE=%s (want threads,ilp)\n", env);
    }
    return s;
  }();
  return {chosen.threads, chosen.ilp, v.vec};
}

unsigned max_vector_width(const kernel_desc& d) {
  int widest = size_of(d.out);
  for (unsigned k = 0; k < d.input_count; ++k) widest = std::max(widest, size_of(d.input_types[k]));
  return 16 / widest;
}

variant_key default_variant(const kernel_desc& d) {
  variant_key v;
  v.vec = static_cast<std::uint8_t>(max_vector_width(d));
  for (unsigned k = 0; k < d.input_count; ++k) v.unique_of[k] = static_cast<std::uint8_t>(k);
  return v;
}

unsigned distinct_inputs(const kernel_desc& d, const variant_key& v) {
  unsigned count = 0;
  for (unsigned k = 0; k < d.input_count; ++k) count = std::max(count, v.unique_of[k] + 1u);
  return count;
}

std::string describe(const kernel_desc& d) { return describe_node(d, d.node_count - 1, true); }

std::string generate_source(const kernel_desc& d, const variant_key& v) {
  const kernel_shape shape = shape_of(v);
  const unsigned inputs = distinct_inputs(d, v);
  const std::string out_t = storage_type(d.out);
  const std::string restrict_ = v.out_aliases_input ? "" : " __restrict__";
  std::string src;

  src += "// jet kernel: " + describe(d) + " -> " + std::string(name(d.out)) + "\n";
  src += "// variant: vec " + std::to_string(v.vec) + ", " + std::to_string(inputs) + " distinct inputs, output " +
         (v.out_aliases_input ? "aliases an input" : "distinct") + "\n";
  src += "template <class T, int N> struct alignas(sizeof(T) * N) jet_vec { T v[N]; };\n";
  for (const float16_format& f : float16_formats)
    if (uses_dtype(d, f.type)) src += conversion_functions(f);

  bool used[std::size(spellings)] = {};
  for (unsigned i = 0; i < d.node_count; ++i) used[static_cast<int>(d.nodes[i].op)] = true;
  for (std::size_t op = 2; op < std::size(spellings); ++op)
    if (used[op]) src += op_function(spellings[op]);

  // The element function: stored values in, one named temporary per node, the stored result out.
  // A 16-bit input arrives as its bits (stored_xK) and is widened once.
  auto input_name = [&](unsigned k) {
    return (stored_as_bits(distinct_type(d, v, k)) ? "stored_x" : "x") + std::to_string(k);
  };
  src += "\n__device__ __forceinline__ " + out_t + " jet_element(" +
         join_operands(
             d, inputs, [&](unsigned k) { return storage_type(distinct_type(d, v, k)) + " " + input_name(k); },
             [&](unsigned k) { return value_type(scalar_type(d, k)) + " s" + std::to_string(k); }) +
         ") {\n";
  for (unsigned k = 0; k < inputs; ++k)
    if (stored_as_bits(distinct_type(d, v, k)))
      src += "  const float x" + std::to_string(k) + " = " + widened(distinct_type(d, v, k), input_name(k)) + ";\n";
  for (unsigned i = 0; i < d.node_count; ++i) {
    const node& n = d.nodes[i];
    if (n.op == op_id::input || n.op == op_id::scalar) continue;
    std::string call = "jet_" + std::string(spelling(n.op).tag) + "(";
    for (int k = 0; k < n.arity; ++k) call += (k ? ", " : "") + operand(d, v, n, k);
    call += ")";
    // Only a cast rounds to a 16-bit type inside an expression: other 16-bit nodes keep float32.
    if (n.op == op_id::cast) call = widened(n.type, rounded(n.type, call));
    src += "  const " + value_type(n.type) + " t" + std::to_string(i) + " = " + call + ";\n";
  }
  src += "  return " + rounded(d.out, value_name(d, v, d.node_count - 1)) + ";\n}\n\n";

  // The kernel: a masked program per tile, as in the Triton tutorial, with full tiles vectorized.
  std::string params = out_t + "*" + restrict_ + " out";
  for (unsigned k = 0; k < inputs; ++k)
    params += ", const " + storage_type(distinct_type(d, v, k)) + "*" + restrict_ + " in" + std::to_string(k);
  for (unsigned k = 0; k < d.scalar_count; ++k)
    params += ", const " + value_type(scalar_type(d, k)) + " s" + std::to_string(k);
  params += ", const unsigned long long n";

  auto vec_type = [&](dtype t) { return "jet_vec<" + storage_type(t) + ", vec>"; };
  src += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(shape.threads) + ")\n";
  src += std::string(kernel_name) + "(" + params + ") {\n";
  src += "  constexpr unsigned threads = " + std::to_string(shape.threads) + ", ilp = " + std::to_string(shape.ilp) +
         ", vec = " + std::to_string(shape.vec) + ", tile = threads * ilp * vec;\n";
  src += "  const unsigned long long base = (unsigned long long)blockIdx.x * tile;  // pid * BLOCK\n";
  src += "  if (n - base >= tile) {\n";
  src += "    // a full tile: no mask; every load of the thread is in flight before the first use\n";
  for (unsigned k = 0; k < inputs; ++k)
    src += "    " + vec_type(distinct_type(d, v, k)) + " v" + std::to_string(k) + "[ilp];\n";
  src += "#pragma unroll\n    for (unsigned k = 0; k < ilp; ++k) {\n";
  src += "      const unsigned long long i = base + (k * threads + threadIdx.x) * vec;\n";
  for (unsigned k = 0; k < inputs; ++k) {
    const std::string kk = std::to_string(k);
    src += "      v" + kk + "[k] = *reinterpret_cast<const " + vec_type(distinct_type(d, v, k)) + "*>(in" + kk + " + i);\n";
  }
  src += "    }\n#pragma unroll\n    for (unsigned k = 0; k < ilp; ++k) {\n";
  src += "      " + vec_type(d.out) + " r;\n";
  src += "#pragma unroll\n      for (unsigned j = 0; j < vec; ++j) r.v[j] = jet_element(" +
         join_operands(
             d, inputs, [](unsigned k) { return "v" + std::to_string(k) + "[k].v[j]"; },
             [](unsigned k) { return "s" + std::to_string(k); }) +
         ");\n";
  src += "      *reinterpret_cast<" + vec_type(d.out) + "*>(out + base + (k * threads + threadIdx.x) * vec) = r;\n";
  src += "    }\n  } else {\n";
  src += "    // the last tile: offsets = base + arange, mask = offsets < n\n";
  src += "    for (unsigned long long i = base + threadIdx.x; i < n; i += threads)\n";
  src += "      out[i] = jet_element(" +
         join_operands(
             d, inputs, [](unsigned k) { return "in" + std::to_string(k) + "[i]"; },
             [](unsigned k) { return "s" + std::to_string(k); }) +
         ");\n";
  src += "  }\n}\n";
  return src;
}

}  // namespace jet::detail
