#include "codegen.hpp"
#include "interpreter.hpp"
#include "settings.hpp"
#include "user_function.hpp"

#include <jet/detail/rules.hpp>
#include <jet/error.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace jet::detail {
namespace {

struct op_spelling {
  std::string_view tag;
  std::string_view cpp;  // C++ spelling: "operator+" or a function name
  int arity;
  std::string_view cuda;
  std::string_view rule;  // the result rule's name (ops.def)
};

// Indexed by op_id: the two leaf kinds, then the op table in order.
constexpr op_spelling spellings[] = {
    {"input", "", 0, "", ""},
    {"scalar", "", 0, "", ""},
    {"counter", "", 0, "", ""},
#define JET_OP1(tag, fn, rule, cuda, host) {#tag, #fn, 1, cuda, #rule},
#define JET_OP2(tag, fn, rule, cuda, host) {#tag, #fn, 2, cuda, #rule},
#define JET_OP3(tag, fn, rule, cuda, host) {#tag, #fn, 3, cuda, #rule},
#include <jet/ops.def>
#undef JET_OP1
#undef JET_OP2
#undef JET_OP3
    {"user", "", 0, "", ""},
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
  for (unsigned k = 0; k < d.out_count; ++k)
    if (d.out_types[k] == t) return true;
  for (unsigned i = 0; i < d.node_count; ++i)
    if (d.nodes[i].type == t) return true;
  return false;
}

// The device helpers that the op table's CUDA spellings use (jet_convert among them).
constexpr std::string_view op_helpers =
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
constexpr reduction_spelling reduction_spellings[] = {
    {"none", "", "", "", ""},
#define JET_REDUCTION(tag, rule, empty, identity, map, combine, finish, ...) {#tag, identity, map, combine, finish},
#include <jet/reductions.def>
#undef JET_REDUCTION
};
constexpr std::string_view reduction_helpers =
#define JET_REDUCTION_HELPERS(source) source
#define JET_REDUCTION(...)
#include <jet/reductions.def>
#undef JET_REDUCTION
    ;

// One device function per op used, e.g.
//   template <class A, class B> __device__ __forceinline__ auto jet_add(A a, B b) { return a + b; }
std::string op_function(const op_spelling& s) {
  static constexpr std::string_view types[] = {"A", "B", "C"}, names[] = {"a", "b", "c"};
  std::string params, tparams;
  for (int k = 0; k < s.arity; ++k) {
    tparams += std::string(k ? ", " : "") + "class " + std::string(types[k]);
    params += std::string(k ? ", " : "") + std::string(types[k]) + " " + std::string(names[k]);
  }
  // A spelling in braces is a function body (the op needs statements); otherwise an expression.
  const std::string body = s.cuda.starts_with("{") ? std::string(s.cuda) : "{ return " + std::string(s.cuda) + "; }";
  return "template <" + tparams + "> __device__ __forceinline__ auto jet_" + std::string(s.tag) + "(" + params + ") " +
         body + "\n";
}

// The name under which a node's value is known inside jet_element.
std::string value_name(const kernel_desc& d, const variant_key& v, unsigned index) {
  const node& n = d.nodes[index];
  if (n.op == op_id::input || n.op == op_id::counter) return "x" + std::to_string(v.unique_of[n.arg[0]]);
  if (n.op == op_id::scalar) return "s" + std::to_string(n.arg[0]);
  return "t" + std::to_string(index);
}

// Operand k of node n, converted to the node's operand dtype as a cast converts: from floating to
// integer through jet_convert (truncating, saturating, NaN to 0: a plain conversion of a value
// out of range is undefined, and the GPU's own does not take NaN to 0), otherwise by C++'s
// conversion (integers wrap).
std::string operand(const kernel_desc& d, const variant_key& v, const node& n, int k) {
  const std::string name = value_name(d, v, n.arg[k]);
  const dtype from = compute_type(d.nodes[n.arg[k]].type), to = compute_type(n.arg_type[k]);
  if (from == to) return name;
  const bool floating_to_integer = is_floating(from) && !is_floating(to) && to != dtype::boolean;
  return (floating_to_integer ? "jet_convert<" : "static_cast<") + value_type(to) + ">(" + name + ")";
}

// The dtype of distinct input k.
dtype distinct_type(const kernel_desc& d, const variant_key& v, unsigned k) {
  unsigned slot = 0;
  while (v.unique_of[slot] != k) ++slot;
  return d.input_types[slot];
}

// The dtype of scalar slot k.
dtype scalar_type(const kernel_desc& d, unsigned k) {
  unsigned i = 0;
  while (d.nodes[i].op != op_id::scalar || d.nodes[i].arg[0] != k) ++i;
  return d.nodes[i].type;
}

std::string number(unsigned k) { return std::to_string(k); }

// "f(0), f(1), ..., f(count - 1)".
template <class F> std::string join(unsigned count, F f) {
  std::string s;
  for (unsigned k = 0; k < count; ++k) s += (k ? ", " : "") + f(k);
  return s;
}

// `body` once for each value of `var` from 0 to count - 1, each copy a block in which `var` is that
// constant: the loop that `#pragma unroll` would unroll, written out. NVVM then has no loop to
// unroll and clean up after, which costs compile time and yields the same code.
std::string unrolled(const std::string& var, unsigned count, const std::string& indent, const std::string& body) {
  std::string s;
  for (unsigned c = 0; c < count; ++c)
    s += indent + "{\n" + indent + "  constexpr unsigned " + var + " = " + std::to_string(c) + ";\n" + body + indent + "}\n";
  return s;
}
// The same for a one-statement body, a line per value.
std::string unrolled_statement(const std::string& var, unsigned count, const std::string& indent, const std::string& statement) {
  std::string s;
  for (unsigned c = 0; c < count; ++c)
    s += indent + "{ constexpr unsigned " + var + " = " + std::to_string(c) + "; " + statement + " }\n";
  return s;
}

const char* access_name(access a) {
  constexpr const char* names[] = {"linear", "unit", "broadcast", "gather", "transposed"};
  return names[static_cast<int>(a)];
}

std::string describe_node(const kernel_desc& d, unsigned index, bool top) {
  const node& n = d.nodes[index];
  if (n.op == op_id::input) return "in" + std::to_string(n.arg[0]);
  if (n.op == op_id::scalar) return "s" + std::to_string(n.arg[0]);
  if (n.op == op_id::counter) return "counter" + std::to_string(n.arg[0]);
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
  std::string call = n.op == op_id::user ? std::string(d.functions[n.function]->name) : std::string(s.cpp);
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
    const threads_and_ilp s = kernel_shape_setting().value_or(threads_and_ilp{128, 2});
    return kernel_shape{s.threads, s.ilp, 0};
  }();
  // A rows kernel whose operands are read one element at a time (some row is misaligned for
  // vectors) keeps as many elements per thread in flight as vectors would: memory-level
  // parallelism is what a bandwidth-bound kernel lives on.
  if (v.rows && v.vec == 1) return {chosen.threads, std::min(16u, chosen.ilp * 4), 1};
  return {chosen.threads, chosen.ilp, v.vec};
}

