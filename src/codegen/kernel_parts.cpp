#include "codegen/kernel_parts.hpp"

#include "codegen/complex_source.hpp"
#include "codegen/spelling.hpp"
#include "codegen/user_function.hpp"
#include "settings.hpp"
#include "shared_values.hpp"

#include <bit>
#include <string>
#include <vector>

namespace jet::detail {
namespace {

template <class Wanted> bool uses_dtype(const kernel_desc& d, Wanted wanted) {
  for (unsigned k = 0; k < d.out_count; ++k)
    if (wanted(d.out_types[k])) return true;
  for (unsigned i = 0; i < d.node_count; ++i)
    if (wanted(d.nodes[i].type)) return true;
  return false;
}

// The name under which a node's value is known inside jet_element.
std::string value_name(const kernel_desc& d, const variant_key& v, unsigned index) {
  const node& n = d.nodes[index];
  if (n.op == op_id::input || n.op == op_id::counter) return std::string("x").append(number(v.unique_of[n.arg[0]]));
  if (n.op == op_id::scalar) return std::string("s").append(number(n.arg[0]));
  return std::string("t").append(number(index));
}

// Operand k of node n, converted to the node's operand dtype as a cast converts: from floating to
// integer through jet_convert (truncating, saturating, NaN to 0: a plain conversion of a value
// out of range is undefined, and the GPU's own does not take NaN to 0), otherwise by C++'s
// conversion (integers wrap).
std::string operand(const kernel_desc& d, const variant_key& v, const node& n, int k,
                    const std::vector<std::uint16_t>& source) {
  const std::string name = value_name(d, v, source[n.arg[k]]);
  const dtype from = compute_type(d.nodes[n.arg[k]].type), to = compute_type(n.arg_type[k]);
  if (from == to) return name;
  const bool floating_to_integer = is_floating(from) && is_integral(to) && to != dtype::boolean;
  return (floating_to_integer ? "jet_convert<" : "static_cast<") + value_type(to) + ">(" + name + ")";
}

const char* access_name(access a) {
  constexpr const char* names[] = {"linear", "unit", "broadcast", "gather", "transposed"};
  return names[static_cast<int>(a)];
}

// The index space's helpers, for kernels with strided operands.
constexpr std::string_view index_helpers = R"cuda(template <int R> struct jet_strides { long long s[R]; };
template <int R> struct jet_extents { unsigned long long e[R]; };
// The multi-index of element i of the index space, and an operand's offset at it.
template <class I, int R> __device__ __forceinline__ void jet_unravel(I i, const jet_extents<R>& x, I (&idx)[R]) {
#pragma unroll
  for (int d = R - 1; d > 0; --d) { const I e = (I)x.e[d], q = i / e; idx[d] = i - q * e; i = q; }
  idx[0] = i;
}
template <class I, int R> __device__ __forceinline__ long long jet_offset(const I (&idx)[R], const jet_strides<R>& s) {
  long long o = 0;
#pragma unroll
  for (int d = 0; d < R; ++d) o += (long long)idx[d] * s.s[d];
  return o;
}
)cuda";

// The nodes jet_element computes, with their operands and statements: `const T tI = jet_op(...)`.
// A 16-bit input arrives as its bits (stored_xK) and is widened once.
void formula_lines(source_writer& w, const kernel_parts& p, const std::vector<std::uint16_t>& source) {
  const kernel_desc& d = p.d;
  const variant_key& v = p.v;
  for (unsigned k = 0; k < p.inputs; ++k)
    if (stored_as_bits(distinct_type(d, v, k)))
      w.line("const float x", k, " = ", widened(distinct_type(d, v, k), "stored_x" + number(k)), ";");
  for (unsigned i = 0; i < d.node_count; ++i) {
    const node& n = d.nodes[i];
    if (n.op == op_id::input || n.op == op_id::scalar || n.op == op_id::counter || source[i] != i) continue;
    const std::string function =
        n.op == op_id::user ? std::string("user_") + d.functions[n.function]->name : std::string(spelling(n.op).tag);
    std::string call = "jet_" + function + "(";
    for (int k = 0; k < n.arity; ++k) call += (k ? ", " : "") + operand(d, v, n, k, source);
    call += ")";
    // Only a cast rounds to a 16-bit type inside an expression: other 16-bit nodes keep float32.
    if (n.op == op_id::cast) call = widened(n.type, rounded(n.type, call));
    w.line("const ", value_type(n.type), " t", i, " = ", call, ";");
  }
}

// Output k's value as stored: a 16-bit float is rounded from float32; any other conversion goes
// through jet_convert.
std::string stored_output(const kernel_parts& p, unsigned k, const std::vector<std::uint16_t>& source) {
  const kernel_desc& d = p.d;
  const std::string value = value_name(d, p.v, source[d.out_nodes[k]]);
  if (stored_as_bits(d.out_types[k])) return rounded(d.out_types[k], value);
  if (d.nodes[d.out_nodes[k]].type != d.out_types[k]) return "jet_convert<" + p.out_type(k) + ">(" + value + ")";
  return value;
}

// How a kernel compiles its formula. One that costs more than outline_cost computes its nodes in
// jet_formula, a function of its own that jet_element calls, so NVRTC compiles them once rather
// than in each of the kernel's inlined copies of jet_element (9 in an elementwise kernel); a call
// costs a few instructions next to such a formula's hundreds. Inside it, an op of called_op_cost
// or more that computes several nodes is a function of its own too, that each of them calls:
// NVRTC's time on such a formula is mostly the libdevice bodies it inlines at each use (about
// 20 ms for each sin or cos on the development machine), while a call costs the caller 2 to 3
// instructions, next to bodies of 90 to 110 (of which a sine's usual path, small arguments, runs
// about 30). Cheaper formulas are inlined whole, as small kernels at the copy ceiling need.
struct formula_plan {
  std::vector<std::uint16_t> source;             // value_sources
  unsigned computed[std::size(spellings)] = {};  // the nodes that compute each op
  bool outlined = false;

