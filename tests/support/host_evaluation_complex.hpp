// The host evaluation of the nodes with complex values (a complex operand or result): references
// in std::complex<long double> (GCC's Annex G products and quotients, glibc's functions, the
// complex tests' expm1 and log1p), and a bound on each part.
//
// The bound of a part is the deviation of that part across the operands' error regions plus the
// op's own error. An operand's region is the rectangle of its parts' intervals (a real operand's,
// its interval), sampled at its center, corners and, for one operand, edge midpoints: for an op
// holomorphic there, |f(z) - f(center)| is largest on the boundary (the maximum modulus
// principle) and, as f is nearly linear across a small region, at a corner; a branch cut (log,
// sqrt, pow and angle along the negative real axis) or a pole inside shows as a jump between the
// points, beyond 1/16 of |w|, which makes the value unknown. The op's own error is norm-wise, as
// test_gpu_complex.cpp holds each op (tests/README.md): k epsilons of the parts' dtype times |w|,
// with k twice that test's, and for pow times 1 + |b log a| (the error of the exponent b log a
// grows with it); each part gets it whole.
//
// Infinite and NaN parts are judged only where jet's complex tests pin them down part by part:
// through exact ops and ops computed part by part (+, -, the parts, conj, make_complex, where,
// casts, comparisons). A product, quotient or function of a special part follows Annex G's cases,
// which test_gpu_complex.cpp checks on its grid of special values; here it is unknown.
#pragma once

#include "complex_check.hpp"  // expm1_reference, log1p_reference
#include "host_evaluation_real.hpp"

#include <jet/detail/kernel_desc.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>
#include <vector>

