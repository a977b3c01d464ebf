// The host evaluation of a whole kernel description at one element, real and complex nodes alike
// (host_evaluation_real.hpp and host_evaluation_complex.hpp evaluate the nodes), with the bound
// of its result, the same element computed in the nodes' own dtypes with the host's math, and the
// fuzzer's judge of a GPU result against it.
#pragma once

#include "host_evaluation_complex.hpp"
#include "host_evaluation_real.hpp"

#include <jet/detail/kernel_desc.hpp>

#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

namespace jet::test {

/// Evaluates description d's nodes at one element in order: a leaf's value is leaf(node), an op
/// node's is op(node, its operands' values).
template <class Value, class Leaf, class Op>
void evaluate_nodes(const detail::kernel_desc& d, std::vector<Value>& values, Leaf&& leaf, Op&& op) {
  values.resize(d.node_count);
  for (unsigned i = 0; i < d.node_count; ++i) {
    const detail::node& n = d.nodes[i];
    if (n.op == detail::op_id::input || n.op == detail::op_id::scalar) {
      values[i] = leaf(n);
      continue;
    }
    Value operands[3];
    for (int a = 0; a < n.arity; ++a) operands[a] = values[n.arg[a]];
    values[i] = op(n, operands);
  }
}

/// The description's output k at one element, with its bound: input(slot) is the slot's value
/// there (exact; real or complex), scalars the scalar arguments'.
template <class Input> bounded evaluate_element(const detail::kernel_desc& d, unsigned k, Input&& input,
                                                const long double* scalars, std::vector<bounded>& values) {
  auto leaf = [&](const detail::node& n) {
    const complex_value v = n.op == detail::op_id::input ? complex_value(input(n.arg[0])) : scalars[n.arg[0]];
    return bounded{v.real(), 0, v.real(), v.imag(), 0, v.imag()};
  };
  evaluate_nodes(d, values, leaf, [&](const detail::node& n, bounded* operands) {
    for (int a = 0; a < n.arity; ++a) operands[a] = convert_value(operands[a], d.nodes[n.arg[a]].type, n.arg_type[a]);
    return has_complex(n) ? apply_complex_bounded(n, operands) : apply_bounded(n, operands);
  });
  const unsigned root = d.out_nodes[k];
  return convert_value(values[root], d.nodes[root].type, d.out_types[k]);
}

/// The same element computed as the GPU computes it, each node in its own dtype, with the host's
/// math: what the bound must cover.
template <class Input> complex_value evaluate_element_in_own_dtypes(const detail::kernel_desc& d, unsigned k,
                                                                    Input&& input, const long double* scalars,
                                                                    std::vector<complex_value>& values) {
  auto leaf = [&](const detail::node& n) {
    return n.op == detail::op_id::input ? complex_value(input(n.arg[0])) : scalars[n.arg[0]];
  };
  evaluate_nodes(d, values, leaf, [&](const detail::node& n, complex_value* operands) -> complex_value {
    for (int a = 0; a < n.arity; ++a)
      operands[a] = convert_value(operands[a], d.nodes[n.arg[a]].type, n.arg_type[a], precision::own_dtypes);
    if (has_complex(n)) return apply_complex_in_own_dtypes(n, operands);
    const long double real_operands[3] = {operands[0].real(), operands[1].real(), operands[2].real()};
    return apply_reference(n, real_operands, precision::own_dtypes);
  });
  const unsigned root = d.out_nodes[k];
  return convert_value(values[root], d.nodes[root].type, d.out_types[k], precision::own_dtypes);
}

/// The judge of one real value (or one part of a complex one) of dtype `out` (its part's dtype).
inline const char* misjudged_part(dtype out, long double ref, double radius, long double fused, long double unfused) {
  if (!is_floating(out)) return fused == ref && unfused == ref ? nullptr : "integer result differs";
  if (std::isnan(ref) || std::isnan(fused) || std::isnan(unfused))
    return std::isnan(ref) && std::isnan(fused) && std::isnan(unfused) ? nullptr : "NaN placement differs";
  const double fused_error = distance(fused, ref), unfused_error = distance(unfused, ref);
  if (unfused_error > radius) return "unfused (op by op) differs from the host reference beyond the bound";
  if (fused_error > 2 * unfused_error + radius) return "fused error exceeds 2 x unfused error + bound";
  return nullptr;
}

/// The fuzzer's judge of one output element of dtype `out`, evaluated fused (one kernel) and
/// unfused (one kernel per node), against its host evaluation `ref`: why they are wrong, or null.
/// Undetermined elements are not judged. Elsewhere NaN must be where the reference has it, the
/// unfused result within the bound (each op agrees with its host reference) and the fused error at
/// most twice the unfused one plus the bound; integers are exact. A complex result is judged part
/// by part, each against its own bound (NaN parts where the reference has them, as the complex
/// tests judge).
inline const char* misjudged(dtype out, const bounded& ref, complex_value fused, complex_value unfused) {
  if (!ref.determined()) return nullptr;
  const char* wrong = misjudged_part(real_type(out), ref.value, ref.radius, fused.real(), unfused.real());
  if (wrong || !is_complex(out)) return wrong;
  return misjudged_part(real_type(out), ref.imag, ref.imag_radius, fused.imag(), unfused.imag());
}

/// A value of dtype t as a failure prints it: a complex one as (re, im).
inline std::string value_text(dtype t, complex_value v) {
  char text[96];
  if (is_complex(t))
    std::snprintf(text, sizeof text, "(%.17Lg, %.17Lg)", v.real(), v.imag());
  else
    std::snprintf(text, sizeof text, "%.17Lg", v.real());
  return text;
}

/// The reference's value and bound as a failure prints them.
inline std::string reference_text(dtype t, const bounded& ref) {
  char bound[64];
  if (is_complex(t))
    std::snprintf(bound, sizeof bound, " (bounds %.3g, %.3g)", ref.radius, ref.imag_radius);
  else
    std::snprintf(bound, sizeof bound, " (bound %.3g)", ref.radius);
  return value_text(t, {ref.value, ref.imag}) + bound;
}

}  // namespace jet::test
