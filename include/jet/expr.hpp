// Expression nodes. An expression is a value whose type is its tree: leaves (array operands and
// C++ scalars) and one generic node, apply<Op, Args...>, for every op of the table. Building one
// does no work; assignment or jet::eval evaluates it in one kernel.
#pragma once

#include <jet/detail/flatten.hpp>
#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/rules.hpp>
#include <jet/detail/sharing.hpp>
#include <jet/dtype.hpp>
#include <jet/detail/core.hpp>

#include <algorithm>
#include <array>
#include <atomic>
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

/// What an inner node (apply, call) of dtype Type has from its operands: its nodes, leaves and
/// depth. A base class, so that all of it is computed as the node is built, from its operands' (a static
/// member of a template is computed when first used: for a deep expression recursively from its
/// root, past the compilers' limit on nested instantiations). In a namespace of its own: a base
/// class's namespace is searched for the functions called with an expression (ADL), and
/// jet::detail's must not be.
namespace tree {
template <dtype Type, class... Args> struct subtree {
  static constexpr dtype type = Type;
  static constexpr bool weak = false;
  static constexpr std::size_t node_count = (1 + ... + Args::node_count);
  static constexpr std::size_t input_count = (0 + ... + Args::input_count);
  static constexpr std::size_t scalar_count = (0 + ... + Args::scalar_count);
  static constexpr std::size_t depth = 1 + std::max({std::size_t{0}, Args::depth...});
  static constexpr bool too_deep = depth > max_expression_depth;
  static_assert(node_count + input_count + scalar_count + depth > 0);  // computes them as the node is built
};

/// The operands an inner node holds, and the collection of their leaves: a base class, so that
/// collecting nests one function per level of the expression (g++ instantiates them nested, and
/// stops at 900). Plain members, not a hana::tuple: its layers of constructor templates cost g++
/// time growing with the square of an expression's depth.
template <class... Args> struct operands_of;
template <class A> struct operands_of<A> {
  A first;
  template <class L> void collect(L& l) const { first.collect(l); }
};
template <class A, class B> struct operands_of<A, B> {
  A first;
  B second;
  template <class L> void collect(L& l) const { first.collect(l), second.collect(l); }
};
template <class A, class B, class C> struct operands_of<A, B, C> {
  A first;
  B second;
  C third;
  template <class L> void collect(L& l) const { first.collect(l), second.collect(l), third.collect(l); }
};
}  // namespace tree

/// Whether a node over operands Args stays within max_expression_depth, or one of them is past it
/// already: that one was reported where it was built, and the nodes built on it do not repeat it.
template <class... Args> constexpr bool depth_checked() {
  return 1 + std::max({std::size_t{0}, Args::depth...}) <= max_expression_depth || (Args::too_deep || ...);
}

/// The dtypes of op Op's node over operands Args: its result and what each operand converts to.
template <class Op, class... Args> inline constexpr typing typing_of = [] {
  const dtype in[] = {Args::type...};
  const bool weak[] = {Args::weak...};
  return resolve(Op::rule, sizeof...(Args), in, weak, Op::target);
}();

/// The run-time values of an expression's leaves, in slot order.
template <std::size_t Inputs, std::size_t Scalars> struct leaves {
  std::array<const void*, Inputs> input{};
  std::array<const layout*, Inputs> layouts{};
  std::array<scalar_value, Scalars> scalar{};
  std::size_t inputs = 0, scalars = 0;
};

}  // namespace detail

