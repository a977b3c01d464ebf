// Constructors that fuse as leaves: arange, linspace, full, zeros, ones, eye and iota are
// expressions over jet::counter (an element's index, computed from its layout; no memory), so
// they are stored nowhere: `x * jet::arange(x.size())` is one kernel that reads only x. Each
// broadcasts like an array of its shape, and evaluates into an array as any expression does:
//   jet::array<float> z = jet::zeros<float>({3, 4});
// Their run-time values (counts, start, step, the fill value) are kernel arguments: a new value
// never recompiles. The argument checks and lengths are computed in src/constructors.cpp.
#pragma once

#include <jet/error.hpp>
#include <jet/expr.hpp>
#include <jet/ops.hpp>
#include <jet/shape.hpp>

#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace jet {

namespace detail {

/// A count argument (`what` of `function`) as int64: invalid_argument naming both and the value
/// when it is negative or past int64.
std::int64_t checked_count(std::int64_t n, const char* function, const char* what);
std::int64_t checked_count(std::uint64_t n, const char* function, const char* what);
template <std::integral N> std::int64_t count_argument(N n, const char* function, const char* what) {
  if constexpr (std::is_signed_v<N>)
    return checked_count(static_cast<std::int64_t>(n), function, what);
  else
    return checked_count(static_cast<std::uint64_t>(n), function, what);
}

/// An integer arange argument as int64: invalid_argument naming it when it is past int64.
std::int64_t integer_argument(std::uint64_t value, const char* what);
template <std::integral N> std::int64_t integer_argument(N value, const char* what) {
  if constexpr (std::is_signed_v<N>)
    return static_cast<std::int64_t>(value);
  else
    return integer_argument(static_cast<std::uint64_t>(value), what);
}

/// NumPy's length of arange(start, stop, step) over integers, exactly: ceil((stop - start) /
/// step), 0 when negative. invalid_argument for step 0.
std::int64_t arange_length(std::int64_t start, std::int64_t stop, std::int64_t step);

/// A floating arange: its length, and the distance between elements as NumPy's fill computes it,
/// (start + step) - start. invalid_argument for step 0, a non-finite argument, or a length past
/// int64.
struct floating_range {
  std::int64_t length;
  double delta;
};
floating_range arange_range(double start, double stop, double step);

/// linspace's values as NumPy computes them: i / divisor * step + start (divisor 1, but where
/// (stop - start) / (num - 1) underflows to 0: then NumPy divides first), and the index set to
/// exactly stop (-1: none). invalid_argument for num < 0 or a non-finite start, stop or distance.
struct linspace_steps {
  double divisor;
  double step;
  std::int64_t last;
};
linspace_steps linspace_plan(double start, double stop, std::int64_t num, bool endpoint);

/// A counter's layout whose value is an element's index along `axis` of s (negative counting
/// from the end): stride 1 there, 0 elsewhere, so no element divides its index by an extent.
/// invalid_argument naming the axis and the shape when s has no such axis; shape_error when s has
/// more elements than jet::size_limit.
layout iota_layout(const jet::shape& s, int axis);

/// A counter of shape s whose value is 0 everywhere (every stride 0): the shape of a fill.
/// shape_error when s has more elements than jet::size_limit.
inline counter zero_counter(const jet::shape& s) {
  (void)s.size();  // checks the count, as an array of the shape would
  return counter{s, layout{s, {}}};
}

/// The C++ type a fill value of dtype T travels in, as a scalar kernel argument: float for a
/// 16-bit float (which computes in float32), T otherwise.
template <class T> using fill_scalar_t = std::conditional_t<sizeof(T) == 2 && is_floating(dtype_of<T>()), float, T>;

/// `value` converted to T as jet converts (floating to integer truncates and saturates, NaN to 0;
/// to a 16-bit float through float32).
template <class T, class V> T converted(V value) {
  if constexpr (!std::is_arithmetic_v<V>)  // a 16-bit float
    return converted<T>(static_cast<float>(value));
  else if constexpr (!std::is_arithmetic_v<T>)
    return T(host::convert<float>(value));
  else
    return host::convert<T>(value);
}

}  // namespace detail

/// 0, 1, ..., n - 1 as int64, a 1-D expression of n elements that reads no memory.
/// invalid_argument when n is negative (or, unsigned, past int64).
template <std::integral N> counter arange(N n) {
  return counter{jet::shape{detail::count_argument(n, "jet::arange", "n")}};
}

