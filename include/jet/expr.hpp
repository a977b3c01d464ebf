// Expression nodes. An expression is a value whose type is its tree: leaves (array operands and
// C++ scalars) and one generic node, apply<Op, Args...>, for every op of the table. Building one
// does no work; assignment or jet::eval evaluates it in one kernel.
#pragma once

#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/rules.hpp>
#include <jet/dtype.hpp>
#include <jet/runtime.hpp>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

namespace jet {

template <class T> class array;
template <class T> class view;

namespace detail {

/// Flattening state: nodes in post-order, and the next input and scalar slot.
template <std::size_t Capacity> struct flat_builder {
  std::array<node, Capacity> nodes{};
  std::uint16_t count = 0, inputs = 0, scalars = 0;
  constexpr std::uint16_t push(const node& n) {
    nodes[count] = n;
    return count++;
  }
};

/// The run-time values of an expression's leaves, in slot order.
template <std::size_t Inputs, std::size_t Scalars> struct leaves {
  std::array<const void*, Inputs> input{};
  std::array<std::size_t, Inputs> size{};
  std::array<scalar_value, Scalars> scalar{};
  std::size_t inputs = 0, scalars = 0;
};

}  // namespace detail

/// An array operand: the device pointer and length of an array or view.
template <class T> struct terminal {
  static constexpr dtype type = dtype_of<T>();
  static constexpr bool weak = false;
  static constexpr std::size_t node_count = 1, input_count = 1, scalar_count = 0;

  const T* data;
  std::size_t size;

  template <class B> static constexpr std::uint16_t flatten(B& b) {
    detail::node n{detail::op_id::input, type};
    n.arg[0] = b.inputs++;
    return b.push(n);
  }
  template <class L> void collect(L& l) const {
    l.input[l.inputs] = data;
    l.size[l.inputs++] = size;
  }
};

/// An array operand that was a temporary (`from_host(h) + y`): the expression keeps it alive, so
/// an expression never dangles on a temporary.
template <class T> struct owning_terminal : terminal<T> {
  explicit owning_terminal(array<T>&& a)
      : terminal<T>{a.data(), a.size()}, owner(std::make_shared<const array<T>>(std::move(a))) {}
  std::shared_ptr<const array<T>> owner;
};

/// A C++ scalar operand. It is a kernel argument: a new value never recompiles.
template <class T> struct scalar {
  static constexpr dtype type = scalar_dtype_of<T>();
  static constexpr bool weak = true;  // see jet::promote
  static constexpr std::size_t node_count = 1, input_count = 0, scalar_count = 1;

  cpp_type<type> value;

  template <class B> static constexpr std::uint16_t flatten(B& b) {
    detail::node n{detail::op_id::scalar, type};
    n.arg[0] = b.scalars++;
    return b.push(n);
  }
  template <class L> void collect(L& l) const {
    static_assert(sizeof value <= sizeof(detail::scalar_value::bytes));
    detail::scalar_value v{};
    std::memcpy(v.bytes, &value, sizeof value);
    l.scalar[l.scalars++] = v;
  }
};

/// The one generic node: op `Op` of the table applied to `Args`.
template <class Op, class... Args> struct apply {
  static constexpr detail::typing typed = [] {
    const dtype in[] = {Args::type...};
    const bool weak[] = {Args::weak...};
    return detail::resolve(Op::rule, sizeof...(Args), in, weak, Op::target);
  }();
  static constexpr dtype type = typed.result;
  static constexpr bool weak = false;
  static constexpr std::size_t node_count = (1 + ... + Args::node_count);
  static constexpr std::size_t input_count = (0 + ... + Args::input_count);
  static constexpr std::size_t scalar_count = (0 + ... + Args::scalar_count);

  boost::hana::tuple<Args...> args;

  template <class B> static constexpr std::uint16_t flatten(B& b) {
    const std::uint16_t operands[] = {Args::flatten(b)...};  // left to right, as collect visits
    detail::node n{Op::id, type, static_cast<std::uint8_t>(sizeof...(Args))};
    for (std::size_t k = 0; k < sizeof...(Args); ++k) {
      n.arg_type[k] = typed.args[k];
      n.arg[k] = operands[k];
    }
    return b.push(n);
  }
  template <class L> void collect(L& l) const {
    boost::hana::for_each(args, [&l](const auto& a) { a.collect(l); });
  }
};

namespace detail {

template <class T> inline constexpr bool is_expression_v = false;
template <class T> inline constexpr bool is_expression_v<terminal<T>> = true;
template <class T> inline constexpr bool is_expression_v<owning_terminal<T>> = true;
template <class T> inline constexpr bool is_expression_v<scalar<T>> = true;
template <class Op, class... A> inline constexpr bool is_expression_v<apply<Op, A...>> = true;

template <class T> inline constexpr bool is_array_v = false;
template <class T> inline constexpr bool is_array_v<array<T>> = true;
template <class T> inline constexpr bool is_view_v = false;
template <class T> inline constexpr bool is_view_v<view<T>> = true;

}  // namespace detail

/// An expression node type.
template <class T> concept expression = detail::is_expression_v<std::remove_cvref_t<T>>;

/// Anything that makes an expression out of its own: an expression, an array or a view.
template <class T> concept jet_operand =
    expression<T> || detail::is_array_v<std::remove_cvref_t<T>> || detail::is_view_v<std::remove_cvref_t<T>>;

/// An operand of an op: a jet operand or a C++ scalar.
template <class T> concept operand = jet_operand<T> || std::is_arithmetic_v<std::remove_cvref_t<T>>;

/// Operands of an op of which at least one is a jet operand (so `2 + 3` stays C++).
template <class... T> concept operands = (operand<T> && ...) && (jet_operand<T> || ...);

namespace detail {

template <class T> auto as_expr(T&& x) {
  using U = std::remove_cvref_t<T>;
  if constexpr (expression<U>) return U(std::forward<T>(x));
  else if constexpr (is_array_v<U> && !std::is_lvalue_reference_v<T>)
    return owning_terminal<typename U::value_type>(std::move(x));
  else if constexpr (is_array_v<U> || is_view_v<U>)
    return terminal<typename U::value_type>{x.data(), x.size()};
  else return scalar<U>{static_cast<cpp_type<scalar_dtype_of<U>()>>(x)};
}

template <class T> using expr_t = decltype(as_expr(std::declval<T>()));

template <class Op, class... A> auto make_apply(A&&... a) {
  return apply<Op, expr_t<A>...>{boost::hana::make_tuple(as_expr(std::forward<A>(a))...)};
}

/// The kernel of expression type E stored into Out: its description, computed at compile time,
/// and its cache slot.
template <class E, class Out> struct kernel_of {
  static_assert(E::input_count > 0, "jet: an expression needs at least one array operand");
  static_assert(E::input_count <= max_inputs, "jet: too many array operands in one expression");
  static_assert(E::scalar_count <= max_scalars, "jet: too many scalar operands in one expression");
  static constexpr std::array<node, E::node_count> nodes = [] {
    flat_builder<E::node_count> b;
    E::flatten(b);
    return b.nodes;
  }();
  static constexpr std::array<dtype, E::input_count> input_types = [] {
    std::array<dtype, E::input_count> types{};
    for (const node& n : nodes)
      if (n.op == op_id::input) types[n.arg[0]] = n.type;
    return types;
  }();
  static constexpr kernel_desc desc{nodes.data(),       E::node_count,   E::input_count,
                                    E::scalar_count,    input_types.data(), dtype_of<Out>(),
                                    hash_desc(nodes, dtype_of<Out>())};
  static inline kernel_slot slot;
};

/// An expression bound to its leaves' run-time values, ready to evaluate into an Out array.
template <class Out, class E> struct bound {
  using kernel = kernel_of<E, Out>;
  leaves<E::input_count, E::scalar_count> values;

  explicit bound(const E& e) { e.collect(values); }
  std::size_t size() const { return values.size[0]; }
  void evaluate_into(Out* out, std::size_t out_size) {
    detail::evaluate({kernel::desc, kernel::slot, out, out_size, values.input.data(), values.size.data(),
                      values.scalar.data()});
  }
};

}  // namespace detail
}  // namespace jet