namespace detail::tree {  // not jet::detail, for the reason tree::subtree gives

/// What every array operand is to a kernel: an input slot of dtype T, whose pointer and layout
/// Leaf (the operand's type) gives when the expression is evaluated.
template <class T, class Leaf> struct array_leaf {
  static constexpr dtype type = dtype_of<T>();
  static constexpr bool weak = false;
  static constexpr std::size_t node_count = 1, input_count = 1, scalar_count = 0;
  static constexpr std::size_t depth = 1;
  static constexpr bool too_deep = false;

  static constexpr detail::type_node tree{{detail::op_id::input, type}};
  template <class L> void collect(L& l) const {
    const Leaf& leaf = static_cast<const Leaf&>(*this);
    l.input[l.inputs] = leaf.data();
    l.layouts[l.inputs++] = &leaf.layout();
  }
};

}  // namespace detail::tree

/// A view operand: the view's device pointer and layout, copied.
template <class T> struct terminal : detail::tree::array_leaf<T, terminal<T>> {
  const T* pointer;
  detail::layout strides;

  const T* data() const { return pointer; }
  const detail::layout& layout() const { return strides; }
};

/// An array operand, by reference: 8 bytes, so that a formula that names its arrays many times
/// (every use of a named sub-expression copies its operands) is cheap to build. The expression
/// reads the array's pointer and shape when it is evaluated, so the array must outlive it, as its
/// memory must.
template <class T> struct array_terminal : detail::tree::array_leaf<T, array_terminal<T>> {
  const array<T>* source;

  const T* data() const { return source->data(); }
  const detail::layout& layout() const { return source->layout(); }
};

/// An array operand that was a temporary (`from_host(h) + y`): the expression keeps it alive, so
/// an expression never dangles on a temporary.
template <class T> struct owning_terminal : array_terminal<T> {
  explicit owning_terminal(array<T>&& a) : owning_terminal(std::make_shared<const array<T>>(std::move(a))) {}
  explicit owning_terminal(std::shared_ptr<const array<T>> a) : array_terminal<T>{{}, a.get()}, owner(std::move(a)) {}
  std::shared_ptr<const array<T>> owner;
};

/// The index of each element in C order within `extents`, as int64, broadcast like an array of
/// that shape (jet::counter): what counter-based random numbers are drawn from. No memory is read.
struct counter {
  static constexpr dtype type = dtype::int64;
  static constexpr bool weak = false;
  static constexpr std::size_t node_count = 1, input_count = 1, scalar_count = 0;
  static constexpr std::size_t depth = 1;
  static constexpr bool too_deep = false;

  jet::shape extents;
  detail::layout layout = detail::layout::contiguous(extents);  // what the planner reads

  static constexpr detail::type_node tree{{detail::op_id::counter, type}};
  template <class L> void collect(L& l) const {
    l.input[l.inputs] = nullptr;
    l.layouts[l.inputs++] = &layout;
  }
};

/// A C++ scalar operand. It is a kernel argument: a new value never recompiles.
template <class T> struct scalar {
  static constexpr dtype type = scalar_dtype_of<T>();
  static constexpr bool weak = true;  // see jet::promote
  static constexpr std::size_t node_count = 1, input_count = 0, scalar_count = 1;
  static constexpr std::size_t depth = 1;
  static constexpr bool too_deep = false;

  cpp_type<type> value;

  static constexpr detail::type_node tree{{detail::op_id::scalar, type}};
  template <class L> void collect(L& l) const {
    static_assert(sizeof value <= sizeof(detail::scalar_value::bytes));
    detail::scalar_value v{};
    std::memcpy(v.bytes, &value, sizeof value);
    l.scalar[l.scalars++] = v;
  }
};

/// The one generic node: op `Op` of the table applied to `Args`.
template <class Op, class... Args> struct apply : detail::tree::subtree<detail::typing_of<Op, Args...>.result, Args...>,
                                                  detail::tree::operands_of<Args...> {
  static constexpr detail::typing typed = detail::typing_of<Op, Args...>;

  static constexpr detail::type_node tree = detail::inner_type_node<Args...>(Op::id, apply::type, typed.args, nullptr);
  static_assert(tree.shape.arity > 0);  // computes it as the node is built, as subtree's counts
};

