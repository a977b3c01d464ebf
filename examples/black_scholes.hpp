// The Black-Scholes formula of NVIDIA's CUDA samples (Samples/5_Domain_Specific/BlackScholes) in
// plain jet expressions: the cumulative normal distribution is a function template over an
// expression, d1, d2 and the other intermediate values are `auto` sub-expressions (or, on request,
// jet::let values), and call and put come out of one kernel (`jet::tie(call, put) = black_scholes::prices(s, x, t)`). Written as the
// sample writes its device code, operation for operation, so the hand-written CUDA kernel in
// benchmarks/native_peers.cu computes the same values. Used by examples/black_scholes.cpp,
// benchmarks/jet_bench.cpp and tests/test_black_scholes_source.cpp.
#pragma once

#include <jet/jet.hpp>

namespace black_scholes {

/// The sample's market: the riskless rate and the volatility, per year.
inline constexpr float riskfree = 0.02f, volatility = 0.30f;

/// How the formula names its intermediate values: as plain `auto` sub-expressions (each use
/// copies the subtree; jet finds the repeats itself), or with jet::let (each use copies a
/// pointer). Both compute each value once per option, in the same kernel.
struct let_values {
  template <class E> auto operator()(const E& e) const { return jet::let(e); }
};
struct auto_values {
  template <class E> E operator()(const E& e) const { return e; }
};

/// The cumulative normal distribution of d, a float expression, by the polynomial approximation
/// of Abramowitz and Stegun (26.2.17) that the sample uses; absolute error below 7.5e-8.
template <class D, class Name = auto_values> auto cnd(const D& d, Name name = {}) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
  const float rsqrt2pi = 0.39894228040143267793994605993438f;
  const auto k = name(1.0f / (1.0f + 0.2316419f * jet::abs(d)));
  const auto tail = name(rsqrt2pi * jet::exp(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))))));
  return name(jet::where(d > 0.0f, 1.0f - tail, tail));
}

/// European call and put prices of options on stocks at price s with strike x, expiring in t
/// years (arrays or views of float, one option per element): a jet::tuple of the two
/// expressions, for jet::tie(call, put).
template <class A, class Name = auto_values>
auto prices(const A& s, const A& x, const A& t, float r = riskfree, float v = volatility, Name name = {}) {
  const auto sqrt_t = name(jet::sqrt(t));
  const auto d1 = name((jet::log(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t));
  const auto d2 = name(d1 - v * sqrt_t);
  const auto discounted_strike = name(x * jet::exp(-r * t));
  const auto cnd_d1 = cnd(d1, name);
  const auto cnd_d2 = cnd(d2, name);
  return jet::tuple(s * cnd_d1 - discounted_strike * cnd_d2, discounted_strike * (1.0f - cnd_d2) - s * (1.0f - cnd_d1));
}

}  // namespace black_scholes