unsigned max_vector_width(const kernel_desc& d) {
  int widest = 1;
  for (unsigned k = 0; k < d.out_count; ++k) widest = std::max(widest, size_of(d.out_types[k]));
  for (unsigned k = 0; k < d.input_count; ++k) widest = std::max(widest, size_of(d.input_types[k]));
  return 16 / widest;
}

variant_key default_variant(const kernel_desc& d) {
  variant_key v;
  v.vec = static_cast<std::uint8_t>(max_vector_width(d));
  for (unsigned k = 0; k < d.input_count; ++k) v.unique_of[k] = static_cast<std::uint8_t>(k);
  if (d.reduction != reduction_id::none) v.axis = reduce_axis::all;
  return v;
}

unsigned distinct_inputs(const kernel_desc& d, const variant_key& v) {
  unsigned count = 0;
  for (unsigned k = 0; k < d.input_count; ++k) count = std::max(count, v.unique_of[k] + 1u);
  return count;
}

std::string describe(const kernel_desc& d) {
  if (d.reduction != reduction_id::none)
    return std::string(reduction_spellings[static_cast<int>(d.reduction)].tag) + "(" + describe_node(d, d.out_nodes[0], true) + ")";
  if (d.out_count == 1) return describe_node(d, d.out_nodes[0], true);
  return "(" + join(d.out_count, [&](unsigned k) { return describe_node(d, d.out_nodes[k], true); }) + ")";
}

bool uses_index_space(const kernel_desc& d, const variant_key& v) {
  bool strided = v.rows;  // a rows kernel finds its rows' length and count in the extents
  for (unsigned k = 0; k < distinct_inputs(d, v); ++k) strided |= v.input_access[k] != access::linear;
  for (unsigned k = 0; k < d.out_count; ++k) strided |= v.output_access[k] != access::linear;
  return strided;
}

launch_grid grid_of(const variant_key& v, std::size_t n, const std::int64_t* extents) {
  const kernel_shape shape = shape_of(v);
  if (v.rows) {  // chunks of a row along x, rows along y
    const auto columns = static_cast<unsigned long long>(extents[v.rank - 1]);
    const unsigned long long rows = n / std::max(columns, 1ull);
    return {(columns + shape.tile() - 1) / shape.tile(), shape.threads,
            static_cast<unsigned>(std::min<unsigned long long>(rows, max_grid_rows))};
  }
  // A block per full tile, then a block per `threads` elements of the last tile, one each.
  if (!v.tiled) return {n / shape.tile() + (n % shape.tile() + shape.threads - 1) / shape.threads, shape.threads};
  unsigned long long blocks = 1;
  for (int dim = 0; dim < v.rank; ++dim) {
    const auto extent = static_cast<unsigned long long>(extents[dim]);
    blocks *= dim + 2 < v.rank ? extent : (extent + tile_edge - 1) / tile_edge;
  }
  return {blocks, tile_threads};
}

namespace {

// The pieces of source every kernel of (d, v) shares: its inputs, how they are loaded, and the
// element function that computes the expression's values from them.
struct kernel_parts {
  const kernel_desc& d;
  const variant_key& v;
  unsigned inputs = distinct_inputs(d, v);
  bool indexed = uses_index_space(d, v);
  std::string rank = number(v.rank);
  std::string restrict_ = v.out_aliases_input ? "" : " __restrict__";

  std::string in_type(unsigned k) const { return storage_type(distinct_type(d, v, k)); }
  std::string out_type(unsigned k) const { return storage_type(d.out_types[k]); }
  static std::string vec_type(const std::string& t) { return "jet_vec<" + t + ", vec>"; }
  bool counter_input(unsigned k) const {
    unsigned slot = 0;
    while (v.unique_of[slot] != k) ++slot;
    return is_counter(d, slot);
  }
  std::string scalar_args() const {
    std::string args;
    for (unsigned k = 0; k < d.scalar_count; ++k) args += ", s" + number(k);
    return args;
  }
  // The multi-index of element i, for strided operands.
  std::string unravel(const std::string& indent) const {
    return indexed ? indent + "index idx[" + rank + "];\n" + indent + "jet_unravel<index, " + rank +
                         ">(index(i), extents, idx);\n"
                   : "";
  }

  // Everything before the __global__ function: helpers, the ops used, and jet_element, which
  // computes one element of every output from stored values: one named temporary per node.
  std::string prelude(const std::string& what) const {
    std::string src = "// jet kernel: " + describe(d) + " -> " + what + "\n";
    src += "// variant: vec " + number(v.vec) + ", rank " + rank + ", inputs (" +
           join(inputs, [&](unsigned k) { return std::string(access_name(v.input_access[k])); }) + "), outputs (" +
           join(d.out_count, [&](unsigned k) { return std::string(access_name(v.output_access[k])); }) + ")" +
           (indexed ? v.index32 ? ", 32-bit index" : ", 64-bit index" : "") +
           (v.out_aliases_input ? ", an output aliases an input" : "") +
           (v.tiled ? ", tiles of the two inner dimensions" : "") + (v.rows ? ", chunks of a row per block" : "") + "\n";
    src += "template <class T, int N> struct alignas(sizeof(T) * N) jet_vec { T v[N]; };\n";
    for (const float16_format& f : float16_formats)
      if (uses_dtype(d, f.type)) src += conversion_functions(f);
    if (indexed) {
      src += "template <int R> struct jet_strides { long long s[R]; };\n"
             "template <int R> struct jet_extents { unsigned long long e[R]; };\n"
             "// The multi-index of element i of the index space, and an operand's offset at it.\n"
             "template <class I, int R> __device__ __forceinline__ void jet_unravel(I i, const jet_extents<R>& x, I (&idx)[R]) {\n"
             "#pragma unroll\n"
             "  for (int d = R - 1; d > 0; --d) { const I e = (I)x.e[d], q = i / e; idx[d] = i - q * e; i = q; }\n"
             "  idx[0] = i;\n"
             "}\n"
             "template <class I, int R> __device__ __forceinline__ long long jet_offset(const I (&idx)[R], const jet_strides<R>& s) {\n"
             "  long long o = 0;\n"
             "#pragma unroll\n"
             "  for (int d = 0; d < R; ++d) o += (long long)idx[d] * s.s[d];\n"
             "  return o;\n"
             "}\n";
    }

    src += op_helpers;
    bool used[std::size(spellings)] = {};
    for (unsigned i = 0; i < d.node_count; ++i) used[static_cast<int>(d.nodes[i].op)] = true;
    for (std::size_t op = 0; op < std::size(spellings); ++op)
      if (used[op] && !spellings[op].cuda.empty()) src += op_function(spellings[op]);  // leaves and user functions have none
    for (unsigned k = 0; k < d.function_count; ++k) src += user_function_source(*d.functions[k]);

    // A 16-bit input arrives as its bits (stored_xK) and is widened once.
    auto input_name = [&](unsigned k) { return (stored_as_bits(distinct_type(d, v, k)) ? "stored_x" : "x") + number(k); };
    std::string element_params = join(d.out_count, [&](unsigned k) { return out_type(k) + "& o" + number(k); });
    for (unsigned k = 0; k < inputs; ++k) element_params += ", " + in_type(k) + " " + input_name(k);
    for (unsigned k = 0; k < d.scalar_count; ++k) element_params += ", " + value_type(scalar_type(d, k)) + " s" + number(k);
    src += "\n__device__ __forceinline__ void jet_element(" + element_params + ") {\n";
    for (unsigned k = 0; k < inputs; ++k)
      if (stored_as_bits(distinct_type(d, v, k)))
        src += "  const float x" + number(k) + " = " + widened(distinct_type(d, v, k), input_name(k)) + ";\n";
    for (unsigned i = 0; i < d.node_count; ++i) {
      const node& n = d.nodes[i];
      if (n.op == op_id::input || n.op == op_id::scalar || n.op == op_id::counter) continue;
      const std::string function = n.op == op_id::user ? std::string("user_") + d.functions[n.function]->name
                                                       : std::string(spelling(n.op).tag);
      std::string call = "jet_" + function + "(";
      for (int k = 0; k < n.arity; ++k) call += (k ? ", " : "") + operand(d, v, n, k);
      call += ")";
      // Only a cast rounds to a 16-bit type inside an expression: other 16-bit nodes keep float32.
      if (n.op == op_id::cast) call = widened(n.type, rounded(n.type, call));
      src += "  const " + value_type(n.type) + " t" + number(i) + " = " + call + ";\n";
    }
    for (unsigned k = 0; k < d.out_count; ++k) {
      // A 16-bit float is rounded from float32; any other conversion goes through jet_convert.
      const std::string value = value_name(d, v, d.out_nodes[k]);
      const bool converts = d.nodes[d.out_nodes[k]].type != d.out_types[k];
      const std::string stored = stored_as_bits(d.out_types[k]) ? rounded(d.out_types[k], value)
                                 : converts ? "jet_convert<" + out_type(k) + ">(" + value + ")" : value;
      src += "  o" + number(k) + " = " + stored + ";\n";
    }
    return src + "}\n\n";
  }

