// Normalisations along an axis, written as expressions over reductions kept as operands
// (`jet::max(x, jet::axis{1}, jet::keepdims)`): softmax, log_softmax, logsumexp, layer_norm,
// rms_norm, normalize and standardize. Each returns an expression, assigned or used like any
// other; README "Reductions inside expressions" says which kernels evaluate it. The formulas are
// PyTorch's (torch.nn.functional) and SciPy's, NaN propagating.
#pragma once

#include <jet/ops.hpp>
#include <jet/reduce.hpp>

#include <utility>

namespace jet {
namespace detail {

/// x as a composition computes it: a real float in its compute type (float16 and bfloat16 widened
/// to float32), so that the kept reductions between its steps are not rounded to 16 bits;
/// `as_input<X>(e)` rounds a result back to x's dtype.
template <jet_operand X> auto widened(X&& x) {
  using V = expr_t<X>;
  static_assert(is_floating(V::type) && !is_complex(V::type),
                "jet: softmax, log_softmax, logsumexp, layer_norm, rms_norm, normalize and standardize take real "
                "floating operands: cast integers with jet::cast<float>(x) first");
  if constexpr (compute_type(V::type) != V::type)
    return cast<cpp_type<compute_type(V::type)>>(as_expr(std::forward<X>(x)));
  else
    return as_expr(std::forward<X>(x));
}
template <jet_operand X, class E> auto as_input(E&& e) {
  constexpr dtype stored = expr_t<X>::type;
  if constexpr (compute_type(stored) != stored)
    return cast<cpp_type<stored>>(std::forward<E>(e));
  else
    return std::forward<E>(e);
}

/// max(v) along `along`, kept, with a non-finite maximum replaced by 0 (SciPy's logsumexp): a row
/// of -inf then sums exp(-inf) = 0 instead of exp(NaN).
template <class V> auto finite_max(const V& v, int along) {
  const auto m = jet::max(v, axis{along}, keepdims);
  return where(isfinite(m), m, 0);
}

}  // namespace detail

/// exp(x - max) / Σ exp(x - max) along `along`. As PyTorch's: a row holding NaN or +inf, or all
/// -inf, gives NaN throughout.
template <jet_operand X> auto softmax(X&& x, int along) {
  const auto v = detail::widened(std::forward<X>(x));
  const auto e = exp(v - jet::max(v, axis{along}, keepdims));
  return detail::as_input<X>(e / sum(e, along, keepdims));
}

/// x - max - log Σ exp(x - max) along `along`: log(softmax(x)) without its rounding or underflow.
template <jet_operand X> auto log_softmax(X&& x, int along) {
  const auto v = detail::widened(std::forward<X>(x));
  const auto shifted = v - jet::max(v, axis{along}, keepdims);
  return detail::as_input<X>(shifted - log(sum(exp(shifted), along, keepdims)));
}

/// log Σ exp(x) along `along`, kept (extent 1 along it): m + log Σ exp(x - m), m the maximum or 0
/// where that is not finite (SciPy's: a row of -inf gives -inf, one holding +inf gives +inf).
template <jet_operand X> auto logsumexp(X&& x, int along, keepdims_t) {
  const auto v = detail::widened(std::forward<X>(x));
  const auto m = detail::finite_max(v, along);
  return detail::as_input<X>(m + log(sum(exp(v - m), along, keepdims)));
}

/// (x - mean) / √(var + eps) · weight + bias over the last axis, var the biased variance (as
/// torch.nn.functional.layer_norm over one dimension); weight and bias broadcast along it.
template <jet_operand X, operand W, operand B> auto layer_norm(X&& x, W&& weight, B&& bias, double eps = 1e-5) {
  const auto v = detail::widened(std::forward<X>(x));
  const auto centred = v - mean(v, -1, keepdims);
  return detail::as_input<X>(centred / sqrt(mean(centred * centred, -1, keepdims) + eps) * std::forward<W>(weight) +
                             std::forward<B>(bias));
}

/// x / √(mean(x²) + eps) · weight over the last axis (torch.nn.functional.rms_norm).
template <jet_operand X, operand W> auto rms_norm(X&& x, W&& weight, double eps = 1e-6) {
  const auto v = detail::widened(std::forward<X>(x));
  return detail::as_input<X>(v / sqrt(mean(v * v, -1, keepdims) + eps) * std::forward<W>(weight));
}

/// x / max(‖x‖₂, eps) along `along` (torch.nn.functional.normalize with p = 2; a NaN norm stays
/// NaN).
template <jet_operand X> auto normalize(X&& x, int along, double eps = 1e-12) {
  const auto v = detail::widened(std::forward<X>(x));
  return detail::as_input<X>(v / maximum(norm2(v, along, keepdims), eps));
}

/// (x - mean) / std along `along`, std the population standard deviation (NumPy's ddof = 0).
template <jet_operand X> auto standardize(X&& x, int along) {
  const auto v = detail::widened(std::forward<X>(x));
  const auto centred = v - mean(v, along, keepdims);
  return detail::as_input<X>(centred / sqrt(mean(centred * centred, along, keepdims)));
}

}  // namespace jet
