// The host evaluation of a kernel description's real nodes, at run time (host_evaluation.hpp
// evaluates whole descriptions; host_evaluation_complex.hpp the nodes with complex values): each
// node's op dispatched to the op table's host reference (ops.def expanded into a switch), floating
// nodes computed in float64 and integer and bool nodes exactly in their own type, as reference.hpp
// does for expression types.
//
// Beside each value it carries a bound on how far an evaluation in the nodes' own dtypes may lie
// from it: each floating op adds rounding_ulps ulps of its dtype, and operand errors propagate by
// evaluating the host reference at the ends of each operand's error interval (exact for the ops of
// two and three operands, which are monotone in each operand where they are continuous) and, for
// one operand, at points across the interval: where those do not rise or fall monotonically (sin,
// cos, abs around 0) the ends bound nothing and the value is unknown. An integer or bool value is
// exact or unknown (its ends disagree). A bound that is not finite marks a value the dtypes
// cannot determine: it may overflow its dtype, or it sits on a discontinuity (a comparison of
// nearly equal values, a NaN that appears under a perturbation).
#pragma once

#include "op_accuracy.hpp"
#include "reference.hpp"  // per_dtype

#include <jet/detail/kernel_desc.hpp>
#include <jet/ops.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace jet::test {

static_assert(std::numeric_limits<long double>::digits >= 64, "values must hold int64 and float64 exactly");

/// The per-dtype floor: ulps of its dtype each floating node may be off by. float32 and float64:
/// 8, twice CUDA's largest documented error among the table's functions (powf, 4 ulp), so that the
/// float64 reference's own rounding fits too. float16 and bfloat16: 1. A 16-bit node computes in
/// float32 and is rounded to its dtype, to nearest, where it is stored (in the unfused evaluation,
/// every node; fused, only casts and the output): half an ulp, and float32's own error of a few
/// float32 ulps is at most 2^-11 of a 16-bit ulp more.
inline double rounding_ulps(dtype t) { return size_of(t) == 2 ? 1 : 8; }

/// A value, the bound on its error (infinite: undetermined), and the value rounded to the dtype it
/// was computed in: one that the GPU may well hold. A complex value is its real part so, and its
/// imaginary part in the same three (each part bounded on its own); a real one's imaginary part is
/// an exact 0.
struct bounded {
  long double value;
  double radius;
  long double rounded;
  long double imag = 0;
  double imag_radius = 0;
  long double rounded_imag = 0;
  bool determined() const { return std::isfinite(radius) && std::isfinite(imag_radius); }
};

inline constexpr double unknown = std::numeric_limits<double>::infinity();

/// One ulp of dtype t at |v|, and at least the dtype's smallest normal number: results below it
/// may lose all their bits (sigmoid(-95.f) is 0: exp(95.f) overflows). 0 for integers and bool.
inline double ulp(dtype t, long double v) {
  struct spacing {
    double epsilon, smallest_normal;
  };
  static const auto table = per_dtype([](auto x) {
    using L = std::numeric_limits<decltype(x)>;
    if constexpr (std::is_integral_v<decltype(x)>)
      return spacing{0, 0};
    else
      return spacing{static_cast<double>(static_cast<float>(L::epsilon())), static_cast<double>(L::min())};
  });
  const spacing& s = table[static_cast<std::size_t>(t)];
  return std::max<double>(std::fabs(static_cast<double>(v)) * s.epsilon, s.smallest_normal);
}

/// The largest and the lowest finite value of dtype t.
inline long double largest(dtype t) {
  static const auto table =
      per_dtype([](auto x) { return static_cast<long double>(std::numeric_limits<decltype(x)>::max()); });
  return table[static_cast<std::size_t>(t)];
}
inline long double smallest(dtype t) {
  static const auto table =
      per_dtype([](auto x) { return static_cast<long double>(std::numeric_limits<decltype(x)>::lowest()); });
  return table[static_cast<std::size_t>(t)];
}

