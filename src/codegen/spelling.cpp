#include "codegen/spelling.hpp"

#include "codegen/source_text.hpp"

#include <string>

namespace jet::detail {

std::string storage_type(dtype t) { return std::string(cuda_name(t)); }
std::string value_type(dtype t) { return std::string(cuda_name(compute_type(t))); }

namespace {

std::string widen_function(dtype t) { return "jet_" + std::string(name(t)) + "_to_float"; }
std::string round_function(dtype t) { return "jet_float_to_" + std::string(name(t)); }

}  // namespace

std::string conversion_functions(const float16_format& f) {
  return "__device__ __forceinline__ float " + widen_function(f.type) + "(unsigned short h) {\n  " +
         std::string(f.widen) + "\n}\n__device__ __forceinline__ unsigned short " + round_function(f.type) +
         "(float f) {\n  unsigned short h;\n  asm(\"" + std::string(f.round) +
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

std::string op_function(const op_spelling& s, bool called) {
  static constexpr std::string_view types[] = {"A", "B", "C"}, names[] = {"a", "b", "c"};
  std::string params, tparams;
  for (int k = 0; k < s.arity; ++k) {
    tparams += std::string(k ? ", " : "") + "class " + std::string(types[k]);
    params += std::string(k ? ", " : "") + std::string(types[k]) + " " + std::string(names[k]);
  }
  // A spelling in braces is a function body (the op needs statements); otherwise an expression.
  const std::string body = s.cuda.starts_with("{") ? std::string(s.cuda) : "{ return " + std::string(s.cuda) + "; }";
  return "template <" + tparams + "> __device__ " + (called ? "__noinline__" : "__forceinline__") + " auto jet_" +
         std::string(s.tag) + "(" + params + ") " + body + "\n";
}

namespace {

std::string describe_node(const kernel_desc& d, unsigned index, bool top) {
  const node& n = d.nodes[index];
  if (n.op == op_id::input) return std::string("in").append(std::to_string(n.arg[0]));
  if (n.op == op_id::scalar) return std::string("s").append(std::to_string(n.arg[0]));
  if (n.op == op_id::counter) return std::string("counter").append(std::to_string(n.arg[0]));
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
  if (n.op == op_id::cast) call.append("<").append(name(n.type)).append(">");
  call += "(";
  for (int k = 0; k < n.arity; ++k) call += (k ? ", " : "") + args[k];
  return call + ")";
}

}  // namespace

std::string describe(const kernel_desc& d) {
  if (d.reduction != reduction_id::none)
    return std::string(reduction_spellings[static_cast<int>(d.reduction)].tag) + "(" +
           describe_node(d, d.out_nodes[0], true) + ")";
  if (d.out_count == 1) return describe_node(d, d.out_nodes[0], true);
  return std::string("(")
      .append(join(d.out_count, [&](unsigned k) { return describe_node(d, d.out_nodes[k], true); }))
      .append(")");
}

}  // namespace jet::detail
