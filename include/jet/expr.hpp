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

// A deep expression's type is long: it names every node below it, and g++ does work in proportion
// to that length for each entity the type names (it mangles the name of every function, variable
// and constexpr function instantiated for the type, used or not) and for each time it walks the
// type's nested members (laying out a class that holds an empty class anywhere inside, telling
// whether a copy copies anything, sorting out a base class): for a deep expression, work growing
// with the square of its depth per such entity or walk per node. The node types keep them few.
// Each node type holds its operands as its own members, shallowest first (where a walk down its
// first members ends soonest), and no empty class; its counts are enumerators, which are no
// entities; its op function builds it with nothing in between (JET_DETAIL_BUILD1, 2, 3); and an
// expression's leaves are collected by one loop over a table that flattening makes (flatten.hpp).
// What remains per node is its op function, its `tree` and its `type`.

/// The operand (0, 1 or 2) of depths `depths` that a node stores first: the shallowest one (the
/// first of them where several are); the others follow in order.
constexpr std::size_t stored_first(std::initializer_list<std::size_t> depths) {
  std::size_t first = 0;
  for (std::size_t k = 1; k < depths.size(); ++k)
    if (depths.begin()[k] < depths.begin()[first]) first = k;
  return first;
}

/// Where a node's operands are in its object, and its size when they leave no padding.
struct member_layout {
  std::array<std::uint32_t, 3> offsets{};
  std::uint32_t bytes = 0;  // 0: the node has padding (its own or its operands'), see type_node::bytes
};

/// Where a node stores its operands of sizes `sizes` and alignments `aligns`, in bytes, operand
/// `first` first and the others in order: each member at the first offset of its alignment past
/// the one before, as the Itanium C++ ABI lays out data members (tests/test_expr.cpp checks it
/// against offsetof). Flattening adds them up into where each leaf is in the root's object.
/// `padding_free` holds each operand's type_node::bytes: the node is free of padding when each
/// operand is (its bytes are its size) and no member starts past the end of the one before.
constexpr member_layout operand_layout(std::initializer_list<std::size_t> sizes,
                                       std::initializer_list<std::size_t> aligns,
                                       std::initializer_list<std::uint32_t> padding_free, std::size_t first) {
  member_layout m;
  std::size_t end = 0, align = 1;
  bool padded = false;
  const auto place = [&](std::size_t k) {
    const std::size_t a = aligns.begin()[k];
    m.offsets[k] = static_cast<std::uint32_t>((end + a - 1) / a * a);
    padded = padded || m.offsets[k] != end || padding_free.begin()[k] != sizes.begin()[k];
    end = m.offsets[k] + sizes.begin()[k];
    align = a > align ? a : align;
  };
  place(first);
  for (std::size_t k = 0; k < sizes.size(); ++k)
    if (k != first) place(k);
  m.bytes = padded || end % align ? 0 : static_cast<std::uint32_t>(end);
  return m;
}

/// Whether op Op computes on dtypes Operands (ops.def's domain column). Where it does not, the
/// compiler's message names this function with the op and the dtypes as its template arguments.
template <class Op, dtype... Operands> constexpr bool in_domain() {
  static_assert((accepts(Op::domain, Operands) && ...),
                "jet: an op is applied to dtypes outside its domain (ops.def); the op and the dtypes are "
                "in_domain's template arguments");
  return true;
}

/// in_domain of the dtypes that a node of op Op typed `Typed` computes on: the operands K (of a
/// select, all but its condition, which is any dtype).
template <class Op, typing Typed, std::size_t... K> constexpr bool domain_checked(std::index_sequence<K...>) {
  constexpr std::size_t first = Op::rule == rule::select ? 1 : 0;
  return in_domain<Op, Typed.args[first + K]...>();
}

/// The dtypes of a node of op Op (of the table, or a call of a user function) over operands of
/// dtypes `in` (C++ scalars `weak`): its result and what each operand converts to; none past its
/// operands.
template <class Op> constexpr typing op_typing(std::initializer_list<dtype> in, std::initializer_list<bool> weak) {
  if constexpr (Op::id == op_id::user) {
    return Op::function_tag::typed;
  } else {
    typing t = resolve(Op::rule, static_cast<int>(in.size()), in.begin(), weak.begin(), Op::target);
    for (std::size_t k = in.size(); k < 3; ++k) t.args[k] = dtype{};
    return t;
  }
}

