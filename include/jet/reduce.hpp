// Reductions (the table in reductions.def): jet::sum(x * y) over every element, or
// jet::sum(e, axis) along one dimension, computed by one kernel that evaluates the expression as it
// reduces it. The expression is never stored.
#pragma once

#include <jet/array.hpp>
#include <jet/detail/rules.hpp>
#include <jet/expr.hpp>
#include <jet/ops.hpp>

#include <memory>
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

/// A reduction along one axis as an operand of e's rank (NumPy's keepdims): extent 1 along the
/// axis, so it broadcasts back over it. Evaluating an expression that holds it first reduces e
/// into an array of its own (one launch), then reads that as an operand. Each copy has its own
/// result: a copy evaluated inside another's reduction (softmax's max, under its sum) must not
/// replace the array that the outer kernel, launched later, reads.
template <reduction_id R, class E> struct kept {
  using value_type = reduction_result_t<R, E>;
  static constexpr dtype type = dtype_of<value_type>();
  static constexpr bool weak = false;
  static constexpr std::size_t node_count = 1, input_count = 1, scalar_count = 0;
  static constexpr std::size_t depth = 1;

  kept(E e, int axis) : state(new reduced{std::move(e), axis, {}, {}}) {}
  kept(const kept& o) : kept(o.state->e, o.state->axis) {}
  kept(kept&&) noexcept = default;

  static void read(const void* at, const leaf_sink& s) {
    reduced& r = *static_cast<const kept*>(at)->state;
    r.values = detail::reduce<R>(r.e, r.axis);
    const jet::shape& without = r.values.shape();
    const int rank = without.rank() + 1, along = r.axis < 0 ? r.axis + rank : r.axis;
    jet::shape with_axis;
    for (int d = 0; d < rank; ++d) with_axis.push_back(d == along ? 1 : without[d - (d > along)]);
    r.layout = layout::contiguous(with_axis);  // the same elements: an extent-1 dimension moves nothing
    s.input[0] = r.values.data();
    s.layouts[0] = &r.layout;
  }
  // bytes 0: never compared with another copy's (each reads its own reduction).
  static constexpr type_node tree{{op_id::input, type}, {}, {}, nullptr, &read, nullptr, 0};

  struct reduced {
    E e;
    int axis;
    array<value_type> values;  // of the last evaluation that read it
    detail::layout layout;     // values' layout with the axis put back, extent 1 (broadcast)
  };
  std::unique_ptr<reduced> state;
};
template <reduction_id R, class E> struct is_expression<kept<R, E>> : std::true_type {};

}  // namespace detail

/// The tag of a reduction kept as an operand: `jet::sum(x, 1, jet::keepdims)`.
struct keepdims_t {
  explicit keepdims_t() = default;
};
inline constexpr keepdims_t keepdims{};

// Per reduction: tag(e), over every element, a 0-d array (`.item()` is its value on the host),
// tag(e, axis), an array of e's shape without that axis, and tag(e, axis, keepdims), an operand of
// e's shape with extent 1 along the axis.
#define JET_REDUCTION(tag, ...)                                                                              \
  template <jet_operand E> auto tag(E&& e) {                                                                 \
    return detail::reduce<detail::reduction_id::tag>(detail::as_expr(std::forward<E>(e)), detail::all_axes); \
  }                                                                                                          \
  template <jet_operand E> auto tag(E&& e, axis along) {                                                     \
    return detail::reduce<detail::reduction_id::tag>(detail::as_expr(std::forward<E>(e)), along.value);      \
  }                                                                                                          \
  template <jet_operand E> auto tag(E&& e, axis along, keepdims_t) {                                         \
    return detail::kept<detail::reduction_id::tag, detail::expr_t<E>>(detail::as_expr(std::forward<E>(e)),   \
                                                                      along.value);                          \
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