  // The parameters of the distinct inputs (each with its strides when not linear) and scalars,
  // each after a comma.
  std::string input_params() const {
    std::string params;
    for (unsigned k = 0; k < inputs; ++k) {
      if (!counter_input(k)) params += ", const " + in_type(k) + "*" + restrict_ + " in" + number(k);
      if (v.input_access[k] != access::linear) params += ", const jet_strides<" + rank + "> is" + number(k);
    }
    for (unsigned k = 0; k < d.scalar_count; ++k) params += ", const " + value_type(scalar_type(d, k)) + " s" + number(k);
    return params;
  }

  // A full tile at `base`: every load of the thread in flight before the first use, into vK[ilp].
  std::string tile_loads(const kernel_shape& shape) const {
    std::string src, body;
    for (unsigned k = 0; k < inputs; ++k) src += "    " + vec_type(in_type(k)) + " v" + number(k) + "[ilp];\n";
    body += "      const unsigned long long i = base + (k * threads + threadIdx.x) * vec;\n";
    body += unravel("      ");
    for (unsigned k = 0; k < inputs; ++k) {
      const std::string kk = number(k), vt = vec_type(in_type(k)), offset = "jet_offset(idx, is" + kk + ")";
      if (counter_input(k)) {  // the element indices themselves
        const std::string first = v.input_access[k] == access::linear ? "(long long)i" : offset;
        const std::string step = v.input_access[k] == access::broadcast ? "" : " + j";
        body += unrolled_statement("j", shape.vec, "      ", "v" + kk + "[k].v[j] = " + first + step + ";");
        continue;
      }
      switch (v.input_access[k]) {
        case access::linear: body += "      v" + kk + "[k] = *reinterpret_cast<const " + vt + "*>(in" + kk + " + i);\n"; break;
        case access::unit: body += "      v" + kk + "[k] = *reinterpret_cast<const " + vt + "*>(in" + kk + " + " + offset + ");\n"; break;
        case access::broadcast:
          body += "      {\n        const " + in_type(k) + " b = in" + kk + "[" + offset + "];\n" +
                  unrolled_statement("j", shape.vec, "        ", "v" + kk + "[k].v[j] = b;") + "      }\n";
          break;
        default: body += "      v" + kk + "[k].v[0] = in" + kk + "[" + offset + "];\n"; break;
      }
    }
    return src + unrolled("k", shape.ilp, "    ", body);
  }
  // jet_element's input arguments for element j of the k-th loaded vector.
  std::string tile_args() const {
    const std::string values = join(inputs, [](unsigned k) { return "v" + number(k) + "[k].v[j]"; });
    return (inputs ? ", " + values : values) + scalar_args();
  }
  // jet_element's input arguments for element i, read one at a time (`offset` maps input k's
  // strides to its offset; linear inputs are at i).
  template <class Offset> std::string element_args(Offset offset) const {
    const std::string values = join(inputs, [&](unsigned k) {
      const bool linear = v.input_access[k] == access::linear;
      const std::string at = linear ? std::string("i") : offset(k);
      return counter_input(k) ? (linear ? "(long long)i" : at) : "in" + number(k) + "[" + at + "]";
    });
    return (inputs ? ", " + values : values) + scalar_args();
  }
  std::string strided_offset(unsigned k) const { return "jet_offset(idx, is" + number(k) + ")"; }
};

// The reduction's device functions over its accumulator type T: identity, map, combine, the
// result from the total, and the combination of a warp's and a block's values (a fixed tree: the
// same order every run).
std::string reduction_functions(const kernel_desc& d) {
  const reduction_spelling& r = reduction_spellings[static_cast<int>(d.reduction)];
  const reduction_typing t = resolve_reduction(d.reduction, d.nodes[d.out_nodes[0]].type);
  const std::string result = storage_type(t.result), finished = std::string(r.finish);
  return std::string(reduction_helpers) + "typedef " + storage_type(t.accumulator) + " T;\n" +
         "__device__ __forceinline__ T jet_identity() { return " + std::string(r.identity) + "; }\n" +
         "__device__ __forceinline__ T jet_map(T a) { return " + std::string(r.map) + "; }\n" +
         "__device__ __forceinline__ T jet_combine(T a, T b) { return " + std::string(r.combine) + "; }\n" +
         "__device__ __forceinline__ " + result + " jet_finish(T a, double n) {\n  const auto f = " + finished +
         ";\n  return " +
         (stored_as_bits(t.result) ? rounded(t.result, "(float)f") : "jet_convert<" + result + ">(f)") + ";\n}\n" +
         "__device__ __forceinline__ T jet_warp_combine(T a) {\n"
         "#pragma unroll\n"
         "  for (int m = 16; m > 0; m /= 2) a = jet_combine(a, T(__shfl_xor_sync(0xffffffffu, a, m)));\n"
         "  return a;\n"
         "}\n"
         "// The block's values combined, in thread 0.\n"
         "template <unsigned threads> __device__ __forceinline__ T jet_block_combine(T a) {\n"
         "  __shared__ T warps[threads / 32];\n"
         "  a = jet_warp_combine(a);\n"
         "  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = a;\n"
         "  __syncthreads();\n"
         "  if (threadIdx.x < 32) a = jet_warp_combine(threadIdx.x < threads / 32 ? warps[threadIdx.x] : jet_identity());\n"
         "  __syncthreads();  // warps[] is free for the next call\n"
         "  return a;\n"
         "}\n";
}

// One tile of edge x edge elements of the two inner dimensions per block (rows along the outer of
// the two, columns along the inner), its batch dimensions unravelled from the block's number. A
// warp reads or writes a row of the tile for the direct (gather) operands, whose steps along the
// index space's inner dimension are short, and a column of it for the transposed ones, whose
// contiguous dimension is the outer one: both are coalesced, and a transposed operand's column
// turns into a row through shared memory.
std::string tiled_body(const kernel_parts& parts) {
  const kernel_desc& d = parts.d;
  const variant_key& v = parts.v;
  const unsigned inputs = parts.inputs;
  const std::string& rank = parts.rank;
  const std::string outer = number(v.rank - 2u), inner = number(v.rank - 1u);
  struct operand_names {
    std::string pointer, strides, base, tile, type;
    bool transposed, counter;
  };
  // An operand's offset and element at row r, column c of the tile.
  auto offset = [&](const operand_names& o) {
    return o.base + " + r * " + o.strides + ".s[" + outer + "] + c * " + o.strides + ".s[" + inner + "]";
  };
  auto element = [&](const operand_names& o) { return o.pointer + "[" + offset(o) + "]"; };
  std::vector<operand_names> ins, outs;
  for (unsigned k = 0; k < inputs; ++k) {
    const std::string kk = number(k);
    ins.push_back({"in" + kk, "is" + kk, "base_in" + kk, "tile_in" + kk, parts.in_type(k),
                   v.input_access[k] == access::transposed, parts.counter_input(k)});
  }
  for (unsigned k = 0; k < d.out_count; ++k) {
    const std::string kk = number(k);
    outs.push_back({"out" + kk, "os" + kk, "base_out" + kk, "tile_out" + kk, parts.out_type(k),
                    v.output_access[k] == access::transposed, false});
  }
  // A loop over this thread's elements of the tile whose body runs only inside the index space.
  auto pass = [](bool along_columns, const std::string& body) {
    return std::string("#pragma unroll\n  for (unsigned p = 0; p < passes; ++p) {\n") +
           (along_columns ? "    const unsigned r = lane, c = first + p * rows;\n"
                          : "    const unsigned r = first + p * rows, c = lane;\n") +
           "    if (r < rows_in && c < columns_in) {\n" + body + "    }\n  }\n";
  };

  std::string src = "  constexpr unsigned threads = " + number(tile_threads) + ", edge = " + number(tile_edge) +
                    ", rows = threads / edge, passes = edge / rows;  // rows of the tile per pass\n";
  src += std::string("  using index = ") + (v.index32 ? "unsigned" : "unsigned long long") + ";\n";
  src += "  jet_extents<" + rank + "> tiles = extents;\n";
  src += "  tiles.e[" + outer + "] = (extents.e[" + outer + "] + edge - 1) / edge;\n";
  src += "  tiles.e[" + inner + "] = (extents.e[" + inner + "] + edge - 1) / edge;\n";
  src += "  index idx[" + rank + "];  // the tile's first element\n";
  src += "  jet_unravel<index, " + rank + ">(index(blockIdx.x), tiles, idx);\n";
  src += "  idx[" + outer + "] *= edge;\n  idx[" + inner + "] *= edge;\n";
  src += "  // the tile's rows and columns inside the index space: fewer than edge at its far edges\n";
  src += "  const index rows_in = extents.e[" + outer + "] - idx[" + outer + "], columns_in = extents.e[" + inner +
         "] - idx[" + inner + "];\n";
  src += "  const unsigned lane = threadIdx.x % edge, first = threadIdx.x / edge;\n";
  for (const auto* group : {&outs, &ins})
    for (const operand_names& o : *group) src += "  const long long " + o.base + " = jet_offset(idx, " + o.strides + ");\n";
  src += "  // shared tiles [column][row], padded so that a warp reading a row of one meets each bank once\n";
  for (const auto* group : {&ins, &outs})
    for (const operand_names& o : *group)
      if (o.transposed) src += "  __shared__ " + o.type + " " + o.tile + "[edge][edge + 1];\n";

  std::string loads, registers;
  for (unsigned k = 0; k < inputs; ++k)
    if (ins[k].transposed) loads += "      " + ins[k].tile + "[c][r] = " + element(ins[k]) + ";\n";
  if (!loads.empty()) src += pass(true, loads);
  for (unsigned k = 0; k < inputs; ++k) {
    if (ins[k].transposed) continue;
    src += "  " + ins[k].type + " v" + number(k) + "[passes];\n";
    registers += "      v" + number(k) + "[p] = " + (ins[k].counter ? offset(ins[k]) : element(ins[k])) + ";\n";
  }
  if (!registers.empty()) src += "  // every load of the tile is in flight before the barrier\n" + pass(false, registers);
  if (!loads.empty()) src += "  __syncthreads();\n";

  std::string compute;
  for (unsigned k = 0; k < d.out_count; ++k) compute += "      " + outs[k].type + " result" + number(k) + ";\n";
  const std::string values = join(inputs, [&](unsigned k) { return ins[k].transposed ? ins[k].tile + "[c][r]" : "v" + number(k) + "[p]"; });
  compute += "      jet_element(" + join(d.out_count, [](unsigned k) { return "result" + number(k); }) +
             (inputs ? ", " + values : values) + parts.scalar_args() + ");\n";
  std::string stores;
  for (unsigned k = 0; k < d.out_count; ++k) {
    const std::string result = "result" + number(k);
    if (outs[k].transposed) {
      compute += "      " + outs[k].tile + "[c][r] = " + result + ";\n";
      stores += "      " + element(outs[k]) + " = " + outs[k].tile + "[c][r];\n";
    } else {
      compute += "      " + element(outs[k]) + " = " + result + ";\n";
    }
  }
  src += pass(false, compute);
  if (!stores.empty()) src += "  __syncthreads();\n" + pass(true, stores);
  return src + "}\n";
}

// A chunk of the index space's inner dimension (a row) per block, for rows at least a block's
// threads long: blocks along x take the chunks of a row, along y its rows (each every gridDim.y-th
// from its own). Each operand's place at the row is found once per row (no division for rank 2),
// and its elements follow by constant offsets along the row: no index arithmetic per element. A
// full chunk reads ilp vectors per thread, every load in flight before the first use; the last
// chunk of a row reads element by element, masked, neighbouring threads at neighbouring columns.
std::string rows_body(const kernel_parts& parts) {
  const kernel_desc& d = parts.d;
  const variant_key& v = parts.v;
  const kernel_shape shape = shape_of(v);
  const std::string& rank = parts.rank;
  const std::string inner = number(v.rank - 1u);
  struct operand_names {
    std::string name, strides, type;  // in0, is0, float
    access how;
    bool counter;  // a counter's "pointer" is its offset: its value
    std::string row() const { return name + "_row"; }
    std::string at() const { return name + "_at"; }
  };
  std::vector<operand_names> ins, outs;
  for (unsigned k = 0; k < parts.inputs; ++k)
    ins.push_back({"in" + number(k), "is" + number(k), parts.in_type(k), v.input_access[k], parts.counter_input(k)});
  for (unsigned k = 0; k < d.out_count; ++k)
    outs.push_back({"out" + number(k), "os" + number(k), parts.out_type(k), v.output_access[k], false});
  // An operand's offset from its column 0 to `column`.
  auto along = [&](const operand_names& o, const std::string& column) -> std::string {
    if (o.how == access::broadcast) return "0";
    if (o.how == access::gather) return "(long long)(" + column + ") * " + o.strides + ".s[" + inner + "]";
    return column;  // linear or unit
  };
  // `const float* __restrict__ in0_row = in0 + ...`, or `long long in2_row = ...` for a counter.
  auto pointer = [&](const operand_names& o, bool output, const std::string& what, const std::string& value) {
    const std::string type = o.counter ? "long long" : (output ? "" : "const ") + o.type + "*" + parts.restrict_;
    return "    " + type + " " + what + " = " + value + ";\n";
  };

  std::string src = "  constexpr unsigned threads = " + number(shape.threads) + ", ilp = " + number(shape.ilp) +
                    ", vec = " + number(shape.vec) + ", chunk = threads * ilp * vec;\n";
  src += std::string("  using index = ") + (v.index32 ? "unsigned" : "unsigned long long") + ";\n";
  src += "  const index columns = index(extents.e[" + inner + "]);\n";
  src += "  index rows = 1;  // the product of every extent but the inner one\n";
  src += "#pragma unroll\n  for (int d = 0; d < " + inner + "; ++d) rows *= index(extents.e[d]);\n";
  src += "  jet_extents<" + rank + "> row_extents = extents;\n";
  src += "  row_extents.e[" + inner + "] = 1;  // a row's multi-index is 0 in the inner dimension\n";
  src += "  const index first = index(blockIdx.x) * chunk;  // the chunk's first column\n";
  for (unsigned k = 0; k < parts.inputs; ++k) src += "  " + kernel_parts::vec_type(ins[k].type) + " v" + number(k) + "[ilp];\n";
  src += "  for (index row = blockIdx.y; row < rows; row += gridDim.y) {\n";
  src += "    index idx[" + rank + "];\n    jet_unravel<index, " + rank + ">(row, row_extents, idx);\n";
  for (const auto* group : {&outs, &ins})
    for (const operand_names& o : *group) {
      const std::string offset = o.how == access::linear ? "(long long)row * columns" : "jet_offset(idx, " + o.strides + ")";
      src += pointer(o, group == &outs, o.row(), o.counter ? offset : o.name + " + " + offset);
    }

  // A full chunk: this thread's k-th vector at column c + k * threads * vec.
  src += "    if (columns - first >= chunk) {\n";
  src += "      const index c = first + threadIdx.x * vec;\n";
  for (const auto* group : {&outs, &ins})
    for (const operand_names& o : *group) src += "  " + pointer(o, group == &outs, o.at(), o.row() + " + " + along(o, "c"));
  src += "#pragma unroll\n      for (unsigned k = 0; k < ilp; ++k) {\n";
  for (unsigned k = 0; k < parts.inputs; ++k) {
    const operand_names& o = ins[k];
    const std::string vk = "v" + number(k) + "[k]", vt = kernel_parts::vec_type(o.type);
    if (o.counter)
      src += "#pragma unroll\n        for (unsigned j = 0; j < vec; ++j) " + vk + ".v[j] = " + o.at() + " + " +
             along(o, "k * threads * vec + j") + ";\n";
    else if (o.how == access::broadcast)
      src += "        { const " + o.type + " b = *" + o.at() + ";\n#pragma unroll\n          for (unsigned j = 0; j < vec; ++j) " +
             vk + ".v[j] = b; }\n";
    else if (o.how == access::gather)
      src += "        " + vk + ".v[0] = " + o.at() + "[" + along(o, "k * threads * vec") + "];\n";
    else
      src += "        " + vk + " = *reinterpret_cast<const " + vt + "*>(" + o.at() + " + k * threads * vec);\n";
  }
  src += "      }\n#pragma unroll\n      for (unsigned k = 0; k < ilp; ++k) {\n";
  for (unsigned k = 0; k < d.out_count; ++k) src += "        " + kernel_parts::vec_type(outs[k].type) + " r" + number(k) + ";\n";
  src += "#pragma unroll\n        for (unsigned j = 0; j < vec; ++j)\n          jet_element(" +
         join(d.out_count, [](unsigned k) { return "r" + number(k) + ".v[j]"; }) + parts.tile_args() + ");\n";
  for (unsigned k = 0; k < d.out_count; ++k) {
    const operand_names& o = outs[k];
    const std::string rk = "r" + number(k);
    if (o.how == access::gather)
      src += "        " + o.at() + "[" + along(o, "k * threads * vec") + "] = " + rk + ".v[0];\n";
    else
      src += "        *reinterpret_cast<" + kernel_parts::vec_type(o.type) + "*>(" + o.at() + " + k * threads * vec) = " + rk + ";\n";
  }
  src += "      }\n";

  // The row's last chunk: element j of this thread's k-th vector at column c, masked.
  const std::string column = "          const index c = first + threadIdx.x + (k * vec + j) * threads;\n";
  auto each_element = [&](const std::string& body) {
    return "#pragma unroll\n      for (unsigned k = 0; k < ilp; ++k)\n#pragma unroll\n        for (unsigned j = 0; j < vec; ++j) {\n" +
           column + "          if (c < columns) {\n" + body + "          }\n        }\n";
  };
  src += "    } else {\n";
  std::string loads;
  for (unsigned k = 0; k < parts.inputs; ++k) {
    const operand_names& o = ins[k];
    const std::string at = along(o, "c");
    loads += "            v" + number(k) + "[k].v[j] = " + (o.counter ? o.row() + " + " + at : o.row() + "[" + at + "]") + ";\n";
  }
  src += each_element(loads);
  std::string compute;
  for (unsigned k = 0; k < d.out_count; ++k) compute += "            " + outs[k].type + " r" + number(k) + ";\n";
  compute += "            jet_element(" + join(d.out_count, [](unsigned k) { return "r" + number(k); }) + parts.tile_args() + ");\n";
  for (unsigned k = 0; k < d.out_count; ++k)
    compute += "            " + outs[k].row() + "[" + along(outs[k], "c") + "] = r" + number(k) + ";\n";
  src += each_element(compute);
  src += "    }\n  }\n}\n";
  return src;
}

}  // namespace