/// Whether a node of op Op typed `Typed` over `Arity` operands is one jet computes: an op of the
/// table on dtypes of its domain, a user function with as many arguments as it has parameters.
template <class Op, std::size_t Arity, typing Typed> constexpr bool op_checked() {
  if constexpr (Op::id == op_id::user) {
    static_assert(Arity == Op::function_tag::arity, "jet: wrong number of arguments for a JET_FUNCTION");
    return true;
  } else {
    static_assert(Op::rule != rule::target || !is_complex(Typed.args[0]) || is_complex(Typed.result),
                  "jet: a complex value converts to a real dtype only through real(), imag(), abs() or arg(), "
                  "never by a cast");
    static_assert(Op::rule != rule::select || !is_complex(Typed.args[0]),
                  "jet: where's condition is a bool or real value, not a complex one (compare it: z != 0)");
    return domain_checked<Op, Typed>(std::make_index_sequence<Arity - (Op::rule == rule::select)>{});
  }
}

/// The type_node of a node of op Op typed `t` over operands `operands` stored as `members` says.
template <class Op> constexpr type_node op_node(const typing& t, std::initializer_list<const type_node*> operands,
                                                const member_layout& members) {
  type_node n{{Op::id, t.result, static_cast<std::uint8_t>(operands.size()), {t.args[0], t.args[1], t.args[2]}}};
  for (std::size_t k = 0; k < operands.size(); ++k) n.operands[k] = operands.begin()[k];
  n.offsets = members.offsets;
  n.bytes = members.bytes;
  if constexpr (Op::id == op_id::user) n.function = &Op::function_tag::function;
  return n;
}

/// The operands of a node by position, which its members are declared from.
template <class A, class B = void, class C = void> struct operand_list {
  using first = A;
  using second = B;
  using third = C;
};

template <class... Args>
concept unary = sizeof...(Args) == 1;
template <class... Args>
concept binary = sizeof...(Args) == 2;
template <class... Args>
concept ternary = sizeof...(Args) == 3;
/// Operands Args of which a node stores operand K first (stored_first).
template <std::size_t K, class... Args>
concept stores_first = (stored_first({std::size_t{Args::depth}...}) == K);

/// The run-time values of an expression's leaves, in slot order.
/// Left uninitialized: reading the leaves writes every slot, on each evaluation.
template <std::size_t Inputs, std::size_t Scalars> struct leaves {
  std::array<const void*, Inputs> input;
  std::array<const layout*, Inputs> layouts;
  std::array<scalar_value, Scalars> scalar;
};

/// Where a leaf's reader writes: the input slots (pointers and layouts) and the scalar slots from
/// its own on.
struct leaf_sink {
  const void** input;
  const layout** layouts;
  scalar_value* scalar;
};

/// Copies the run-time values of the leaves that the first `count` of `refs` read out of the root
/// expressions at `roots` into their slots, counted from `slots`: one loop, however deep the
/// expressions are. (A fold of direct calls, which the compiler inlines, takes half the host time
/// but costs g++ seconds on a formula of hundreds of leaves.)
inline void read_leaves(const leaf_ref* refs, std::size_t count, const void* const* roots, const leaf_sink& slots) {
  for (std::size_t k = 0; k < count; ++k) {
    const leaf_ref& r = refs[k];
    r.read(static_cast<const unsigned char*>(roots[r.root]) + r.offset,
           {slots.input + r.input, slots.layouts + r.input, slots.scalar + r.scalar});
  }
}

