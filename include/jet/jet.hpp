// jet: JIT expression templates. Array arithmetic on NVIDIA GPUs, fused into one kernel per
// expression and compiled at run time with NVRTC. The one header users include.
#pragma once

#include <jet/array.hpp>
#include <jet/dtype.hpp>
#include <jet/error.hpp>
#include <jet/expr.hpp>
#include <jet/ops.hpp>
#include <jet/runtime.hpp>

#include <string>
#include <type_traits>

namespace jet {

namespace detail {
template <class E> using default_kernel = kernel_of<std::remove_cvref_t<E>, cpp_type<std::remove_cvref_t<E>::type>>;
}

/// The CUDA source jet generates for e (for debugging; the variant for aligned, distinct operands).
template <expression E> std::string source(const E&) { return detail::source_of(detail::default_kernel<E>::desc); }

/// Compiles e's kernel for an explicit architecture; needs NVRTC but no GPU. Uses the disk cache.
template <expression E> compiled_kernel compile(const E&, arch target) {
  return detail::compile_for(detail::default_kernel<E>::desc, target);
}

/// Compiles the kernels of `expressions` for the current device in parallel threads, so that
/// their first evaluation finds them ready. Each is the variant for aligned, distinct operands
/// and an output of the expression's own dtype (what assigning it to a fresh jet::array uses).
template <expression... E> requires(sizeof...(E) > 0) void precompile(const E&...) {
  const detail::kernel_request kernels[] = {{detail::default_kernel<E>::desc, detail::default_kernel<E>::slot}...};
  detail::precompile(kernels, sizeof...(E));
}

}  // namespace jet