std::string generate_reduction_source(const kernel_desc& d, const variant_key& v) {
  const kernel_parts parts{d, v};
  const reduction_typing t = resolve_reduction(d.reduction, d.nodes[d.out_nodes[0]].type);
  const std::string element = parts.out_type(0), rank = parts.rank;
  constexpr const char* axis_names[] = {"", "all elements", "the inner axis", "an outer axis"};
  std::string src = parts.prelude(std::string(reduction_spellings[static_cast<int>(d.reduction)].tag) + " over " +
                                  axis_names[static_cast<int>(v.axis)] + ", " + std::string(name(t.result)));
  src += reduction_functions(d);
  const std::string index = std::string("  using index = ") + (v.index32 ? "unsigned" : "unsigned long long") + ";\n";
  std::string params = "extern \"C\" __global__ void __launch_bounds__(" + number(reduction_threads) + ")\n" +
                       kernel_name + "(" + storage_type(t.result) + "* __restrict__ out" + parts.input_params() +
                       ", const unsigned long long n";
  if (parts.indexed) params += ", const jet_extents<" + rank + "> extents";
  // One element's contribution: jet_element into e, then mapped and combined into acc.
  auto accumulate = [&](const std::string& indent, const std::string& acc, const std::string& args) {
    return indent + "{ " + element + " e; jet_element(e" + args + "); " + acc + " = jet_combine(" + acc +
           ", jet_map(T(e))); }\n";
  };

  if (v.axis == reduce_axis::all) {
    // A grid of at most a few blocks per multiprocessor strides over the tiles; each block's
    // partial goes to `partials`, and the last block to take a ticket combines them in block
    // order (one launch, and no float atomics: the same result every run). It then resets the
    // ticket for the next launch.
    const kernel_shape shape{reduction_threads, reduction_ilp, v.vec};
    src += params + ", T* __restrict__ partials, unsigned* __restrict__ ticket) {\n";
    src += "  constexpr unsigned threads = " + number(shape.threads) + ", ilp = " + number(shape.ilp) +
           ", vec = " + number(shape.vec) + ", tile = threads * ilp * vec;\n";
    if (parts.indexed) src += index;
    src += "  T acc[ilp];\n#pragma unroll\n  for (unsigned k = 0; k < ilp; ++k) acc[k] = jet_identity();\n";
    src += "  const unsigned long long full = n / tile * tile;\n";
    src += "  for (unsigned long long base = (unsigned long long)blockIdx.x * tile; base < full;\n"
           "       base += (unsigned long long)gridDim.x * tile) {\n";
    src += parts.tile_loads(shape);
    src += "#pragma unroll\n    for (unsigned k = 0; k < ilp; ++k)\n#pragma unroll\n      for (unsigned j = 0; j < vec; ++j)\n";
    src += accumulate("        ", "acc[k]", parts.tile_args());
    src += "  }\n";
    src += "  // the elements after the last full tile, one per thread\n";
    src += "  for (unsigned long long i = full + (unsigned long long)blockIdx.x * threads + threadIdx.x; i < n;\n"
           "       i += (unsigned long long)gridDim.x * threads) {\n";
    src += parts.unravel("    ");
    src += accumulate("    ", "acc[0]", parts.element_args([&](unsigned k) { return parts.strided_offset(k); }));
    src += "  }\n";
    src += "#pragma unroll\n  for (unsigned k = 1; k < ilp; ++k) acc[0] = jet_combine(acc[0], acc[k]);\n";
    // Thread 0 publishes the block's partial with a release and takes its ticket with an acquire
    // in one atomic (acq_rel, at GPU scope): the last block's acquire sees every partial stored
    // before an earlier ticket, and its barrier passes that on to the block's other threads. (A
    // __threadfence() before and after a plain atomicAdd also orders them, 0.3 us slower at 2^20.)
    src += "  const T total = jet_block_combine<threads>(acc[0]);\n"
           "  __shared__ bool last;\n"
           "  if (threadIdx.x == 0) {\n"
           "    partials[blockIdx.x] = total;\n"
           "    unsigned taken;\n"
           "    asm volatile(\"atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;\" : \"=r\"(taken) : \"l\"(ticket) : \"memory\");\n"
           "    last = taken == gridDim.x - 1;\n"
           "  }\n"
           "  __syncthreads();\n"
           "  if (!last) return;\n"
           "  T a = jet_identity();\n"
           "  for (unsigned b = threadIdx.x; b < gridDim.x; b += threads) a = jet_combine(a, ((volatile T*)partials)[b]);\n"
           "  a = jet_block_combine<threads>(a);\n"
           "  if (threadIdx.x == 0) {\n"
           "    out[0] = jet_finish(a, (double)n);\n"
           "    *ticket = 0;  // ready for the next launch: no memset needed\n"
           "  }\n"
           "}\n";
    return src;
  }

  // Along an axis: the index space is (results..., axis); result `row` combines the elements
  // row * length + j. A group of `step` threads takes a row, thread `first` of it the elements j =
  // first, first + step, ..., `unroll` loads in flight. Inner: a group of `lanes` threads (a
  // multiple of 32) per row, combined by warp shuffles and then across its warps; outer: 32
  // neighbouring rows per block, each split over the block's 8 warps and combined in shared memory.
  const bool inner = v.axis == reduce_axis::inner;
  src += params + (inner ? ", const unsigned lanes" : "") + ") {\n";
  if (inner)
    // Rows read a vector at a time (every input contiguous along them, each row aligned) keep 4
    // vectors in flight a thread; rows read an element at a time, 8 elements.
    src += "  constexpr unsigned threads = " + number(reduction_threads) + ", unroll = " + (v.vec > 1 ? "4" : "8") +
           ", vec = " + number(v.vec) + ";\n" + index +
           "  const unsigned first = threadIdx.x & (lanes - 1), step = lanes;\n"
           "  const unsigned long long row = (unsigned long long)blockIdx.x * (threads / lanes) + threadIdx.x / lanes;\n";
  else
    src += "  constexpr unsigned threads = " + number(reduction_threads) + ", unroll = 8;\n" + index +
           "  constexpr unsigned columns = 32, step = threads / columns;\n"
           "  const unsigned first = threadIdx.x / columns;\n"
           "  const unsigned long long row = (unsigned long long)blockIdx.x * columns + threadIdx.x % columns;\n";
  src += "  const unsigned long long length = extents.e[" + number(v.rank - 1u) + "];\n";
  src += "  T acc[unroll];\n#pragma unroll\n  for (unsigned u = 0; u < unroll; ++u) acc[u] = jet_identity();\n";
  // A row of no elements (an axis of extent 0) reads nothing: its result is the identity's, and
  // unravelling its first element would divide by the extent.
  src += "  if (row < n && length != 0) {\n    const unsigned long long i = row * length;\n" + parts.unravel("    ");
  for (unsigned k = 0; k < parts.inputs; ++k)
    src += "    const long long b" + number(k) + " = " + parts.strided_offset(k) + ";\n";
  // Element j of the row, read through input k's stride along the axis.
  const auto element_at = [&](const std::string& j) {
    return parts.element_args([&](unsigned k) {
      return "b" + number(k) + " + (long long)(" + j + ") * is" + number(k) + ".s[" + number(v.rank - 1u) + "]";
    });
  };
  if (inner) {
    // Item c of the row is its element c, or its vector c (elements c * vec ...). While all of a
    // thread's `unroll` items are in the row, they are read unmasked, every load in flight before
    // the first use (masked loads, each a branch, were issued one use at a time: a row sum on the
    // H200 ran at 3.5 TB/s by vectors masked, 4.4 unmasked); then the rest, at most unroll - 1
    // items a thread.
    src += std::string("    const unsigned long long items = length") + (v.vec > 1 ? " / vec" : "") + ";\n";
    src += "    unsigned long long c = first;\n"
           "    for (; c + (unroll - 1) * step < items; c += unroll * step) {\n";
    std::string last = "    for (; c < items; c += step) {\n";
    if (v.vec > 1) {
      // The k-th vector of this thread's items into vK[k], then its elements into acc[k].
      std::string loads;
      for (unsigned k = 0; k < parts.inputs; ++k) {
        const std::string vt = kernel_parts::vec_type(parts.in_type(k));
        src += "      " + vt + " v" + number(k) + "[unroll];\n";
        loads += "        v" + number(k) + "[k] = *reinterpret_cast<const " + vt + "*>(in" + number(k) + " + b" +
                 number(k) + " + (c + k * step) * vec);\n";
      }
      const std::string use = "#pragma unroll\n        for (unsigned j = 0; j < vec; ++j)\n" +
                              accumulate("          ", "acc[k]", parts.tile_args());
      src += "#pragma unroll\n      for (unsigned k = 0; k < unroll; ++k) {\n" + loads +
             "      }\n#pragma unroll\n      for (unsigned k = 0; k < unroll; ++k) {\n" + use + "      }\n";
      for (unsigned k = 0; k < parts.inputs; ++k)
        last += "      " + kernel_parts::vec_type(parts.in_type(k)) + " v" + number(k) + "[1];\n";
      last += "      const unsigned k = 0;\n      {\n" + loads + "      }\n      {\n" + use + "      }\n";
    } else {
      src += "#pragma unroll\n      for (unsigned k = 0; k < unroll; ++k)\n" +
             accumulate("        ", "acc[k]", element_at("c + k * step"));
      last += accumulate("      ", "acc[0]", element_at("c"));
    }
    src += "    }\n" + last + "    }\n  }\n";
  } else {
    // An outer axis keeps its masked loop (8 warps of a block each read 128 bytes of a row of the
    // axis); its unmasked forms have not yet measured faster.
    src += "    for (unsigned long long j = first; j < length; j += unroll * step) {\n"
           "#pragma unroll\n      for (unsigned u = 0; u < unroll; ++u) {\n"
           "        const unsigned long long jj = j + u * step;\n"
           "        if (jj < length)\n";
    src += accumulate("          ", "acc[u]", element_at("jj"));
    src += "      }\n    }\n  }\n";
  }
  src += "#pragma unroll\n  for (unsigned u = 1; u < unroll; ++u) acc[0] = jet_combine(acc[0], acc[u]);\n";
  if (inner)
    src += "  T a = jet_warp_combine(acc[0]);\n"
           "  __shared__ T warps[threads / 32];\n"
           "  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = a;\n"
           "  __syncthreads();\n"
           "  if (first == 0 && row < n) {\n"
           "    for (unsigned w = 1; w < lanes / 32; ++w) a = jet_combine(a, warps[threadIdx.x / 32 + w]);\n"
           "    out[row] = jet_finish(a, (double)length);\n"
           "  }\n}\n";
  else
    src += "  __shared__ T slices[threads];\n"
           "  slices[threadIdx.x] = acc[0];\n"
           "  __syncthreads();\n"
           "  if (first == 0 && row < n) {\n"
           "    T a = acc[0];\n"
           "    for (unsigned s = 1; s < step; ++s) a = jet_combine(a, slices[s * columns + threadIdx.x]);\n"
           "    out[row] = jet_finish(a, (double)length);\n"
           "  }\n}\n";
  return src;
}

