// Neural-network activations and NumPy's other names for ops, written as expressions over the op
// table: each is one fused kernel like any expression, its operand read once (a repeated operand
// or subexpression is computed once, see README "Shared subexpressions"). Parameters are C++
// scalars, so they keep the operand's dtype (jet::promote) and a new value never recompiles.
// The formulas and defaults are PyTorch's (torch.nn.functional), NaN propagating.
#pragma once

#include <jet/ops.hpp>

namespace jet {

// NumPy's and SciPy's names.
template <jet_operand X> auto expit(X&& x) { return sigmoid(std::forward<X>(x)); }
template <jet_operand X> auto rad2deg(X&& x) { return degrees(std::forward<X>(x)); }
template <jet_operand X> auto deg2rad(X&& x) { return radians(std::forward<X>(x)); }

/// x·Φ(x), Φ the standard normal CDF: GELU's exact (erf) form.
template <jet_operand X> auto gelu(X&& x) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return v * normcdf(v);
}
/// GELU's tanh approximation: x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³))).
template <jet_operand X> auto gelu_tanh(X&& x) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return 0.5 * v * (1.0 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
}
/// x·sigmoid(x) (also called swish).
template <jet_operand X> auto silu(X&& x) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return v * sigmoid(v);
}
/// log(1 + e^(βx))/β, and x itself where βx > threshold (where the two agree to rounding).
template <jet_operand X> auto softplus(X&& x, double beta = 1, double threshold = 20) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return where(v * beta > threshold, v, log1p(exp(v * beta)) / beta);
}
/// x·tanh(softplus(x)).
template <jet_operand X> auto mish(X&& x) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return v * tanh(softplus(v));
}
/// x above 0, α(e^x - 1) elsewhere.
template <jet_operand X> auto elu(X&& x, double alpha = 1) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return where(v > 0, v, alpha * expm1(v));
}
/// λ·elu(x, α) with the self-normalizing constants (Klambauer et al., 2017).
template <jet_operand X> auto selu(X&& x) {
  return 1.0507009873554804934193349852946 * elu(std::forward<X>(x), 1.6732632423543772848170429916717);
}
/// x above 0, α(e^(x/α) - 1) elsewhere.
template <jet_operand X> auto celu(X&& x, double alpha = 1) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return where(v > 0, v, alpha * expm1(v / alpha));
}
/// x above 0, slope·x elsewhere.
template <jet_operand X> auto leaky_relu(X&& x, double slope = 0.01) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return where(v > 0, v, v * slope);
}
/// x clamped to [lo, hi].
template <jet_operand X> auto hardtanh(X&& x, double lo = -1, double hi = 1) {
  return clamp(std::forward<X>(x), lo, hi);
}
/// x clamped to [0, 6].
template <jet_operand X> auto relu6(X&& x) { return clamp(std::forward<X>(x), 0.0, 6.0); }
/// relu6(x + 3)/6.
template <jet_operand X> auto hardsigmoid(X&& x) { return clamp(std::forward<X>(x) + 3.0, 0.0, 6.0) / 6.0; }
/// x·relu6(x + 3)/6, computed as x·(relu6(x + 3)/6) so that no product overflows: x itself
/// from 3 up (the largest finite value too).
template <jet_operand X> auto hardswish(X&& x) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return v * (clamp(v + 3.0, 0.0, 6.0) / 6.0);
}
/// log(sigmoid(x)) = min(x, 0) - log(1 + e^-|x|), which neither overflows nor loses the tail.
template <jet_operand X> auto logsigmoid(X&& x) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return where(v < 0, v, 0.0) - log1p(exp(-abs(v)));
}
/// x/(1 + |x|).
template <jet_operand X> auto softsign(X&& x) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return v / (1.0 + abs(v));
}
/// x - tanh(x).
template <jet_operand X> auto tanhshrink(X&& x) {
  const auto v = detail::as_expr(std::forward<X>(x));
  return v - tanh(v);
}

}  // namespace jet