/// read_leaves of `count` refs, but for the subtrees that `skips` lists (in leaf order): those
/// whose objects have the bytes of an earlier subtree of their shape take its slots' values, and
/// the others are read. A formula that copies a sub-expression into each of its uses costs a
/// comparison per outermost copy, not a read per leaf in it.
inline void read_shared_leaves(const leaf_ref* refs, std::size_t count, const leaf_skip* skips, std::size_t skip_count,
                               const void* const* roots, const leaf_sink& slots) {
  std::size_t next = 0;
  const auto object = [&](std::uint32_t root, std::uint32_t offset) {
    return static_cast<const unsigned char*>(roots[root]) + offset;
  };
  for (std::size_t k = 0; k < skip_count; ++k) {
    const leaf_skip& s = skips[k];
    read_leaves(refs + next, s.leaf_begin - next, roots, slots);
    next = s.leaf_end;
    if (std::memcmp(object(s.root, s.offset), object(s.same_root, s.same_offset), s.bytes) != 0) {
      read_leaves(refs + s.leaf_begin, s.leaf_end - s.leaf_begin, roots, slots);
      continue;
    }
    std::copy_n(slots.input + s.same_input_first, s.input_count, slots.input + s.input_first);
    std::copy_n(slots.layouts + s.same_input_first, s.input_count, slots.layouts + s.input_first);
    std::copy_n(slots.scalar + s.same_scalar_first, s.scalar_count, slots.scalar + s.scalar_first);
  }
  read_leaves(refs + next, count - next, roots, slots);
}

/// Copies the pointer and layout of an array operand (a Leaf) at `at` into its input slot.
template <class Leaf> void read_array(const void* at, const leaf_sink& s) {
  const Leaf& leaf = *static_cast<const Leaf*>(at);
  s.input[0] = leaf.data();
  s.layouts[0] = &leaf.layout();
}

}  // namespace detail

// What every array operand is to a kernel: an input slot of dtype T, whose pointer and layout the
// operand gives when the expression is evaluated. Members of each leaf type rather than an empty
// base class, which every node above it would hold (see the top of this file).
#define JET_ARRAY_LEAF(T, Leaf, BYTES)                                                          \
  static constexpr dtype type = dtype_of<T>();                                                  \
  static constexpr bool weak = false;                                                           \
  static constexpr std::size_t node_count = 1, input_count = 1, scalar_count = 0;               \
  static constexpr std::size_t depth = 1;                                                       \
  static constexpr detail::type_node tree{{detail::op_id::input, type}, {},      {},   nullptr, \
                                          &detail::read_array<Leaf>,    nullptr, BYTES};

/// A view operand: the view's device pointer and layout, copied.
template <class T> struct terminal {
  JET_ARRAY_LEAF(T, terminal, 0)  // a layout has padding

  terminal(const T* p, const detail::layout& l) : pointer(p), strides(l) {}
  terminal(const view<T>& v) : terminal(v.data(), v.layout()) {}  // NOLINT: what a view operand becomes

  const T* pointer;
  detail::layout strides;

  const T* data() const { return pointer; }
  const detail::layout& layout() const { return strides; }
};

/// An array operand, by reference: 8 bytes, so that a formula that names its arrays many times
/// (every use of a named sub-expression copies its operands) is cheap to build. The expression
/// reads the array's pointer and shape when it is evaluated, so the array must outlive it, as its
/// memory must.
template <class T> struct array_terminal {
  JET_ARRAY_LEAF(T, array_terminal, sizeof(const array<T>*))

  array_terminal(const array<T>& a) : source(&a) {}  // NOLINT: what an array operand becomes

  const array<T>* source;

  const T* data() const { return source->data(); }
  const detail::layout& layout() const { return source->layout(); }
};

#undef JET_ARRAY_LEAF

/// An array operand that was a temporary (`from_host(h) + y`): the expression keeps it alive, so
/// an expression never dangles on a temporary.
template <class T> struct owning_terminal : array_terminal<T> {
  owning_terminal(array<T>&& a)  // NOLINT: what a temporary array operand becomes
      : owning_terminal(std::make_shared<const array<T>>(std::move(a))) {}
  explicit owning_terminal(std::shared_ptr<const array<T>> a) : array_terminal<T>(*a), owner(std::move(a)) {}
  std::shared_ptr<const array<T>> owner;
};

/// The index of each element in C order within `extents`, as int64, broadcast like an array of
/// that shape (jet::counter): what counter-based random numbers are drawn from. No memory is read.
struct counter {
  static constexpr dtype type = dtype::int64;
  static constexpr bool weak = false;
  static constexpr std::size_t node_count = 1, input_count = 1, scalar_count = 0;
  static constexpr std::size_t depth = 1;