std::string generate_source(const kernel_desc& d, const variant_key& v) {
  if (d.reduction != reduction_id::none) return generate_reduction_source(d, v);
  const kernel_parts parts{d, v};
  const kernel_shape shape = shape_of(v);
  auto out_type = [&](unsigned k) { return parts.out_type(k); };
  bool outputs_strided = false;
  for (unsigned k = 0; k < d.out_count; ++k) outputs_strided |= v.output_access[k] != access::linear;
  std::string src = parts.prelude(join(d.out_count, [&](unsigned k) { return std::string(name(d.out_types[k])); }));

  // Parameters: outputs, distinct inputs (each with its strides when not linear), scalars, n, and
  // the index space's extents when an operand is strided.
  std::string params;
  for (unsigned k = 0; k < d.out_count; ++k) {
    params += (k ? ", " : "") + out_type(k) + "*" + parts.restrict_ + " out" + number(k);
    if (v.output_access[k] != access::linear) params += ", const jet_strides<" + parts.rank + "> os" + number(k);
  }
  params += parts.input_params() + ", const unsigned long long n";
  if (parts.indexed) params += ", const jet_extents<" + parts.rank + "> extents";

  src += "extern \"C\" __global__ void __launch_bounds__(" + number(v.tiled ? tile_threads : shape.threads) + ")\n";
  src += std::string(kernel_name) + "(" + params + ") {\n";
  if (v.tiled) return src + tiled_body(parts);
  if (v.rows) return src + rows_body(parts);
  src += "  constexpr unsigned threads = " + number(shape.threads) + ", ilp = " + number(shape.ilp) +
         ", vec = " + number(shape.vec) + ", tile = threads * ilp * vec;\n";
  if (parts.indexed) src += std::string("  using index = ") + (v.index32 ? "unsigned" : "unsigned long long") + ";\n";
  // Blocks below n / tile take a full tile each; the others, after them, an element per thread.
  // No loop: NVVM and ptxas compile a loop, even one that runs once, slower than straight code.
  // The count fits in 32 bits, as a grid has fewer than 2^31 blocks (and the test is shorter).
  src += "  const unsigned full = n / tile;  // the full tiles, one block each\n";
  src += "  if (blockIdx.x < full) {\n";
  src += "    // a full tile: no mask; every load of the thread is in flight before the first use\n";
  src += "    const unsigned long long base = (unsigned long long)blockIdx.x * tile;  // pid * BLOCK\n";
  src += parts.tile_loads(shape);
  std::string body = "      const unsigned long long i = base + (k * threads + threadIdx.x) * vec;\n";
  if (outputs_strided) body += parts.unravel("      ");
  for (unsigned k = 0; k < d.out_count; ++k) body += "      " + kernel_parts::vec_type(out_type(k)) + " r" + number(k) + ";\n";
  body += unrolled_statement("j", shape.vec, "      ", "jet_element(" + join(d.out_count, [](unsigned k) {
                                return "r" + number(k) + ".v[j]";
                              }) + parts.tile_args() + ");");
  for (unsigned k = 0; k < d.out_count; ++k) {
    const std::string kk = number(k), vt = kernel_parts::vec_type(out_type(k));
    switch (v.output_access[k]) {
      case access::linear: body += "      *reinterpret_cast<" + vt + "*>(out" + kk + " + i) = r" + kk + ";\n"; break;
      case access::unit:
        body += "      *reinterpret_cast<" + vt + "*>(out" + kk + " + jet_offset(idx, os" + kk + ")) = r" + kk + ";\n";
        break;
      default: body += "      out" + kk + "[jet_offset(idx, os" + kk + ")] = r" + kk + ".v[0];\n"; break;
    }
  }
  src += unrolled("k", shape.ilp, "    ", body);
  src += "  } else {\n";
  src += "    // the last tile, an element per thread: offsets = base + arange, mask = offsets < n\n";
  src += "    const unsigned long long i = (unsigned long long)full * tile + (blockIdx.x - full) * threads + threadIdx.x;\n";
  src += "    if (i < n) {\n";
  src += parts.unravel("      ");
  src += "      jet_element(" + join(d.out_count, [&](unsigned k) {
           const std::string kk = number(k);
           return "out" + kk + "[" + (v.output_access[k] == access::linear ? "i" : "jet_offset(idx, os" + kk + ")") + "]";
         }) + parts.element_args([&](unsigned k) { return parts.strided_offset(k); }) + ");\n";
  src += "    }\n  }\n}\n";
  return src;
}