  formula_plan(const kernel_desc& d, const variant_key& v) : source(value_sources(d, v.shared)) {
    unsigned cost = 0;
    for (unsigned i = 0; i < d.node_count; ++i) {
      if (source[i] != i) continue;
      cost += op_cost(d.nodes[i].op);
      ++computed[static_cast<int>(d.nodes[i].op)];
    }
    outlined = cost > outline_cost_setting().value_or(outline_cost);
  }
  bool called(std::size_t op) const { return outlined && computed[op] > 1 && op_cost(op_id(op)) >= called_op_cost; }
};

// jet_element(outputs, inputs, scalars): one named temporary per node, and each output converted as
// stored; in jet_formula where the plan outlines it.
void element_function(source_writer& w, const kernel_parts& p, const formula_plan& plan) {
  const kernel_desc& d = p.d;
  const variant_key& v = p.v;
  const std::vector<std::uint16_t>& source = plan.source;
  const bool outlined = plan.outlined;

  auto input_name = [&](unsigned k) { return (stored_as_bits(distinct_type(d, v, k)) ? "stored_x" : "x") + number(k); };
  std::string values, arguments;  // jet_element's parameters after its outputs, and their names
  for (unsigned k = 0; k < p.inputs; ++k) {
    values += ", " + p.in_type(k) + " " + input_name(k);
    arguments += ", " + input_name(k);
  }
  values += p.scalar_params("");
  arguments += p.scalar_args();
  const std::string outputs = join(d.out_count, [&](unsigned k) { return p.out_type(k) + "& o" + number(k); });
  w.line();
  if (outlined) {
    std::string members;
    for (unsigned k = 0; k < d.out_count; ++k) members += p.out_type(k) + " o" + number(k) + "; ";
    w.line("struct jet_outputs { ", members, "};");
    w.open("__device__ __noinline__ jet_outputs jet_formula(", values.empty() ? "" : values.substr(2), ") {");
    formula_lines(w, p, source);
    w.line("return {", join(d.out_count, [&](unsigned k) { return stored_output(p, k, source); }), "};");
    w.close();
    w.open("__device__ __forceinline__ void jet_element(", outputs, values, ") {");
    w.line("const jet_outputs r = jet_formula(", arguments.empty() ? "" : arguments.substr(2), ");");
    for (unsigned k = 0; k < d.out_count; ++k) w.line("o", k, " = r.o", k, ";");
  } else {
    w.open("__device__ __forceinline__ void jet_element(", outputs, values, ") {");
    formula_lines(w, p, source);
    for (unsigned k = 0; k < d.out_count; ++k) w.line("o", k, " = ", stored_output(p, k, source), ";");
  }
  w.close();
  w.line();
}

}  // namespace

dtype distinct_type(const kernel_desc& d, const variant_key& v, unsigned k) {
  unsigned slot = 0;
  while (v.unique_of[slot] != k) ++slot;
  return d.input_types[slot];
}

dtype scalar_type(const kernel_desc& d, unsigned k) {
  unsigned i = 0;
  while (d.nodes[i].op != op_id::scalar || d.nodes[i].arg[0] != k) ++i;
  return d.nodes[i].type;
}