namespace jet::test {

using complex_value = std::complex<long double>;

/// Whether node n computes on or makes complex values: what this file evaluates.
inline bool has_complex(const detail::node& n) {
  bool any = is_complex(n.type);
  for (int k = 0; k < n.arity; ++k) any = any || is_complex(n.arg_type[k]);
  return any;
}

/// z^w as jet computes it: exp(w log z), and 0 for z = 0 and Re w > 0 (NumPy's).
template <class T> std::complex<T> complex_power(std::complex<T> z, std::complex<T> w) {
  if (z == std::complex<T>(0) && w.real() > 0) return 0;
  return std::exp(w * std::log(z));
}

/// Op of a complex node on operands a, computed in std::complex<T>: a real operand is its real
/// part (a condition, the parts of make_complex and polar), a real or bool result is the real part.
template <class T> std::complex<T> complex_op(detail::op_id op, const std::complex<T>* a) {
  using detail::op_id;
  using C = std::complex<T>;
  switch (op) {
    case op_id::add: return a[0] + a[1];
    case op_id::sub: return a[0] - a[1];
    case op_id::mul: return a[0] * a[1];
    case op_id::div:
    case op_id::true_divide: return a[0] / a[1];
    case op_id::neg: return -a[0];
    case op_id::positive:
    case op_id::cast: return a[0];
    case op_id::conj: return std::conj(a[0]);
    case op_id::square: return a[0] * a[0];
    case op_id::reciprocal: return C(1) / a[0];
    case op_id::equal: return C(a[0] == a[1]);
    case op_id::not_equal: return C(a[0] != a[1]);
    case op_id::where: return a[0].real() != 0 ? a[1] : a[2];
    case op_id::abs: return std::hypot(a[0].real(), a[0].imag());
    case op_id::abs2: return a[0].real() * a[0].real() + a[0].imag() * a[0].imag();
    case op_id::angle: return std::atan2(a[0].imag(), a[0].real());
    case op_id::real: return a[0].real();
    case op_id::imag: return a[0].imag();
    case op_id::exp: return std::exp(a[0]);
    case op_id::log: return std::log(a[0]);
    case op_id::sqrt: return std::sqrt(a[0]);
    case op_id::sin: return std::sin(a[0]);
    case op_id::cos: return std::cos(a[0]);
    case op_id::tan: return std::tan(a[0]);
    case op_id::sinh: return std::sinh(a[0]);
    case op_id::cosh: return std::cosh(a[0]);
    case op_id::tanh: return std::tanh(a[0]);
    case op_id::expm1: return complex_check::expm1_reference(a[0]);
    case op_id::log1p: return complex_check::log1p_reference(a[0]);
    case op_id::pow:
    case op_id::power:
    case op_id::float_power: return complex_power(a[0], a[1]);
    case op_id::make_complex: return {a[0].real(), a[1].real()};
    case op_id::polar: return {a[0].real() * std::cos(a[1].real()), a[0].real() * std::sin(a[1].real())};
    default: throw std::logic_error("complex_op: no complex reference for op " + std::to_string(static_cast<int>(op)));
  }
}

/// Whether op computes a complex node's value exactly from its operands' (no rounding).
inline bool exact_complex_op(detail::op_id op) {
  using detail::op_id;
  switch (op) {
    case op_id::neg:
    case op_id::positive:
    case op_id::conj:
    case op_id::real:
    case op_id::imag:
    case op_id::make_complex:
    case op_id::equal:
    case op_id::not_equal: return true;
    default: return false;
  }
}

/// Whether op turns a part of an operand into a phase (polar's angle, the imaginary part of exp's
/// argument, the real part of sin's ...): across an interval of a radian's sixteenth or more the
/// result turns around, which the region's corners and midpoints cannot see.
inline bool takes_a_phase(detail::op_id op) {
  using detail::op_id;
  switch (op) {
    case op_id::polar:
    case op_id::exp:
    case op_id::expm1:
    case op_id::sin:
    case op_id::cos:
    case op_id::tan:
    case op_id::sinh:
    case op_id::cosh:
    case op_id::tanh:
    case op_id::pow:
    case op_id::power:
    case op_id::float_power: return true;
    default: return false;
  }
}
inline constexpr double widest_phase = 1.0 / 16;

/// Whether op raises its first operand to its second: exp(w log z).
inline bool takes_a_power(detail::op_id op) {
  using detail::op_id;
  return op == op_id::pow || op == op_id::power || op == op_id::float_power;
}

/// Whether op passes infinite and NaN parts on as jet's complex tests pin them down: exactly, or
/// part by part as real arithmetic does.
inline bool passes_specials_part_by_part(detail::op_id op) {
  return exact_complex_op(op) || op == detail::op_id::add || op == detail::op_id::sub;
}

/// The error a complex node's op may add to each part of its result w (operands a): k ulps of the
/// parts' dtype at a magnitude M, 0 for an exact op (tests/README.md has the table).
inline double complex_op_error(const detail::node& n, complex_value w, const complex_value* a) {
  using detail::op_id;
  if (exact_complex_op(n.op)) return 0;
  double k = 32;  // the functions: twice the 16 that test_gpu_complex.cpp allows
  long double magnitude = std::abs(w);
  switch (n.op) {
    case op_id::add:
    case op_id::sub:
    case op_id::mul:
    case op_id::square:
    case op_id::sqrt:
    case op_id::abs:
    case op_id::abs2:
    case op_id::angle: k = 8; break;
    case op_id::div:
    case op_id::true_divide:
    case op_id::reciprocal: k = 16; break;
    case op_id::polar: k = 8, magnitude = std::fabs(a[0].real()); break;
    case op_id::pow:
    case op_id::power:
    case op_id::float_power:
      if (magnitude != 0) magnitude *= 1 + std::abs(a[1] * std::log(a[0]));
      k = 32;
      break;
    default: break;
  }
  return k * ulp(is_complex(n.type) ? real_type(n.type) : n.type, magnitude);
}

/// A value of dtype `from` converted to dtype `to`, part by part where `to` is complex (a real
/// value's imaginary part is an exact 0). No rule converts a complex value to a real dtype.
inline bounded convert_value(const bounded& v, dtype from, dtype to) {
  if (!is_complex(to)) return convert(v, from, to);
  const dtype part_from = real_type(from), part_to = real_type(to);
  const bounded re = convert({v.value, v.radius, v.rounded}, part_from, part_to);
  const bounded im =
      is_complex(from) ? convert({v.imag, v.imag_radius, v.rounded_imag}, part_from, part_to) : bounded{0, 0, 0};
  return {re.value, re.radius, re.rounded, im.value, im.radius, im.rounded};
}

/// v converted as the GPU converts it, from dtype `from` to `to`, in precision p.
inline complex_value convert_value(complex_value v, dtype from, dtype to, precision p) {
  if (!is_complex(to)) return as_dtype(from, to, v.real(), p);
  const dtype part_from = real_type(from), part_to = real_type(to);
  return {as_dtype(part_from, part_to, v.real(), p),
          is_complex(from) ? as_dtype(part_from, part_to, v.imag(), p) : 0.0L};
}

/// Complex node n on operand values a (already of its operand dtypes) in its own dtypes: float
/// parts for complex64 (and float32 operands of make_complex and polar), double parts otherwise;
/// the result as a value of the node's dtype.
inline complex_value apply_complex_in_own_dtypes(const detail::node& n, const complex_value* a) {
  if (n.op == detail::op_id::cast) return convert_value(a[0], n.arg_type[0], n.type, precision::own_dtypes);
  auto in = [&]<class T>(T) {
    std::complex<T> operands[3];
    for (int k = 0; k < n.arity; ++k) operands[k] = {static_cast<T>(a[k].real()), static_cast<T>(a[k].imag())};
    const std::complex<T> w = complex_op(n.op, operands);
    return complex_value(w.real(), w.imag());
  };
  const dtype last = real_type(n.arg_type[n.arity - 1]);
  const complex_value w = is_floating(last) && compute_type(last) == dtype::float32 ? in(float{}) : in(double{});
  return is_complex(n.type) ? w : as_dtype(n.type, n.type, w.real(), precision::own_dtypes);
}

/// The points of operand o's error region at which a complex node is evaluated: its center and,
/// where it has a radius, the corners of the rectangle of its parts' intervals, and the edges'
/// midpoints with `edges`.
inline std::vector<complex_value> region_points(const bounded& o, bool edges) {
  std::vector<complex_value> points{{o.value, o.imag}};
  if (o.radius == 0 && o.imag_radius == 0) return points;
  const long double re[] = {o.value - o.radius, o.value, o.value + o.radius};
  const long double im[] = {o.imag - o.imag_radius, o.imag, o.imag + o.imag_radius};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if ((i != 1 || j != 1) && (edges || (i != 1 && j != 1))) points.push_back({re[i], im[j]});
  return points;
}

/// The largest distance of each part of op node n from w's as its operands move across their
/// regions (every combination of their points), and at the operands' rounded values.
inline complex_value complex_deviation(const detail::node& n, const bounded* o, complex_value w) {
  std::vector<complex_value> points[3];
  for (int k = 0; k < n.arity; ++k) points[k] = region_points(o[k], n.arity == 1);
  complex_value deviation = 0;
  auto widen = [&](complex_value y) {
    deviation = {std::max<long double>(deviation.real(), distance(y.real(), w.real())),
                 std::max<long double>(deviation.imag(), distance(y.imag(), w.imag()))};
  };
  complex_value at[3];
  for (const complex_value& x : points[0])
    for (std::size_t j = 0; j < (n.arity > 1 ? points[1].size() : 1); ++j)
      for (std::size_t l = 0; l < (n.arity > 2 ? points[2].size() : 1); ++l) {
        at[0] = x;
        if (n.arity > 1) at[1] = points[1][j];
        if (n.arity > 2) at[2] = points[2][l];
        widen(complex_op(n.op, at));
      }
  for (int k = 0; k < n.arity; ++k) at[k] = {o[k].rounded, o[k].rounded_imag};
  widen(complex_op(n.op, at));
  return deviation;
}

/// Complex node n applied to its operands (already converted to its operand dtypes), with the
/// bound of each part (the file's comment says how).
inline bounded apply_complex_bounded(const detail::node& n, const bounded* o) {
  using detail::op_id;
  if (n.op == op_id::cast) return convert_value(o[0], n.arg_type[0], n.type);
  if (n.op == op_id::where) {  // exact: the selected operand
    if (!o[0].determined()) return {o[0].value, unknown, o[0].rounded, 0, unknown, 0};
    return o[0].value != 0 ? o[1] : o[2];
  }
  complex_value centers[3], rounded_centers[3];
  bool special = false;
  for (int k = 0; k < n.arity; ++k) {
    centers[k] = {o[k].value, o[k].imag};
    rounded_centers[k] = {o[k].rounded, o[k].rounded_imag};
    special = special || !std::isfinite(o[k].value) || !std::isfinite(o[k].imag);
  }
  const complex_value w = complex_op(n.op, centers), plausible = apply_complex_in_own_dtypes(n, rounded_centers);
  special = special || !std::isfinite(w.real()) || !std::isfinite(w.imag());
  const bounded undetermined{w.real(), unknown, plausible.real(), w.imag(), unknown, plausible.imag()};
  for (int k = 0; k < n.arity; ++k) {
    if (!o[k].determined()) return undetermined;
    if (takes_a_phase(n.op) && std::max(o[k].radius, o[k].imag_radius) >= widest_phase) return undetermined;
  }
  if (special && !passes_specials_part_by_part(n.op)) return undetermined;
  const complex_value deviation = complex_deviation(n, o, w);
  const double re = static_cast<double>(deviation.real()), im = static_cast<double>(deviation.imag());
  if (!is_floating(n.type) && !is_complex(n.type))
    return re == 0 ? bounded{w.real(), 0, plausible.real()} : undetermined;
  if (std::max(re, im) > std::abs(w) / 16) return undetermined;
  const double error = complex_op_error(n, w, centers);
  // pow's w·log z past the exponent range of the dtype (z not 0, whose powers are exact): the
  // device's product or exp may overflow to a NaN that the long double reference does not reach
  // (fuzz case 16339406923685912313).
  if (takes_a_power(n.op) && centers[0] != complex_value(0) &&
      std::abs(centers[1] * std::log(centers[0])) > std::log(largest(real_type(n.type))))
    return undetermined;
  const double re_radius = re + (std::isfinite(w.real()) ? error : 0),
               im_radius = im + (std::isfinite(w.imag()) ? error : 0);
  if (std::isfinite(std::abs(w)) && std::abs(w) + std::max(re_radius, im_radius) > largest(real_type(n.type)))
    return undetermined;  // a part, or an intermediate product of the parts, may overflow
  if (!is_complex(n.type)) return {w.real(), re_radius, plausible.real()};
  return {w.real(), re_radius, plausible.real(), w.imag(), im_radius, plausible.imag()};
}

}  // namespace jet::test
