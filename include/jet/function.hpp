// User-defined element functions: CUDA source that expressions call like any op.
//   JET_FUNCTION(scaled_product, float(float a, float b), "return a * b + 1.0f;");
//   z = jet::relu(scaled_product(x, y));   // still one fused kernel
#pragma once

#include <jet/expr.hpp>

#include <utility>

namespace jet::detail {

template <class Signature> struct user_function_tag;
template <class R, class... Args> struct user_function_tag<R(Args...)> {
  static constexpr dtype result_dtype = dtype_of<R>();
  static constexpr int arity = sizeof...(Args);
  static_assert(arity >= 1 && arity <= 3, "jet: a JET_FUNCTION takes one to three parameters");
  static constexpr typing typed{result_dtype, {dtype_of<Args>()...}};  // what each argument converts to
};

/// The call of F over operands of types A (forwarding references' types).
template <class F, class... A> using call_t = apply<ops::call<F>, expr_t<A>...>;

/// F's call over a (, b (, c)), as JET_FUNCTION's functions build theirs.
template <class F, class A> auto make_call(A&& a) {
  using node = call_t<F, A>;
  JET_DETAIL_BUILD1(node, (A, a));
}
template <class F, class A, class B> auto make_call(A&& a, B&& b) {
  using node = call_t<F, A, B>;
  JET_DETAIL_BUILD2(node, (A, a), (B, b));
}
template <class F, class A, class B, class C> auto make_call(A&& a, B&& b, C&& c) {
  using node = call_t<F, A, B, C>;
  JET_DETAIL_BUILD3(node, (A, a), (B, b), (C, c));
}

}  // namespace jet::detail

/// Declares `name(...)`, an element function with C++ signature `signature` (parameter types
/// float, double, int, long or bool, each parameter named) and CUDA body `body`, usable inside
/// jet expressions. The name must be ASCII letters, digits and `_`, and the body at most
/// max_body_bytes (both checked here, at compile time); code generation checks the signature and
/// the body's tokens (README, "User functions"); a body that does not compile throws
/// jet::compile_error with NVRTC's log.
///
/// Both declarations are in an unnamed namespace, so a JET_FUNCTION belongs to its translation
/// unit: two files may declare one name with different bodies and each runs its own (one type of
/// the same name in both would be one kernel for the linker, which would run one file's body in
/// the other's expressions).
#define JET_FUNCTION(name, signature, body)                                                              \
  namespace {                                                                                            \
  struct name##_jet_function : ::jet::detail::user_function_tag<signature> {                             \
    static_assert(::jet::detail::is_ascii_identifier(#name),                                             \
                  "jet: a JET_FUNCTION name is ASCII letters, digits and _, not starting with a digit"); \
    static_assert(::jet::detail::bounded_length(body, ::jet::detail::max_body_bytes + 1) <=              \
                      ::jet::detail::max_body_bytes,                                                     \
                  "jet: a JET_FUNCTION body is at most 64 KiB (jet::detail::max_body_bytes)");           \
    static constexpr ::jet::detail::user_function function{#name, #signature, body};                     \
  };                                                                                                     \
  template <class A>                                                                                     \
  requires ::jet::operands<A>                                                                            \
  auto name(A&& a) {                                                                                     \
    using node = ::jet::detail::call_t<name##_jet_function, A>;                                          \
    JET_DETAIL_BUILD1(node, (A, a));                                                                     \
  }                                                                                                      \
  template <class A, class B>                                                                            \
  requires ::jet::operands<A, B>                                                                         \
  auto name(A&& a, B&& b) {                                                                              \
    using node = ::jet::detail::call_t<name##_jet_function, A, B>;                                       \
    JET_DETAIL_BUILD2(node, (A, a), (B, b));                                                             \
  }                                                                                                      \
  template <class A, class B, class C>                                                                   \
  requires ::jet::operands<A, B, C>                                                                      \
  auto name(A&& a, B&& b, C&& c) {                                                                       \
    using node = ::jet::detail::call_t<name##_jet_function, A, B, C>;                                    \
    JET_DETAIL_BUILD3(node, (A, a), (B, b), (C, c));                                                     \
  }                                                                                                      \
  template <class... A>                                                                                  \
  requires(sizeof...(A) > 3 && ::jet::operands<A...>) void name(A&&...) {                                \
    static_assert(sizeof...(A) <= 3, "jet: wrong number of arguments for a JET_FUNCTION");               \
  }                                                                                                      \
  }