/// NumPy's arange: start, start + step, ... up to but excluding stop, ceil((stop - start) / step)
/// elements (none when that is not positive). Integer arguments give int64 values start + i *
/// step, their length computed exactly; if any argument is floating, float64 values start + i *
/// delta with delta = (start + step) - start, as NumPy's fill computes them (element 0 is start
/// itself, -0.0 included). invalid_argument for step 0, a non-finite argument, an integer past
/// int64, or a length past int64.
template <class Start, class Stop, class Step = int>
requires std::is_arithmetic_v<Start> && std::is_arithmetic_v<Stop> && std::is_arithmetic_v<Step>
auto arange(Start start, Stop stop, Step step = 1) {
  if constexpr (std::is_integral_v<Start> && std::is_integral_v<Stop> && std::is_integral_v<Step>) {
    const std::int64_t first = detail::integer_argument(start, "start"), by = detail::integer_argument(step, "step");
    const std::int64_t n = detail::arange_length(first, detail::integer_argument(stop, "stop"), by);
    return first + counter{jet::shape{n}} * by;  // int64 arithmetic wraps, so only the end value must fit
  } else {
    const auto first = static_cast<double>(start);
    const detail::floating_range r = detail::arange_range(first, static_cast<double>(stop), static_cast<double>(step));
    const counter i{jet::shape{r.length}};
    return where(i == std::int64_t{0}, first, first + cast<double>(i) * r.delta);
  }
}

/// NumPy's linspace: num float64 values from start, i * step + start with step = (stop - start) /
/// (num - 1) (/ num without the endpoint), the last exactly stop when endpoint is true and num >
/// 1; as NumPy, (i / (num - 1)) * (stop - start) + start where the step underflows to 0.
/// invalid_argument for num < 0, or a non-finite start, stop or stop - start.
template <std::integral N> auto linspace(double start, double stop, N num, bool endpoint = true) {
  const std::int64_t n = detail::count_argument(num, "jet::linspace", "num");
  const detail::linspace_steps s = detail::linspace_plan(start, stop, n, endpoint);
  const counter i{jet::shape{n}};
  return where(i == s.last, stop, cast<double>(i) / s.divisor * s.step + start);
}

/// An expression of shape s whose every element is `value`, bit for bit (-0.0, NaN and
/// infinities included). Its dtype is T, `value` converted to it as jet converts; without T, the
/// dtype of value's C++ type: `full(s, 1.5f)` is float32, `full(s, 2)` int32 (NumPy's int64 is
/// full<std::int64_t>(s, 2)), `full(s, true)` bool. `value` is a kernel argument: a new value
/// never recompiles.
template <class T = void, class V> auto full(const jet::shape& s, V value) {
  using E = std::conditional_t<std::is_void_v<T>, V, T>;
  static_assert(is_element_type_v<E>, "jet::full: the dtype must be an element type (see jet::dtype)");
  using S = detail::fill_scalar_t<E>;
  const auto v = static_cast<S>(detail::converted<E>(value));
  // A selection between two copies of the value (the counter, 0, picks the second) passes its
  // bits through untouched, where value + 0 * counter would make -0.0 into +0.0; the cast brings
  // a scalar's dtype (int32 for an int8 value, float32 for a 16-bit one) back to E.
  return cast<E>(where(detail::zero_counter(s), v, v));
}

/// full(s, 0) and full(s, 1) of dtype T (the same kernels as full's: only the value differs).
template <class T> auto zeros(const jet::shape& s) { return full<T>(s, 0); }
template <class T> auto ones(const jet::shape& s) { return full<T>(s, 1); }

/// The n x m matrix of dtype T with ones on diagonal k (0 the main diagonal, > 0 above it, < 0
/// below) and zeros elsewhere. invalid_argument for a negative n or m, or a k past int64.
template <class T, std::integral N, std::integral M, std::integral K = int> auto eye(N n, M m, K k = 0) {
  const jet::shape s{detail::count_argument(n, "jet::eye", "n"), detail::count_argument(m, "jet::eye", "m")};
  const counter row{s, detail::iota_layout(s, 0)}, column{s, detail::iota_layout(s, 1)};
  // column - row cannot overflow: both are indices.
  const std::int64_t diagonal = detail::integer_argument(k, "k");
  return cast<T>(column - row == diagonal);
}
template <class T, std::integral N> auto eye(N n) { return eye<T>(n, n); }

/// The index of each element along `axis` of shape s (negative counting from the end), as int64:
/// iota({2, 3}, 1) is [[0, 1, 2], [0, 1, 2]]. invalid_argument when s has no such axis.
inline counter iota(const jet::shape& s, int axis) { return counter{s, detail::iota_layout(s, axis)}; }

}  // namespace jet