void kernel_parts::prelude(source_writer& w, const std::string& what) const {
  auto access_names = [](unsigned count, const access* a) {
    return join(count, [&](unsigned k) { return std::string(access_name(a[k])); });
  };
  w.line("// jet kernel: ", describe(d), " -> ", what);
  w.line("// variant: vec ", v.vec, ", rank ", rank, ", inputs (", access_names(inputs, v.input_access), "), outputs (",
         access_names(d.out_count, v.output_access), ")",
         indexed ? v.index32 ? ", 32-bit index" : ", 64-bit index" : "",
         v.out_aliases_input ? ", an output aliases an input" : "",
         v.tiled ? ", tiles of the two inner dimensions" : "", v.rows ? ", chunks of a row per block" : "",
         v.shared
             ? ", " + number(static_cast<unsigned>(std::popcount(v.shared))) + " repeated subexpressions computed once"
             : "");
  w.line("template <class T, int N> struct alignas(sizeof(T) * N) jet_vec { T v[N]; };");
  for (const float16_format& f : float16_formats)
    if (uses_dtype(d, [&](dtype t) { return t == f.type; })) w.raw(conversion_functions(f));
  if (indexed) w.raw(index_helpers);

  w.raw(op_helpers);
  if (uses_dtype(d, [](dtype t) { return is_complex(t); })) w.raw(complex_helpers);
  bool used[std::size(spellings)] = {};
  for (unsigned i = 0; i < d.node_count; ++i) used[static_cast<int>(d.nodes[i].op)] = true;
  const formula_plan plan(d, v);
  for (std::size_t op = 0; op < std::size(spellings); ++op)
    if (used[op] && !spellings[op].cuda.empty())
      w.raw(op_function(spellings[op], plan.called(op)));  // leaves and user functions have none
  for (unsigned k = 0; k < d.function_count; ++k) w.raw(user_function_source(*d.functions[k]));
  element_function(w, *this, plan);
}

std::string kernel_parts::scalar_params(const char* qualifier) const {
  std::string params;
  for (unsigned k = 0; k < d.scalar_count; ++k)
    if (scalar_taken[k]) params += ", " + (qualifier + value_type(scalar_type(d, k))) + " s" + number(k);
  return params;
}

std::string kernel_parts::input_params() const {
  std::string params;
  for (unsigned k = 0; k < inputs; ++k) {
    if (!counter_input(k)) params += ", const " + in_type(k) + "*" + restrict_ + " in" + number(k);
    if (v.input_access[k] != access::linear) params += ", const jet_strides<" + rank + "> is" + number(k);
  }
  return params + scalar_params("const ");
}

void kernel_parts::open_kernel(source_writer& w, unsigned threads, const std::string& outputs,
                               std::string_view more) const {
  w.line("extern \"C\" __global__ void __launch_bounds__(", threads, ")");
  w.open(kernel_name, "(", outputs, input_params(), ", const unsigned long long n",
         indexed ? ", const jet_extents<" + rank + "> extents" : "", more, ") {");
}

void kernel_parts::tile_loads(source_writer& w, const kernel_shape& shape) const {
  for (unsigned k = 0; k < inputs; ++k) w.line(vec_type(in_type(k)), " v", k, "[ilp];");
  w.unrolled("k", shape.ilp, [&] {
    w.line("const unsigned long long i = base + (k * threads + threadIdx.x) * vec;");
    unravel(w);
    for (unsigned k = 0; k < inputs; ++k) {
      const std::string kk = number(k), vt = vec_type(in_type(k)), offset = strided_offset(k);
      if (counter_input(k)) {  // the element indices themselves
        const std::string first = v.input_access[k] == access::linear ? "(long long)i" : offset;
        const std::string step = v.input_access[k] == access::broadcast ? "" : " + j";
        w.unrolled_statement("j", shape.vec, "v" + kk + "[k].v[j] = " + first + step + ";");
        continue;
      }
      switch (v.input_access[k]) {
        case access::linear: w.line("v", kk, "[k] = *reinterpret_cast<const ", vt, "*>(in", kk, " + i);"); break;
        case access::unit:
          w.line("v", kk, "[k] = *reinterpret_cast<const ", vt, "*>(in", kk, " + ", offset, ");");
          break;
        case access::broadcast:
          w.open("{");
          w.line("const ", in_type(k), " b = in", kk, "[", offset, "];");
          w.unrolled_statement("j", shape.vec, "v" + kk + "[k].v[j] = b;");
          w.close();
          break;
        default: w.line("v", kk, "[k].v[0] = in", kk, "[", offset, "];"); break;
      }
    }
  });
}

void declare_shape(source_writer& w, const kernel_shape& shape, std::string_view tile) {
  w.line("constexpr unsigned threads = ", shape.threads, ", ilp = ", shape.ilp, ", vec = ", shape.vec, ", ", tile,
         " = threads * ilp * vec;");
}

}  // namespace jet::detail