/// A call of a user-defined element function F (JET_FUNCTION): like apply, with the dtypes of
/// F's C++ signature.
template <class F, class... Args> struct call : detail::tree::subtree<F::result_dtype, Args...>,
                                                detail::tree::operands_of<Args...> {
  static_assert(sizeof...(Args) == F::arity, "jet: wrong number of arguments for a JET_FUNCTION");

  static constexpr detail::type_node tree =
      detail::inner_type_node<Args...>(detail::op_id::user, call::type, F::arg_dtypes, &F::function);
  static_assert(tree.shape.arity > 0);  // computes it as the node is built, as subtree's counts
};

/// A named value (jet::let): expression E, held once and shared by every copy, so that using it
/// many times costs a pointer copy each, and computed once per element wherever it is used in one
/// kernel (its uses are repeats of one subtree over the same operands, found first).
template <class E> struct named {
  static constexpr dtype type = E::type;
  static constexpr bool weak = E::weak;
  static constexpr std::size_t node_count = E::node_count, input_count = E::input_count, scalar_count = E::scalar_count,
                               depth = E::depth;
  static constexpr bool too_deep = E::too_deep;
  static constexpr detail::type_node tree = [] {
    detail::type_node t = E::tree;
    t.shape.named = true;
    return t;
  }();

  explicit named(E e) : shared_(new holder{std::move(e)}) {}
  named(const named& o) noexcept : shared_(o.shared_) { shared_->references.fetch_add(1, std::memory_order_relaxed); }
  named(named&& o) noexcept : shared_(std::exchange(o.shared_, nullptr)) {}
  named& operator=(named o) noexcept {
    std::swap(shared_, o.shared_);
    return *this;
  }
  ~named() {
    if (shared_ && shared_->references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete shared_;
  }

  /// The expression named.
  const E& value() const { return shared_->value; }
  /// How many copies hold it (this one among them).
  std::size_t use_count() const { return shared_->references.load(std::memory_order_relaxed); }

  template <class L> void collect(L& l) const { shared_->value.collect(l); }

 private:
  // A counted holder of its own: std::shared_ptr's control blocks cost the user's compiler more
  // than the rest of a named value.
  struct holder {
    E value;
    std::atomic<std::size_t> references{1};
  };
  holder* shared_;
};

namespace detail {

template <class T> inline constexpr bool is_expression_v = false;
template <class E> inline constexpr bool is_expression_v<named<E>> = true;
template <class T> inline constexpr bool is_expression_v<terminal<T>> = true;
template <class T> inline constexpr bool is_expression_v<array_terminal<T>> = true;
template <class T> inline constexpr bool is_expression_v<owning_terminal<T>> = true;
template <class T> inline constexpr bool is_expression_v<scalar<T>> = true;
template <class Op, class... A> inline constexpr bool is_expression_v<apply<Op, A...>> = true;
template <class F, class... A> inline constexpr bool is_expression_v<call<F, A...>> = true;
template <> inline constexpr bool is_expression_v<counter> = true;

template <class T> inline constexpr bool is_array_v = false;
template <class T> inline constexpr bool is_array_v<array<T>> = true;
template <class T> inline constexpr bool is_view_v = false;
template <class T> inline constexpr bool is_view_v<view<T>> = true;

}  // namespace detail

/// An expression node type.
template <class T>
concept expression = detail::is_expression_v<std::remove_cvref_t<T>>;

/// Anything that makes an expression out of its own: an expression, an array or a view.
template <class T>
concept jet_operand =
    expression<T> || detail::is_array_v<std::remove_cvref_t<T>> || detail::is_view_v<std::remove_cvref_t<T>>;

/// An operand of an op: a jet operand or a C++ scalar.
template <class T>
concept operand = jet_operand<T> || std::is_arithmetic_v<std::remove_cvref_t<T>>;

/// Operands of an op of which at least one is a jet operand (so `2 + 3` stays C++).
template <class... T>
concept operands = (operand<T> && ...) && (jet_operand<T> || ...);

namespace detail {

template <class T> auto as_expr(T&& x) {
  using U = std::remove_cvref_t<T>;
  if constexpr (expression<U>)
    return U(std::forward<T>(x));
  else if constexpr (is_array_v<U> && !std::is_lvalue_reference_v<T>)
    return owning_terminal<typename U::value_type>(std::move(x));
  else if constexpr (is_array_v<U>)
    return array_terminal<typename U::value_type>{{}, &x};
  else if constexpr (is_view_v<U>)
    return terminal<typename U::value_type>{{}, x.data(), x.layout()};
  else
    return scalar<U>{static_cast<cpp_type<scalar_dtype_of<U>()>>(x)};
}

template <class T> using expr_t = decltype(detail::as_expr(std::declval<T>()));

/// Whether op Op computes on dtypes Operands (ops.def's domain column). Where it does not, the
/// compiler's message names this function with the op and the dtypes as its template arguments.
template <class Op, dtype... Operands> constexpr bool in_domain() {
  static_assert((accepts(Op::domain, Operands) && ...),
                "jet: an op is applied to dtypes outside its domain (ops.def); the op and the dtypes are "
                "in_domain's template arguments");
  return true;
}

/// in_domain of the dtypes Op's node over Args computes on (a select's condition is any dtype).
template <class Op, class... Args> constexpr bool domain_checked() {
  constexpr std::size_t first = Op::rule == rule::select ? 1 : 0;
  return []<std::size_t... K>(std::index_sequence<K...>) {
    return in_domain<Op, typing_of<Op, Args...>.args[first + K]...>();
  }
  (std::make_index_sequence<sizeof...(Args) - first>{});
}

template <class Op, class... A> auto make_apply(A&&... a) {
  static_assert(depth_checked<expr_t<A>...>(),
                "jet: an expression is at most 800 nodes deep "
                "(jet::detail::max_expression_depth); evaluate part of it first with jet::eval");
  static_assert(domain_checked<Op, expr_t<A>...>());
  // detail::as_expr, qualified: a call open to ADL searches the namespaces of every type in the
  // expression's type, a cost that grows with its depth.
  return apply<Op, expr_t<A>...>{{}, {detail::as_expr(std::forward<A>(a))...}};
}

/// Whether an expression's appearances of arrays and of C++ scalars are within max_input_slots and
/// max_scalars. Where they are not, the compiler's message names this function with the counts as
/// its template arguments.
template <std::size_t ArrayAppearances, std::size_t ScalarAppearances> constexpr bool operands_within_limits() {
  static_assert(ArrayAppearances <= max_input_slots,
                "jet: more than 1024 appearances of arrays in one expression (jet::detail::max_input_slots; "
                "the count is ArrayAppearances below); evaluate part of it first with jet::eval");
  static_assert(ScalarAppearances <= max_scalars,
                "jet: more than 1024 C++ scalars in one expression (jet::detail::max_scalars; the count is "
                "ScalarAppearances below); evaluate part of it first with jet::eval");
  return true;
}

/// The expressions one kernel evaluates, one per output (jet::tie evaluates several).
template <class... Es> struct roots {};

/// The kernel of expressions Es stored into arrays of Outs: its description, computed at compile
/// time, and its cache slot.
template <class Roots, class... Outs> struct kernel_of;
template <class... Es, class... Outs> struct kernel_of<roots<Es...>, Outs...> {
  static_assert(sizeof...(Es) == sizeof...(Outs) && sizeof...(Es) <= max_outputs);
  static constexpr std::size_t node_count = (0 + ... + Es::node_count);
  static constexpr std::size_t input_count = (0 + ... + Es::input_count);
  static constexpr std::size_t scalar_count = (0 + ... + Es::scalar_count);
  static_assert(input_count > 0, "jet: an expression needs at least one array operand");
  static_assert(operands_within_limits<input_count, scalar_count>());
  static_assert(node_count <= max_nodes,
                "jet: more than 65535 nodes in one kernel (jet::detail::max_nodes); evaluate part of it first with "
                "jet::eval");
  // An expression past max_expression_depth has been reported where it was built; its leaves are
  // not collected (which would nest past the compilers' instantiation limit).
  static constexpr bool too_deep = (Es::too_deep || ...);

  struct flat {
    std::array<node, node_count> nodes;
    std::array<std::uint16_t, sizeof...(Es)> out_nodes;
    std::array<const user_function*, node_count> functions;
    std::uint32_t function_count;
    std::uint32_t counter_slots;
  };
  static constexpr flat flattened = [] {
    flat_builder<node_count> b;
    if constexpr (node_count > max_nodes)  // reported above; not flattened, which would say more
      return flat{};
    else {
      const std::array<std::uint16_t, sizeof...(Es)> out_nodes{b.append(Es::tree)...};  // in order, sharing slots
      return flat{b.nodes, out_nodes, b.functions, b.function_count, b.counter_slots};
    }
  }();
  static constexpr std::array<dtype, input_count> input_types = [] {
    std::array<dtype, input_count> types{};
    for (const node& n : flattened.nodes)
      if (n.op == op_id::input || n.op == op_id::counter) types[n.arg[0]] = n.type;
    return types;
  }();
  static constexpr std::array<dtype, sizeof...(Outs)> out_types{dtype_of<Outs>()...};
  static constexpr repeats_of_nodes<node_count> repeats{flattened.nodes.data(), node_count};
  static constexpr kernel_desc desc{
      .nodes = flattened.nodes.data(),
      .node_count = node_count,
      .input_count = input_count,
      .scalar_count = scalar_count,
      .input_types = input_types.data(),
      .counter_slots = flattened.counter_slots,
      .out_count = sizeof...(Outs),
      .out_nodes = flattened.out_nodes.data(),
      .out_types = out_types.data(),
      .functions = flattened.functions.data(),
      .function_count = flattened.function_count,
      .hash = hash_desc(flattened.nodes, flattened.out_nodes, out_types, flattened.functions, flattened.function_count),
      .repeats = repeats.list.data(),
      .repeat_count = repeats.count};
  static inline kernel_slot slot;
};

/// Expressions bound to their leaves' run-time values, ready to evaluate into arrays of Outs.
template <class Roots, class... Outs> struct bound;
template <class... Es, class... Outs> struct bound<roots<Es...>, Outs...> {
  using kernel = kernel_of<roots<Es...>, Outs...>;
  leaves<kernel::input_count, kernel::scalar_count> values;

  explicit bound(const Es&... es) {
    if constexpr (!kernel::too_deep) (es.collect(values), ...);
  }
  /// The shape every output must have.
  jet::shape shape() const { return broadcast_shape(kernel::desc, kernel::slot, values.layouts.data()); }
  evaluation request(void* const* outputs, const layout* output_layouts) const {
    return {kernel::desc,          kernel::slot,        outputs, output_layouts, values.input.data(),
            values.layouts.data(), values.scalar.data()};
  }
  void evaluate_into(void* const* outputs, const layout* output_layouts) const {
    detail::evaluate(request(outputs, output_layouts));
  }
};

/// One expression into one output.
template <class Out, class E> using bound_one = bound<roots<E>, Out>;

}  // namespace detail

/// Names a value: `const auto d1 = jet::let(jet::log(s / x) + r * t);`. Each use of d1 in later
/// expressions copies a shared pointer, not the expression, and a kernel that uses d1 several
/// times computes it once per element. d1 refers to the arrays it names, as any expression does.
template <jet_operand E> auto let(E&& e) {
  using value = detail::expr_t<E>;
  return named<value>(detail::as_expr(std::forward<E>(e)));
}

}  // namespace jet
