// Reductions (the table in reductions.def): jet::sum(x * y) over every element, or
// jet::sum(e, axis) along one dimension, computed by one kernel that evaluates the expression as it
// reduces it. The expression is never stored.
#pragma once

#include <jet/array.hpp>
#include <jet/detail/rules.hpp>
#include <jet/expr.hpp>
#include <jet/ops.hpp>

#include <optional>
#include <utility>

namespace jet {

/// A dimension to reduce along; negative counts from the end. It converts from int, so
/// `jet::sum(x, 1)` reads as NumPy's; jet::max and jet::min need it spelled out,
/// `jet::max(x, jet::axis{1})`, because `jet::max(x, 1)` is the elementwise maximum of x and 1.
struct axis {
  axis(int dimension) : value(dimension) {}  // NOLINT(google-explicit-constructor): sum(x, 1)
  int value;
};

namespace detail {

/// The kernel reducing expression E with reduction R: E's description with the reduction, and a
/// cache slot of its own. The expression's values reach the reduction in their compute type, so a
/// float16 expression is reduced from its float32 values, unrounded.
template <reduction_id R, class E> struct reduction_kernel {
  static_assert(!is_complex(E::type) || (reduction_rules[static_cast<int>(R)] != reduction_rule::same &&
                                         reduction_rules[static_cast<int>(R)] != reduction_rule::index),
                "jet: max, min, argmax and argmin of complex values do not compile: complex numbers have no order "
                "(README, \"Complex numbers\"); reduce abs(z), real(z) or imag(z)");
  using element = kernel_of<roots<E>, cpp_type<compute_type(E::type)>>;
  static constexpr kernel_desc desc = [] {
    kernel_desc d = element::desc;
    d.reduction = R;
    d.hash = fnv1a(d.hash, static_cast<std::uint64_t>(R));
    return d;
  }();
  static inline kernel_slot slot;
};

template <reduction_id R, class E> using reduction_result_t = cpp_type<resolve_reduction(R, E::type).result>;

template <reduction_id R, class E> array<reduction_result_t<R, E>> reduce(const E& e, std::optional<int> axis) {
  using kernel = reduction_kernel<R, E>;
  const auto values = kernel::element::values_of(e);
  array<reduction_result_t<R, E>> out(reduced_shape(kernel::desc, values.layouts.data(), axis));
  void* outputs[] = {out.data()};
  const layout l = out.layout();
  detail::reduce(
      {kernel::desc, kernel::slot, outputs, &l, values.input.data(), values.layouts.data(), values.scalar.data()},
      axis);
  return out;
}

}  // namespace detail

// Per reduction: tag(e), over every element, a 0-d array (`.item()` is its value on the host), and
// tag(e, axis), an array of e's shape without that axis.
#define JET_REDUCTION(tag, ...)                                                                              \
  template <jet_operand E> auto tag(E&& e) {                                                                 \
    return detail::reduce<detail::reduction_id::tag>(detail::as_expr(std::forward<E>(e)), detail::all_axes); \
  }                                                                                                          \
  template <jet_operand E> auto tag(E&& e, axis along) {                                                     \
    return detail::reduce<detail::reduction_id::tag>(detail::as_expr(std::forward<E>(e)), along.value);      \
  }
#include <jet/reductions.def>
#undef JET_REDUCTION

/// One tag type per reduction of the table, and the list of all of them (as ops::for_each_op).
namespace reductions {
#define JET_REDUCTION(tag_, ...)                                           \
  struct tag_ {                                                            \
    static constexpr detail::reduction_id id = detail::reduction_id::tag_; \
    static constexpr const char* name = #tag_;                             \
  };
#include <jet/reductions.def>
#undef JET_REDUCTION

/// Every reduction tag, in table order: the tests walk this list, so a reduction added to the
/// table is tested.
template <class F> constexpr void for_each_reduction(F&& f) {
#define JET_REDUCTION(tag, ...) f(tag{});
#include <jet/reductions.def>
#undef JET_REDUCTION
}
}  // namespace reductions

/// The sum of a * b (a and b broadcast as for `*`): one kernel that reads each once. Complex
/// operands are not conjugated, as NumPy's dot.
template <jet_operand A, jet_operand B> auto dot(A&& a, B&& b) { return sum(std::forward<A>(a) * std::forward<B>(b)); }
/// The sum of conj(a) * b, as NumPy's vdot (for real operands, dot).
template <jet_operand A, jet_operand B> auto vdot(A&& a, B&& b) {
  return sum(conj(std::forward<A>(a)) * std::forward<B>(b));
}

}  // namespace jet
