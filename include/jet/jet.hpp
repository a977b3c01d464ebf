// jet: JIT expression templates. Array arithmetic on NVIDIA GPUs, fused into one kernel per
// expression and compiled at run time with NVRTC. The one header users include.
#pragma once

#include <jet/activations.hpp>
#include <jet/array.hpp>
#include <jet/compositions.hpp>
#include <jet/constructors.hpp>
#include <jet/dtype.hpp>
#include <jet/error.hpp>
#include <jet/expr.hpp>
#include <jet/fft.hpp>
#include <jet/function.hpp>
#include <jet/ops.hpp>
#include <jet/print.hpp>
#include <jet/random.hpp>
#include <jet/reduce.hpp>
#include <jet/runtime.hpp>
#include <jet/stream.hpp>
#include <jet/two_outputs.hpp>

#include <string>
#include <tuple>
#include <type_traits>

namespace jet {

namespace detail {
template <class E> using stored_t = cpp_type<std::remove_cvref_t<E>::type>;
template <class E> using default_kernel = kernel_of<roots<std::remove_cvref_t<E>>, stored_t<E>>;
}  // namespace detail

/// The CUDA source jet generates for e stored into a fresh array (for debugging): for e's own
/// operands, so it shows which of them are one parameter and which repeats are computed once.
template <expression E> std::string source(const E& e) {
  return detail::source_of(detail::bound_one<detail::stored_t<E>, E>(e).request(nullptr, nullptr));
}

/// Compiles e's kernel, as source(e) shows it, for an explicit architecture; needs NVRTC but no
/// GPU. Uses the disk cache.
template <expression E> compiled_kernel compile(const E& e, arch target) {
  return detail::compile_for(detail::bound_one<detail::stored_t<E>, E>(e).request(nullptr, nullptr), target);
}

/// Compiles the kernels of `expressions` for the current device in parallel threads, so that
/// their first evaluation finds them ready: each for its own operands (which of them are the same
/// memory, their layouts), stored into a fresh array of the expression's dtype.
template <expression... E>
requires(sizeof...(E) > 0) void precompile(const E&... expressions) {
  std::tuple<detail::bound_one<detail::stored_t<E>, E>...> bound{
      detail::bound_one<detail::stored_t<E>, E>(expressions)...};
  std::apply(
      [](auto&... b) {
        const detail::evaluation requests[] = {b.request(nullptr, nullptr)...};
        detail::precompile(requests, sizeof...(E));
      },
      bound);
}

}  // namespace jet