std::string_view op_tag(op_id op) { return spelling(op).tag; }

bool interpretable_op(op_id op, const interpreter_family& f) {
  const op_spelling& s = spelling(op);
  if (s.cuda.empty() || s.rule == "random") return false;  // leaves, user functions, Philox
  return is_floating(f.compute) || s.rule != "floating";   // integers compute floating ops in float64
}

bool interpreter_stores(const interpreter_family& f, dtype t) {
  return t == dtype::boolean || compute_type(t) == f.compute;
}

// The interpreter's kernel (interpreter.hpp says how it runs). What an instruction costs is its
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

std::string interpreter_source(const interpreter_family& f) {
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

  // Per stored dtype: its type in memory, a stored element as a value (a bool is 0 or 1) and a
  // value as stored, with the conversions the fused kernels use.
  std::string load_cases, store_cases, cast_cases;
  for (unsigned t = 0; t < dtype_count; ++t) {
    const dtype d = dtype(t);
    if (!interpreter_stores(f, d)) continue;
    const std::string storage = "jet_storage_" + std::string(name(d)), stored = storage_type(d);
    src += "struct " + storage + " {\n  typedef " + stored + " type;\n";
    src += "  static __device__ __forceinline__ jet_value from(type s) { return jet_value(" + widened(d, "s") + "); }\n";
    src += "  static __device__ __forceinline__ type to(jet_value v) { return " +
           (stored_as_bits(d) ? rounded(d, "v") : "jet_convert<type>(v)") + "; }\n};\n";
    const std::string id = number(t);
    load_cases += "        case " + id + ":\n          jet_load<full, " + storage + ">(t, p.inputs[in.a], base, p.n);\n          if (two) jet_load<full, " +
                  storage + ">(u, p.inputs[in.b], base, p.n);\n          break;\n";
    store_cases += "        case " + id + ": jet_store<full, " + storage + ">(t, p.outputs[in.dst], base, p.n); break;\n";
    cast_cases += "          case " + id + ":\n#pragma unroll\n            for (unsigned j = 0; j < elements; ++j) acc[j] = " +
                  storage + "::from(" + storage + "::to(acc[j]));\n            break;\n";
  }
  src += R"cuda(// A thread's element j of a tile starting at `base`: on a full tile of aligned operands, vector
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
  src += "  jet_value acc[elements];\n";
  src += "#pragma unroll 1\n  for (unsigned pc = 0; pc < p.count; ++pc) {\n    const jet_instruction in = p.code[pc];\n";
  src += "    jet_value b[elements], c[elements];\n    switch (in.op) {\n";
  // Both loads are issued before either result is saved, so that two are in flight at once; a
  // load of one input (a == b) issues it once.
  src += "      case " + number(static_cast<unsigned>(op_id::input)) + ": {\n      jet_value t[elements], u[elements];\n"
         "      const bool two = in.a != in.b;\n      switch (in.type) {\n" + load_cases + "      }\n"
         "      jet_save(in.dst, t);\n      if (two) jet_save(in.c, u);\n      break;\n    }\n";
  src += "      case " + number(fetch_op) + ":\n        jet_operand(acc, p, in.a);\n        break;\n";
  src += "      case " + number(save_op) + ":\n        jet_save(in.dst, acc);\n        break;\n";
  src += "      case " + number(store_op) + ": {\n      jet_value t[elements];\n"
         "      if (in.a == " + number(interpreter_accumulator) + ") jet_copy(t, acc);\n      else jet_operand(t, p, in.a);\n"
         "      switch (in.type) {\n" + store_cases + "      }\n      break;\n    }\n";
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
      src += "      case " + number(op) + ":  // cast\n        switch (in.type) {\n" + cast_cases + "        }\n        break;\n";
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
  src += R"cuda(// Asks L2 for the inputs of the tile at `later` (whole tiles only), which a block launched later
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
  src += "extern \"C\" __global__ void __launch_bounds__(threads) " + std::string(interpreter_kernel_name) +
         "(const __grid_constant__ jet_program p) {\n"
         "  const unsigned long long base = (unsigned long long)blockIdx.x * tile;\n"
         "  jet_prefetch(p, base + (unsigned long long)p.prefetch_distance * tile);\n"
         "  if (p.aligned && p.n - base >= tile) jet_run<true>(p, base);\n"
         "  else jet_run<false>(p, base);\n}\n";
  return src;
}

}  // namespace jet::detail
