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
  static constexpr dtype arg_dtypes[] = {dtype_of<Args>()...};
};

template <class F, class... A> auto make_call(A&&... a) {
  return call<F, expr_t<A>...>{boost::hana::make_tuple(as_expr(std::forward<A>(a))...)};
}

}  // namespace jet::detail

/// Declares `name(...)`, an element function with C++ signature `signature` (parameter types
/// float, double, int, long or bool, each parameter named) and CUDA body `body`, usable inside
/// jet expressions. jet checks the name, the parameters and the body's braces before generating a
/// kernel; a body that does not compile throws jet::compile_error with NVRTC's log.
#define JET_FUNCTION(name, signature, body)                                                  \
  struct name##_jet_function : ::jet::detail::user_function_tag<signature> {                  \
    static constexpr ::jet::detail::user_function function{#name, #signature, body};          \
  };                                                                                         \
  template <class... A> requires ::jet::operands<A...> auto name(A&&... a) {                  \
    return ::jet::detail::make_call<name##_jet_function>(std::forward<A>(a)...);            \
  }