  jet::shape extents;
  detail::layout layout = detail::layout::contiguous(extents);  // what the planner reads

  static void read(const void* at, const detail::leaf_sink& s) {
    s.input[0] = nullptr;
    s.layouts[0] = &static_cast<const counter*>(at)->layout;
  }
  static constexpr detail::type_node tree{{detail::op_id::counter, type}, {}, {}, nullptr, &read};
};

/// A C++ scalar operand. It is a kernel argument: a new value never recompiles.
template <class T> struct scalar {
  static constexpr dtype type = scalar_dtype_of<T>();
  static constexpr bool weak = true;  // see jet::promote
  static constexpr std::size_t node_count = 1, input_count = 0, scalar_count = 1;
  static constexpr std::size_t depth = 1;

  scalar(T v) : value(static_cast<cpp_type<type>>(v)) {}  // NOLINT: what a C++ scalar operand becomes

  // Zero bytes up to a multiple of 8: a node holding a scalar beside an array has no padding, so
  // that copies of a sub-expression compare byte for byte (see type_node::bytes).
  static constexpr std::size_t rounding_bytes = (8 - sizeof(cpp_type<type>) % 8) % 8;

  cpp_type<type> value;
  [[no_unique_address]] detail::zero_bytes<rounding_bytes> rounding;

  static void read(const void* at, const detail::leaf_sink& s) {
    static_assert(sizeof value <= sizeof(detail::scalar_value::bytes));
    detail::scalar_value v{};
    std::memcpy(v.bytes, &static_cast<const scalar*>(at)->value, sizeof value);
    s.scalar[0] = v;
  }
  static constexpr detail::type_node tree{{detail::op_id::scalar, type},          {}, {}, nullptr, &read, nullptr,
                                          sizeof(cpp_type<type>) + rounding_bytes};
};

namespace ops {
/// The op of a call of user function F (JET_FUNCTION's tag; a detail::user_function_tag).
template <class F> struct call {
  static constexpr detail::op_id id = detail::op_id::user;
  using function_tag = F;
};
}  // namespace ops

// The members every node of op Op over operands Args has besides its operands (stored operand
// FIRST first): its counts, its checks, its `tree` and its dtype (which nodes read from their
// operands' trees).
#define JET_DETAIL_NODE(FIRST)                                                                                   \
  enum : std::size_t {                                                                                           \
    node_count = (1 + ... + Args::node_count),                                                                   \
    input_count = (0 + ... + Args::input_count),                                                                 \
    scalar_count = (0 + ... + Args::scalar_count),                                                               \
    depth = 1 + std::max({std::size_t{0}, std::size_t{Args::depth}...}),                                         \
    stored_first = FIRST,                                                                                        \
  };                                                                                                             \
  enum : bool { weak = false };                                                                                  \
  static_assert(detail::op_checked<Op, sizeof...(Args),                                                          \
                                   detail::op_typing<Op>({Args::tree.shape.type...}, {bool(Args::weak)...})>()); \
  static constexpr detail::type_node tree = detail::op_node<Op>(                                                 \
      detail::op_typing<Op>({Args::tree.shape.type...}, {bool(Args::weak)...}), {&Args::tree...},                \
      detail::operand_layout({sizeof(Args)...}, {alignof(Args)...}, {Args::tree.bytes...}, FIRST));              \
  static_assert(tree.shape.arity > 0); /* computes it as the node is built, as the counts */                     \
  static constexpr dtype type = tree.shape.type

