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

unsigned op_cost(op_id op) {
  switch (op) {
    case op_id::sin:
    case op_id::cos:
    case op_id::tan:
    case op_id::lgamma:
    case op_id::tgamma:
    case op_id::j0:
    case op_id::j1:
    case op_id::y0:
    case op_id::y1: return 64;
    case op_id::pow:
    case op_id::float_power:
    case op_id::erfcx:
    case op_id::erfinv:
    case op_id::erfcinv:
    case op_id::normcdfinv:
    case op_id::i0:
    case op_id::i1: return 32;
    case op_id::atan2:
    case op_id::asinh:
    case op_id::acosh:
    case op_id::atanh:
    case op_id::erf:
    case op_id::erfc:
    case op_id::normcdf:
    case op_id::logaddexp:
    case op_id::logaddexp2:
    case op_id::logit:
    case op_id::fmod:  // a reduction loop for floats, 64-bit division for integers
    case op_id::remainder:
    case op_id::floor_divide:
    case op_id::power:  // square and multiply
    case op_id::gcd:    // Euclid's loop
    case op_id::lcm: return 16;
    case op_id::log:
    case op_id::log2:
    case op_id::log10:
    case op_id::log1p:
    case op_id::expm1:
    case op_id::asin:
    case op_id::acos:
    case op_id::atan:
    case op_id::sinh:
    case op_id::cosh:
    case op_id::cbrt:
    case op_id::rcbrt:
    case op_id::hypot:
    case op_id::sinpi:
    case op_id::cospi:
    case op_id::xlogy:
    case op_id::philox_uniform:
    case op_id::user: return 8;
    case op_id::sqrt:
    case op_id::div:
    case op_id::tanh:
    case op_id::sigmoid:
    case op_id::exp10:
    case op_id::ldexp: return 4;
    case op_id::exp:
    case op_id::exp2:
    case op_id::rsqrt: return 2;
    case op_id::input:
    case op_id::scalar:
    case op_id::counter: return 0;
    default: return 1;
  }
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
