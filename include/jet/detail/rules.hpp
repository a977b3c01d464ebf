// Result rules of the op table: the operand and result dtypes of a node, from its operands.
#pragma once

#include <jet/detail/kernel_desc.hpp>
#include <jet/dtype.hpp>

namespace jet::detail {

enum class rule {
  arith,
  same,
  floating,
  float64,
  compare,
  select,
  target,
  random,
  count,
  magnitude,
  phase,
  make_complex
};

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
  if (r == rule::arith || r == rule::magnitude) common = to_arithmetic(common);
  if (r == rule::floating || r == rule::phase || r == rule::make_complex) common = to_floating(common);
  if (r == rule::float64) common = is_complex(common) ? dtype::complex128 : dtype::float64;  // NumPy's float_power
  typing t{common, {common, common, common}};
  if (r == rule::compare) t.result = dtype::boolean;
  if (r == rule::count) t.result = dtype::uint8;  // NumPy's bitwise_count: a count of bits, up to 64
  if (r == rule::magnitude || r == rule::phase) t.result = real_type(common);  // abs of a complex is real
  if (r == rule::make_complex) t.result = complex_type(common);
  if (r == rule::select) t.args[0] = dtype::boolean;
  if (r == rule::target) t = typing{target, {in[0], in[0], in[0]}};
  if (r == rule::random) t = typing{dtype::float32, {dtype::int64, dtype::int64, dtype::int64}};
  for (int k = 0; k < arity; ++k)  // a complex operand stays complex, for the op's domain to judge
    if (is_complex(in[k]) && !is_complex(t.args[k])) t.args[k] = in[k];
  return t;
}

/// The dtypes an op accepts (ops.def's domain column). any is every real dtype; numeric adds the
/// complex ones, inexact is the floating and complex ones (NumPy's word). wide_floating is float32
/// and float64: ops that step by their dtype's own ulp, where a 16-bit float (which computes in
/// float32) would step by float32's.
enum class domain { any, numeric, integral, floating, inexact, wide_floating, boolean };

constexpr bool accepts(domain d, dtype t) {
  switch (d) {
    case domain::any: return !is_complex(t);
    case domain::integral: return is_integral(t);
    case domain::floating: return is_floating(t);
    case domain::inexact: return is_inexact(t);
    case domain::wide_floating: return t == dtype::float32 || t == dtype::float64;
    case domain::boolean: return t == dtype::boolean;
    case domain::numeric: break;
  }
  return true;
}

/// Whether an op of rule r and domain d accepts a node typed t: the dtypes its operands convert
/// to (the ones it computes on), but a select's condition. A complex value converts to a real
/// dtype only through real() (or abs, imag, arg), never by a cast.
constexpr bool accepts(domain d, rule r, int arity, const typing& t) {
  if (r == rule::target && is_complex(t.args[0]) && !is_complex(t.result)) return false;
  for (int k = r == rule::select ? 1 : 0; k < arity; ++k)
    if (!accepts(d, t.args[k])) return false;
  return true;
}

/// The reductions' result rules (reductions.def).
enum class reduction_rule { total, floating, magnitude, same, logical, index };

struct reduction_typing {
  dtype accumulator;  // what a kernel combines in; integer totals wrap in uint64's bits
  dtype result;
};

constexpr reduction_typing resolve_reduction(reduction_rule r, dtype element) {
  const bool floating = is_floating(element);
  if (is_complex(element) && r == reduction_rule::magnitude) return {dtype::float64, real_type(element)};
  if (is_complex(element) && r != reduction_rule::same && r != reduction_rule::logical && r != reduction_rule::index)
    return {dtype::complex128, element};
  switch (r) {
    case reduction_rule::total:
      if (floating) return {dtype::float64, element};
      return {dtype::uint64, traits_of(element).kind == category::integer && !traits_of(element).is_signed
                                 ? dtype::uint64
                                 : dtype::int64};
    case reduction_rule::floating:
    case reduction_rule::magnitude: return {dtype::float64, floating ? element : dtype::float64};
    case reduction_rule::same: return {compute_type(element), element};
    case reduction_rule::index: return {compute_type(element), dtype::int64};
    case reduction_rule::logical: break;
  }
  return {dtype::boolean, dtype::boolean};
}

/// The rule of each reduction, indexed by reduction_id.
inline constexpr reduction_rule reduction_rules[] = {
    reduction_rule::same,  // none: an elementwise kernel
#define JET_REDUCTION(tag, rule, ...) reduction_rule::rule,
#include <jet/reductions.def>
#undef JET_REDUCTION
};

/// The bytes of reduction id's accumulator over elements of dtype `element`: an arg reduction's
/// holds the value padded to 8 bytes, then the index (jet_indexed).
constexpr std::size_t accumulator_bytes(reduction_id id, dtype element) {
  if (reduction_rules[static_cast<int>(id)] == reduction_rule::index) return 16;
  return size_of(resolve_reduction(reduction_rules[static_cast<int>(id)], element).accumulator);
}

/// Whether a reduction of no elements has a value, indexed by reduction_id.
inline constexpr bool reduction_allows_empty[] = {
    true,
#define JET_REDUCTION(tag, rule, empty, ...) empty,
#include <jet/reductions.def>
#undef JET_REDUCTION
};

constexpr reduction_typing resolve_reduction(reduction_id id, dtype element) {
  return resolve_reduction(reduction_rules[static_cast<int>(id)], element);
}

}  // namespace jet::detail