/// The precision an evaluation computes floating nodes in: float64 (the reference), or each
/// node's own dtype (as the GPU does; for checking the bound on the host).
enum class precision { float64, own_dtypes };

/// v, a value of dtype `from`, as a value of dtype `to`, converted as jet converts (ops.def): from
/// floating to integer it truncates, saturates and takes NaN to 0; from integer or bool to integer
/// it wraps modulo 2^bits (as C++20 converts); to bool it is v != 0. Floating values are rounded to
/// float64, or in own_dtypes precision to `to` (a 16-bit float through float32, as the GPU rounds).
inline long double as_dtype(dtype from, dtype to, long double v, precision p = precision::float64) {
  if (to == dtype::boolean) return v != 0;
  if (is_floating(to)) {
    if (p == precision::float64 || to == dtype::float64) return static_cast<double>(v);
    return visit_real(to, [&](auto x) {
      return static_cast<long double>(static_cast<float>(static_cast<decltype(x)>(static_cast<float>(v))));
    });
  }
  if (is_floating(from))
    return visit_real(to, [&](auto x) { return static_cast<long double>(host::convert<decltype(x)>(v)); });
  // An integer of at most 64 bits, signed or not: its two's complement bits, converted back.
  const std::uint64_t bits =
      v < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) : static_cast<std::uint64_t>(v);
  return visit_real(to, [&](auto x) { return static_cast<long double>(static_cast<decltype(x)>(bits)); });
}

/// The dtype a node of dtype t computes in at precision p: its compute type, or float64 for every
/// floating dtype in the reference's precision.
inline dtype computed_as(dtype t, precision p) {
  if (!is_floating(t)) return t;
  return p == precision::own_dtypes ? compute_type(t) : dtype::float64;
}

/// Op's host reference on operands a converted to T, as a value of the node's dtype.
template <class Op, class T> long double reference_in(const detail::node& n, const long double* a, precision p) {
  auto operand = [&](int k) { return static_cast<T>(a[k]); };
  auto result = [&]() {
    if constexpr (Op::rule == detail::rule::select)
      return Op::reference(a[0] != 0, operand(1), operand(2));
    else if constexpr (Op::arity == 1)
      return Op::reference(operand(0));
    else if constexpr (Op::arity == 2)
      return Op::reference(operand(0), operand(1));
    else
      return Op::reference(operand(0), operand(1), operand(2));
  }();
  return as_dtype(dtype_of<decltype(result)>(), n.type, result, p);
}

/// Op's host reference on operands a (already of the node's operand dtypes), as a value of the
/// node's dtype; only for dtypes in the op's domain (ops.def).
template <class Op> long double reference_of(const detail::node& n, const long double* a, precision p) {
  // Operands share one dtype but for select's condition, which is bool.
  const precision computed = computes_in_own_dtype<Op> ? precision::own_dtypes : p;
  return visit_real<true>(computed_as(n.arg_type[Op::arity - 1], computed), [&](auto type) -> long double {
    using T = decltype(type);
    if constexpr (detail::accepts(Op::domain, dtype_of<T>()) && !makes_complex(Op::rule))
      return reference_in<Op, T>(n, a, p);
    else
      throw std::logic_error(std::string(Op::name) + " on " + std::string(name(dtype_of<T>())) +
                             ": outside its domain");
  });
}

/// Node n's op on operand values a, by the op table's host reference.
inline long double apply_reference(const detail::node& n, const long double* a, precision p = precision::float64) {
  switch (n.op) {
#define JET_OP1(tag, ...)  \
  case detail::op_id::tag: \
    return reference_of<ops::tag>(n, a, p);
#define JET_OP2 JET_OP1
#define JET_OP3 JET_OP1
#include <jet/ops.def>
#undef JET_OP1
#undef JET_OP2
#undef JET_OP3
    default: throw std::logic_error("apply_reference: a leaf has no op");
  }
}

