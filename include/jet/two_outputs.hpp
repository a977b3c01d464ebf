// NumPy's ufuncs of two outputs, each a jet::tuple of two expressions over the op table, written
// by one kernel through jet::tie:
//
//   jet::tie(quotient, remainder) = jet::divmod(a, b);
//   jet::tie(fraction, whole) = jet::modf(x);
//   jet::tie(mantissa, exponent) = jet::frexp(x);  // exponent: an array<std::int32_t>
//
// The operands are read once; what the two outputs share is computed once (README, "Shared
// subexpressions").
#pragma once

#include <jet/array.hpp>
#include <jet/ops.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace jet {

/// NumPy's divmod: (floor_divide(a, b), remainder(a, b)), Python's rounding toward −∞ and the
/// remainder with the divisor's sign.
template <class A, class B>
requires operands<A, B>
auto divmod(A&& a, B&& b) {
  const auto x = detail::as_expr(std::forward<A>(a));
  const auto y = detail::as_expr(std::forward<B>(b));
  return tuple(floor_divide(x, y), remainder(x, y));
}

/// NumPy's modf: the fractional and the whole part, both with x's sign (modf(-2.5) is (-0.5,
/// -2.0), modf(-2.0) is (-0.0, -2.0)); modf(±inf) is (±0, ±inf), NaN gives two NaNs. Integers and
/// bool compute in float64, as NumPy's modf does.
template <jet_operand X> auto modf(X&& x) {
  const auto given = detail::as_expr(std::forward<X>(x));
  const auto v = [&] {
    if constexpr (is_floating(std::remove_cvref_t<decltype(given)>::type))
      return given;
    else
      return cast<double>(given);
  }();
  const auto whole = trunc(v);
  return tuple(copysign(where(isinf(v), 0, v - whole), v), whole);
}

/// NumPy's frexp: x = mantissa · 2^exponent with 1/2 ≤ |mantissa| < 1, the exponent an int32
/// (int32 arrays receive it); for ±0, ±inf and NaN the mantissa is x and the exponent 0.
template <jet_operand X> auto frexp(X&& x) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return tuple(frexp_mantissa(v), cast<std::int32_t>(frexp_exponent(v)));
}

}  // namespace jet
