// Result rules of the op table: the operand and result dtypes of a node, from its operands.
#pragma once

#include <jet/dtype.hpp>

namespace jet::detail {

enum class rule { arith, same, floating, compare, select, target, random };

struct typing {
  dtype result;
  dtype args[3];
};

/// Operand dtypes `in` (with weak flags for C++ scalars) → the dtype each operand is converted to
/// and the node's result. `target` is only read by the `target` rule.
constexpr typing resolve(rule r, int arity, const dtype* in, const bool* weak, dtype target) {
  const int first = r == rule::select ? 1 : 0;  // select's condition takes no part in promotion
  dtype common = in[first];
  bool common_weak = weak[first];
  for (int k = first + 1; k < arity; ++k) {
    common = promote(common, common_weak, in[k], weak[k]);
    common_weak = common_weak && weak[k];
  }
  if (r == rule::arith) common = to_arithmetic(common);
  if (r == rule::floating) common = to_floating(common);
  typing t{common, {common, common, common}};
  if (r == rule::compare) t.result = dtype::boolean;
  if (r == rule::select) t.args[0] = dtype::boolean;
  if (r == rule::target) t = typing{target, {in[0], in[0], in[0]}};
  if (r == rule::random) t = typing{dtype::float32, {dtype::int64, dtype::int64, dtype::int64}};
  return t;
}

}  // namespace jet::detail