/// The one generic node: op `Op` (of the table, or ops::call of a user function) applied to
/// `Args`. An aggregate of its operands, stored shallowest first: built by JET_DETAIL_BUILDn.
template <class Op, class... Args> struct apply;
template <class Op, class... Args>
requires detail::unary<Args...>
struct apply<Op, Args...> {
  typename detail::operand_list<Args...>::first first;
  JET_DETAIL_NODE(0);
};
template <class Op, class... Args>
requires detail::binary<Args...>
struct apply<Op, Args...> {
  typename detail::operand_list<Args...>::first first;
  typename detail::operand_list<Args...>::second second;
  JET_DETAIL_NODE(0);
};
template <class Op, class... Args>
requires detail::binary<Args...> && detail::stores_first<1, Args...>
struct apply<Op, Args...> {
  typename detail::operand_list<Args...>::second second;
  typename detail::operand_list<Args...>::first first;
  JET_DETAIL_NODE(1);
};
template <class Op, class... Args>
requires detail::ternary<Args...>
struct apply<Op, Args...> {
  typename detail::operand_list<Args...>::first first;
  typename detail::operand_list<Args...>::second second;
  typename detail::operand_list<Args...>::third third;
  JET_DETAIL_NODE(0);
};
template <class Op, class... Args>
requires detail::ternary<Args...> && detail::stores_first<1, Args...>
struct apply<Op, Args...> {
  typename detail::operand_list<Args...>::second second;
  typename detail::operand_list<Args...>::first first;
  typename detail::operand_list<Args...>::third third;
  JET_DETAIL_NODE(1);
};
template <class Op, class... Args>
requires detail::ternary<Args...> && detail::stores_first<2, Args...>
struct apply<Op, Args...> {
  typename detail::operand_list<Args...>::third third;
  typename detail::operand_list<Args...>::first first;
  typename detail::operand_list<Args...>::second second;
  JET_DETAIL_NODE(2);
};

#undef JET_DETAIL_NODE

/// A call of a user-defined element function F (JET_FUNCTION): an apply, with the dtypes of F's
/// C++ signature.
template <class F, class... Args> using call = apply<ops::call<F>, Args...>;

namespace detail {

/// Where the leaves of an expression of type E lie in its object, in slot order: what reads a
/// jet::let value's leaves out of its holder.
template <class E> struct leaf_table {
  struct table {
    std::array<leaf_ref, E::input_count + E::scalar_count> refs;
    std::uint32_t count;
    leaf_skips<E::node_count> skips;
  };
  static constexpr table of = [] {
    flat_builder<E::node_count, E::input_count + E::scalar_count> b;
    b.append(E::tree, 0);
    const auto e = sharing_detail::extents_of<E::node_count>(b.nodes.data(), E::node_count);
    const auto first = sharing_detail::first_of_shape<E::node_count>(b.nodes.data(), e, E::node_count);
    return table{b.leaves, b.leaf_count,
                 leaf_skips_of<E::node_count>(b.nodes.data(), E::node_count, b.places.data(), e, first)};
  }();
  static void read(const void* value, const leaf_sink& s) {
    const void* const roots[] = {value};
    read_shared_leaves(of.refs.data(), of.count, of.skips.list.data(), of.skips.count, roots, s);
  }
};

}  // namespace detail

/// A named value (jet::let): expression E, held once and shared by every copy, so that using it
/// many times costs a pointer copy each, and computed once per element wherever it is used in one
/// kernel (its uses are repeats of one subtree over the same operands, listed first). Flattening
/// reads its leaves through its holder (leaf_table), not at offsets in the root's object.
template <class E> struct named {
  enum : std::size_t {
    node_count = E::node_count,
    input_count = E::input_count,
    scalar_count = E::scalar_count,
    depth = E::depth,
  };
  enum : bool { weak = bool(E::weak) };
  static void read(const void* at, const detail::leaf_sink& s) {
    detail::leaf_table<E>::read(&static_cast<const named*>(at)->shared_->value, s);
  }
  static constexpr detail::type_node tree = [] {
    detail::type_node t = E::tree;
    t.shape.named = true;
    t.read_named = &read;
    t.bytes = sizeof(void*);  // its holder's address
    return t;
  }();
  static constexpr dtype type = E::type;

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

// Class templates, not variable templates: the concepts below test every operand, and a variable
// instantiated for an expression's type is one more entity named by it (see the top of this file).
template <class T> struct is_expression : std::false_type {};
template <class E> struct is_expression<named<E>> : std::true_type {};
template <class T> struct is_expression<terminal<T>> : std::true_type {};
template <class T> struct is_expression<array_terminal<T>> : std::true_type {};
template <class T> struct is_expression<owning_terminal<T>> : std::true_type {};
template <class T> struct is_expression<scalar<T>> : std::true_type {};
template <class Op, class... A> struct is_expression<apply<Op, A...>> : std::true_type {};
template <> struct is_expression<counter> : std::true_type {};

template <class T> struct is_array : std::false_type {};
template <class T> struct is_array<array<T>> : std::true_type {};
template <class T> struct is_view : std::false_type {};
template <class T> struct is_view<view<T>> : std::true_type {};

template <class T> inline constexpr bool is_array_v = is_array<T>::value;
template <class T> inline constexpr bool is_view_v = is_view<T>::value;

}  // namespace detail