/// How far x is from c: 0 for the same value (infinities included) and for two NaNs, unknown when
/// only one is NaN.
inline double distance(long double x, long double c) {
  if (std::isnan(x) || std::isnan(c)) return std::isnan(x) && std::isnan(c) ? 0 : unknown;
  if (x == c) return 0;
  return static_cast<double>(std::fabs(x - c));
}

/// The magnitude op node n's rounding errors scale with: its result's, but where the op adds to
/// an operand a term that may cancel it, the larger of that and the result: logaddexp and
/// logaddexp2 add a logarithm to the larger operand (logaddexp(a, a) = a + log 2 is 0.0034 at
/// a = -0.6898, its terms' rounding 2.3e-17: fuzz case 9405417742478179059), and remainder adds
/// the divisor to fmod's result of the other sign (remainder(logit(e), a) = 0.00095, 4e-17 off:
/// 11551202110370031603).
inline long double rounding_magnitude(const detail::node& n, long double value, const bounded* operands) {
  long double term = 0;
  if (n.op == detail::op_id::logaddexp || n.op == detail::op_id::logaddexp2)
    term = std::max(std::fabs(operands[0].value), std::fabs(operands[1].value));
  else if (n.op == detail::op_id::remainder)
    term = std::fabs(operands[1].value);
  return std::isfinite(term) ? std::max(std::fabs(value), term) : value;
}

/// The error op node n may add to its result `value`: the dtype's floor above, or more where CUDA
/// documents more for the op's function (op_accuracy.hpp), plus its absolute error; in ulps of
/// `value` as rounding_magnitude gives it.
inline double op_error(const detail::node& n, long double value) {
  const double own_ulp = ulp(n.type, value), float32_ulp = ulp(dtype::float32, value);
  const bool float64 = n.type == dtype::float64;
  const double documented = allowed_error(n.op, float64, float64 ? own_ulp : float32_ulp);
  return std::max(rounding_ulps(n.type) * own_ulp, documented);
}

/// The bound after a floating value of dtype t is rounded to t (by an op, or a conversion): the
/// error so far plus `ulps` ulps, unknown where the value may overflow t.
inline double rounded(dtype t, long double value, double radius, double ulps) {
  if (!is_floating(t) || std::isinf(value) || std::isnan(value)) return radius;
  const double r = radius + ulps * ulp(t, value);
  return std::fabs(value) + r > largest(t) ? unknown : r;
}

/// A value of dtype `from` converted to dtype `to`, as a node's operand or as the output.
inline bounded convert(bounded v, dtype from, dtype to) {
  if (from == to) return v;
  const long double value = as_dtype(from, to, v.value),
                    plausible = as_dtype(from, to, v.rounded, precision::own_dtypes);
  const bool exact =
      as_dtype(from, to, v.value, precision::own_dtypes) == v.value;  // bool, small integers, float32 to float64
  if (is_floating(to)) return {value, rounded(to, value, v.radius, exact ? 0 : 1), plausible};
  if (v.radius == 0) return {value, 0, plausible};
  if (!v.determined()) return {value, unknown, plausible};
  // Integers and bool are exact or unknown: exact only where the whole interval converts alike
  // (to an integer, as its ends do; to bool, where it holds no 0).
  const bool alike = to == dtype::boolean ? std::fabs(v.value) > v.radius
                                          : as_dtype(from, to, v.value - v.radius) == value &&
                                                as_dtype(from, to, v.value + v.radius) == value;
  return {value, alike ? 0 : unknown, plausible};
}

/// The period of a periodic op (0 for the others; the Bessel functions oscillate too, with no
/// period: their 17 samples span less than a half wave wherever a float64 operand's radius is
/// small against their spacing of zeros, about pi).
inline long double period_of(detail::op_id op) {
  using detail::op_id;
  switch (op) {
    case op_id::sin:
    case op_id::cos: return 2 * std::numbers::pi_v<long double>;
    case op_id::tan: return std::numbers::pi_v<long double>;
    case op_id::sinpi:
    case op_id::cospi: return 2;
    default: return 0;
  }
}

