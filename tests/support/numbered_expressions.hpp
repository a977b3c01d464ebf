// Many different expressions, numbered, for tests that need many kernels: expression I is
// outer(inner(x) + y), with outer the (I % 10)th and inner the (I / 10)th function below, so the
// first 100 numbers give 100 different kernels.
#pragma once

#include "cubin.hpp"

#include <jet/jet.hpp>

#include <cstddef>
#include <exception>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

namespace jet::test {

// Quick to compile, all of them: no sin, cos or tanh, whose range reduction makes a compile
// several times slower.
inline constexpr auto numbered_functions = std::make_tuple(
    [](auto a) { return -a; }, [](auto a) { return jet::abs(a); }, [](auto a) { return jet::relu(a); },
    [](auto a) { return jet::sqrt(a); }, [](auto a) { return jet::rsqrt(a); }, [](auto a) { return jet::exp(a); },
    [](auto a) { return jet::log(a); }, [](auto a) { return jet::sigmoid(a); }, [](auto a) { return a * 2.0f; },
    [](auto a) { return jet::max(a, 0.5f); });
inline constexpr std::size_t numbered_expression_count = 100;

template <std::size_t I, class X, class Y> auto numbered_expression(const X& x, const Y& y) {
  static_assert(I < numbered_expression_count);
  return std::get<I % 10>(numbered_functions)(std::get<I / 10>(numbered_functions)(x) + y);
}

/// f(I, numbered_expression<I>(x, y)) for each I below N, in order.
template <std::size_t N, class X, class Y, class F> void for_each_numbered_expression(const X& x, const Y& y, F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) { (f(I, numbered_expression<I>(x, y)), ...); }
  (std::make_index_sequence<N>{});
}

using compile_call = std::function<jet::compiled_kernel()>;

/// jet::compile for sm_90 of each of the first N numbered expressions, as calls to make in any order.
template <std::size_t N, class X, class Y> std::vector<compile_call> numbered_compiles(const X& x, const Y& y) {
  std::vector<compile_call> calls;
  for_each_numbered_expression<N>(
      x, y, [&](std::size_t, const auto& e) { calls.push_back([e] { return jet::compile(e, hopper); }); });
  return calls;
}

/// Makes every call, from calls[first] on and round to calls[first - 1]; returns how many did not
/// give a cubin (an exception counts as one).
inline std::size_t failed_compiles(const std::vector<compile_call>& calls, std::size_t first) {
  std::size_t failed = 0;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    try {
      failed += !is_cubin(calls[(first + i) % calls.size()]());
    } catch (const std::exception&) {
      ++failed;
    }
  }
  return failed;
}

}  // namespace jet::test