/// An expression node type.
template <class T>
concept expression = detail::is_expression<std::remove_cvref_t<T>>::value;

/// Anything that makes an expression out of its own: an expression, an array or a view.
template <class T>
concept jet_operand =
    expression<T> || detail::is_array<std::remove_cvref_t<T>>::value || detail::is_view<std::remove_cvref_t<T>>::value;

/// A C++ scalar that can be an operand: an arithmetic type, std::complex<float> or std::complex<double>.
template <class T>
concept scalar_operand =
    std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

/// An operand of an op: a jet operand or a C++ scalar.
template <class T>
concept operand = jet_operand<T> || scalar_operand<std::remove_cvref_t<T>>;

/// Operands of an op of which at least one is a jet operand (so `2 + 3` stays C++).
template <class... T>
concept operands = (operand<T> && ...) && (jet_operand<T> || ...);

namespace detail {

/// The node type of an operand of type T (a forwarding reference's): an expression is itself,
/// an array an array_terminal (owning_terminal when a temporary), a view a terminal, a C++ scalar
/// a scalar. A class template, not decltype of a function: an expression type's instantiations
/// of a function each cost the compiler a name as long as the type.
template <class T, class U = std::remove_cvref_t<T>> struct operand_type { using type = scalar<U>; };
template <class T, class U>
requires expression<U>
struct operand_type<T, U> {
  using type = U;
};
template <class T, class U>
requires(is_array<U>::value) struct operand_type<T, U> {
  using type = std::conditional_t<std::is_lvalue_reference_v<T>, array_terminal<typename U::value_type>,
                                  owning_terminal<typename U::value_type>>;
};
template <class T, class U>
requires(is_view<U>::value) struct operand_type<T, U> {
  using type = terminal<typename U::value_type>;
};
template <class T> using expr_t = typename operand_type<T>::type;

/// An operand as its node holds it.
template <class T> expr_t<T> as_expr(T&& x) { return expr_t<T>(std::forward<T>(x)); }

/// The node of op Op over operands of types A (forwarding references' types).
template <class Op, class... A> using apply_t = apply<Op, expr_t<A>...>;

// JET_DETAIL_BUILDn(N, (A, a), ...) returns node N (an apply) of n operands a of types A
// (forwarding references'), as the op functions build theirs: each operand converts to its node
// type, in the order N stores them. Spelled out in each op function rather than called: each
// function instantiated for an expression's type is one more entity named by it (see the top of
// this file).
#define JET_DETAIL_OPERAND(A, a) static_cast<A&&>(a)
#define JET_DETAIL_BUILD1(N, a) \
  return N { JET_DETAIL_OPERAND a }
#define JET_DETAIL_BUILD2(N, a, b)                        \
  if constexpr (N::stored_first == 0)                     \
    return N{JET_DETAIL_OPERAND a, JET_DETAIL_OPERAND b}; \
  else                                                    \
    return N { JET_DETAIL_OPERAND b, JET_DETAIL_OPERAND a }
#define JET_DETAIL_BUILD3(N, a, b, c)                                           \
  if constexpr (N::stored_first == 0)                                           \
    return N{JET_DETAIL_OPERAND a, JET_DETAIL_OPERAND b, JET_DETAIL_OPERAND c}; \
  else if constexpr (N::stored_first == 1)                                      \
    return N{JET_DETAIL_OPERAND b, JET_DETAIL_OPERAND a, JET_DETAIL_OPERAND c}; \
  else                                                                          \
    return N { JET_DETAIL_OPERAND c, JET_DETAIL_OPERAND a, JET_DETAIL_OPERAND b }

/// Op's node over a (, b (, c)), as the op functions build theirs (tests build any op with it).
template <class Op, class A> auto make_apply(A&& a) {
  using node = apply_t<Op, A>;
  JET_DETAIL_BUILD1(node, (A, a));
}
template <class Op, class A, class B> auto make_apply(A&& a, B&& b) {
  using node = apply_t<Op, A, B>;
  JET_DETAIL_BUILD2(node, (A, a), (B, b));
}
template <class Op, class A, class B, class C> auto make_apply(A&& a, B&& b, C&& c) {
  using node = apply_t<Op, A, B, C>;
  JET_DETAIL_BUILD3(node, (A, a), (B, b), (C, c));
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
  static_assert(((!is_complex(Es::type) || is_complex(dtype_of<Outs>())) && ...),
                "jet: a complex expression is stored into a real array only through real(), imag(), abs() or arg()");
  static constexpr std::size_t node_count = (0 + ... + Es::node_count);
  static constexpr std::size_t input_count = (0 + ... + Es::input_count);
  static constexpr std::size_t scalar_count = (0 + ... + Es::scalar_count);
  static_assert(input_count > 0, "jet: an expression needs at least one array operand");
  static_assert(operands_within_limits<input_count, scalar_count>());
  static_assert(node_count <= max_nodes,
                "jet: more than 65535 nodes in one kernel (jet::detail::max_nodes); evaluate part of it first with "
                "jet::eval");

  struct flat {
    std::array<node, node_count> nodes;
    std::array<std::uint16_t, sizeof...(Es)> out_nodes;
    std::array<const user_function*, node_count> functions;
    std::uint32_t function_count;
    std::uint32_t counter_slots;
    std::array<leaf_ref, input_count + scalar_count> leaves;
    std::uint32_t leaf_count;
    leaf_skips<node_count> skips;
    repeats_of_nodes<node_count> repeats;
  };
  static constexpr flat flattened = [] {
    flat_builder<node_count, input_count + scalar_count> b;
    if constexpr (node_count > max_nodes)  // reported above; not flattened, which would say more
      return flat{};
    else {
      std::uint32_t root = 0;
      // In order (a braced list is evaluated left to right), sharing slots.
      const std::array<std::uint16_t, sizeof...(Es)> out_nodes{b.append(Es::tree, root++)...};
      const auto e = sharing_detail::extents_of<node_count>(b.nodes.data(), node_count);
      const auto first = sharing_detail::first_of_shape<node_count>(b.nodes.data(), e, node_count);
      return flat{b.nodes,
                  out_nodes,
                  b.functions,
                  b.function_count,
                  b.counter_slots,
                  b.leaves,
                  b.leaf_count,
                  leaf_skips_of<node_count>(b.nodes.data(), node_count, b.places.data(), e, first),
                  repeats_of_nodes<node_count>(b.nodes.data(), node_count, e, first)};
    }
  }();
  static constexpr std::array<dtype, input_count> input_types = [] {
    std::array<dtype, input_count> types{};
    for (const node& n : flattened.nodes)
      if (n.op == op_id::input || n.op == op_id::counter) types[n.arg[0]] = n.type;
    return types;
  }();
  static constexpr std::array<dtype, sizeof...(Outs)> out_types{dtype_of<Outs>()...};
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
      .repeats = flattened.repeats.list.data(),
      .repeat_count = flattened.repeats.count};
  static inline kernel_slot slot;

  /// The run-time values of the leaves of `es`, expressions of types Es.
  static leaves<input_count, scalar_count> values_of(const Es&... es) {
    leaves<input_count, scalar_count> values;
    const void* const roots[] = {std::addressof(es)...};
    read_shared_leaves(flattened.leaves.data(), flattened.leaf_count, flattened.skips.list.data(),
                       flattened.skips.count, roots,
                       {values.input.data(), values.layouts.data(), values.scalar.data()});
    return values;
  }
};

/// Expressions bound to their leaves' run-time values, ready to evaluate into arrays of Outs.
template <class Roots, class... Outs> struct bound;
template <class... Es, class... Outs> struct bound<roots<Es...>, Outs...> {
  using kernel = kernel_of<roots<Es...>, Outs...>;
  leaves<kernel::input_count, kernel::scalar_count> values;

  explicit bound(const Es&... es) : values(kernel::values_of(es...)) {}
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