/// How far a one-operand op may move from `value` as its floating operand o moves across its
/// interval: sampled at 17 points; unknown unless the samples rise or fall monotonically, and
/// unknown for a periodic op across an eighth of its period or more, where 17 samples may all
/// fall on the same phase (cospi of an interval of half-integers spaced by whole numbers: fuzz
/// case 15792821365334941356).
inline double unary_deviation(const detail::node& n, const bounded& o, long double value) {
  if (!o.determined()) return unknown;
  if (const long double period = period_of(n.op); period != 0 && 2 * o.radius >= period / 8) return unknown;
  double deviation = 0;
  int rising = 0, falling = 0;
  long double previous = 0;
  for (int k = -8; k <= 8; ++k) {
    const long double point = k == 0 ? o.value : o.value + o.radius * k / 8;
    const long double y = apply_reference(n, &point);
    deviation = std::max(deviation, distance(y, value));
    if (k > -8) rising += y > previous, falling += y < previous;
    previous = y;
  }
  return rising && falling ? unknown : deviation;
}

/// Values an unknown operand of dtype t may have, probed one by one: where the op gives the same
/// result for each (where's unselected branch), the operand does not matter.
inline const std::vector<long double>& probes(dtype t) {
  static const auto table = per_dtype([](auto x) {
    using T = decltype(x);
    using L = std::numeric_limits<T>;
    std::vector<long double> v;
    if constexpr (std::is_same_v<T, bool>) {
      v = {0, 1};
    } else if constexpr (std::is_integral_v<T>) {
      v = {static_cast<long double>(L::lowest()), 0, 1, static_cast<long double>(L::max())};
      if (std::is_signed_v<T>) v.push_back(-1);
    } else {
      for (long double m : {0.0L, static_cast<long double>(L::denorm_min()), 0.5L, 1.0L, 2.0L,
                            static_cast<long double>(L::max()), static_cast<long double>(L::infinity())})
        v.insert(v.end(), {m, -m});
      v.push_back(L::quiet_NaN());
    }
    return v;
  });
  return table[static_cast<std::size_t>(t)];
}

/// How far op node n may move from `value` as its operands move across their intervals: the
/// largest distance at the combinations of their ends (floating values at value ± radius, at ±0
/// inside them, where div, pow, log and rsqrt change, and at the first two whole numbers inside
/// them, an even and an odd one, where pow of a negative base is no NaN and takes its sign from
/// the exponent's parity; inexact integers and bools at the ends of their dtype's range; unknown
/// operands at each probe).
inline double corner_deviation(const detail::node& n, const bounded* operands, long double value) {
  std::vector<long double> candidates[3];
  for (int k = 0; k < n.arity; ++k) {
    const bounded& o = operands[k];
    const dtype t = n.arg_type[k];
    if (o.radius == 0)
      candidates[k] = {o.value};
    else if (!o.determined())
      candidates[k] = probes(t);
    else if (is_floating(t)) {
      const long double low = o.value - o.radius, high = o.value + o.radius;
      candidates[k] = {low, high};
      if (low <= 0 && 0 <= high) candidates[k].insert(candidates[k].end(), {-0.0L, 0.0L});
      for (const long double whole : {std::ceil(low), std::ceil(low) + 1})
        if (whole <= high) candidates[k].push_back(whole);
    } else
      candidates[k] = {smallest(t), largest(t)};
  }
  double deviation = 0;
  std::size_t index[3] = {0, 0, 0};
  long double corner[3];
  while (index[n.arity - 1] < candidates[n.arity - 1].size()) {  // every combination, the first operand fastest
    for (int k = 0; k < n.arity; ++k) corner[k] = candidates[k][index[k]];
    deviation = std::max(deviation, distance(apply_reference(n, corner), value));
    for (int k = 0; k < n.arity && ++index[k] == candidates[k].size() && k + 1 < n.arity; ++k) index[k] = 0;
  }
  return deviation;
}

