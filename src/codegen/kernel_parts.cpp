#include "codegen/kernel_parts.hpp"

#include "codegen/spelling.hpp"
#include "codegen/user_function.hpp"

#include <string>

namespace jet::detail {
namespace {

bool uses_dtype(const kernel_desc& d, dtype t) {
  for (unsigned k = 0; k < d.out_count; ++k)
    if (d.out_types[k] == t) return true;
  for (unsigned i = 0; i < d.node_count; ++i)
    if (d.nodes[i].type == t) return true;
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
std::string operand(const kernel_desc& d, const variant_key& v, const node& n, int k) {
  const std::string name = value_name(d, v, n.arg[k]);
  const dtype from = compute_type(d.nodes[n.arg[k]].type), to = compute_type(n.arg_type[k]);
  if (from == to) return name;
  const bool floating_to_integer = is_floating(from) && !is_floating(to) && to != dtype::boolean;
  return (floating_to_integer ? "jet_convert<" : "static_cast<") + value_type(to) + ">(" + name + ")";
}


// The dtype of scalar slot k.
dtype scalar_type(const kernel_desc& d, unsigned k) {
  unsigned i = 0;
  while (d.nodes[i].op != op_id::scalar || d.nodes[i].arg[0] != k) ++i;
  return d.nodes[i].type;
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

}  // namespace

dtype distinct_type(const kernel_desc& d, const variant_key& v, unsigned k) {
  unsigned slot = 0;
  while (v.unique_of[slot] != k) ++slot;
  return d.input_types[slot];
}


std::string kernel_parts::prelude(const std::string& what) const {
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
  if (indexed) src += index_helpers;

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

std::string kernel_parts::input_params() const {
  std::string params;
  for (unsigned k = 0; k < inputs; ++k) {
    if (!counter_input(k)) params += ", const " + in_type(k) + "*" + restrict_ + " in" + number(k);
    if (v.input_access[k] != access::linear) params += ", const jet_strides<" + rank + "> is" + number(k);
  }
  for (unsigned k = 0; k < d.scalar_count; ++k) params += ", const " + value_type(scalar_type(d, k)) + " s" + number(k);
  return params;
}

std::string kernel_parts::tile_loads(const kernel_shape& shape) const {
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

}  // namespace jet::detail