/// Whether op node n's result depends on the sign bit of a NaN operand: copysign's sign operand,
/// signbit's operand. IEEE 754 (6.3) leaves a NaN's sign unspecified but through the sign-bit ops
/// (negate, abs, copySign), and each side picks its own: the host's invalid operations give x86's
/// default NaN, negative (0/0, fmod(x, 0) and glibc's atanh(-15) are -NaN, its asin(-6) +NaN),
/// CUDA's arithmetic a positive canonical NaN, and its library functions either (y0 of a negative
/// argument and erfinv past ±1 gave -NaN on an H100; fuzz cases 3586322519195342409,
/// 11713650791846947506, 3975687984652539121, tests/README.md). A NaN of the data is no better
/// defined once a conversion (no sign-bit op either) or an op has passed it on, so every NaN's
/// sign counts as unknown: such an element is undetermined.
inline bool reads_nan_sign(const detail::node& n, const bounded* operands) {
  if (n.op == detail::op_id::copysign) return std::isnan(operands[1].value);
  if (n.op == detail::op_id::signbit) return std::isnan(operands[0].value);
  return false;
}

/// Whether fmod or remainder node n wraps around its divisor b within its operands' intervals:
/// where a's radius, or b's times the quotient a / b, spans an eighth of |b| or more, the
/// intervals' corners may all fall on one phase of the sawtooth (remainder(b, erfcx(expm1(c))),
/// a quotient near 1e38 over a divisor known to a few ulps: fuzz case 10161047223800760513).
inline bool wraps_around_divisor(const detail::node& n, const bounded* operands) {
  if (n.op != detail::op_id::fmod && n.op != detail::op_id::remainder) return false;
  if (!operands[0].determined() || !operands[1].determined()) return false;  // probed instead
  const long double a = operands[0].value, b = operands[1].value;
  if (!std::isfinite(a) || !std::isfinite(b) || b == 0) return false;
  return operands[0].radius + std::fabs(a / b) * operands[1].radius >= std::fabs(b) / 8;
}

/// Op node n applied to its operands (already converted to its operand dtypes), with the bound.
/// Besides the intervals, the op is evaluated at its operands' rounded values: where float32's
/// granularity matters (pow of a negative base is NaN but at whole exponents, every float32 from
/// 2^24 up is whole, pow(1, NaN) is 1), the result there may differ. A floating result known to
/// less than 4 bits (deviation over 1/16 of it) is unknown: the intervals no longer bound what the
/// ops do across them.
inline bounded apply_bounded(const detail::node& n, const bounded* operands) {
  long double centers[3], rounded_centers[3];
  for (int k = 0; k < n.arity; ++k) {
    centers[k] = operands[k].value;
    rounded_centers[k] = operands[k].rounded;
  }
  const long double value = apply_reference(n, centers);
  const long double plausible = apply_reference(n, rounded_centers, precision::own_dtypes);
  const bool sampled = n.arity == 1 && is_floating(n.arg_type[0]) && operands[0].radius > 0;
  const double deviation =
      std::max(sampled ? unary_deviation(n, operands[0], value) : corner_deviation(n, operands, value),
               distance(apply_reference(n, rounded_centers), value));
  if (reads_nan_sign(n, operands) || wraps_around_divisor(n, operands)) return {value, unknown, plausible};
  if (!is_floating(n.type)) return {value, deviation == 0 ? 0 : unknown, plausible};
  if (deviation > std::fabs(value) / 16) return {value, unknown, plausible};
  if (std::isinf(value) || std::isnan(value)) return {value, deviation, plausible};
  const double radius = deviation + op_error(n, rounding_magnitude(n, value, operands));
  return {value, std::fabs(value) + radius > largest(n.type) ? unknown : radius, plausible};
}

}  // namespace jet::test
