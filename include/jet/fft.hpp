// FFTs by cuFFT, loaded at run time: jet::fft(x * window) evaluates its operand (any expression,
// array or view) into a scratch buffer in one kernel (with JET_FFT_CALLBACKS=on, computes it in
// cuFFT's loads through an LTO callback that NVRTC compiles instead); cuFFT transforms it into a
// new array. NumPy's conventions: forward unnormalized, inverse scaled by 1/n.
#pragma once

#include <jet/array.hpp>
#include <jet/dtype.hpp>
#include <jet/error.hpp>
#include <jet/expr.hpp>
#include <jet/reduce.hpp>  // jet::axis
#include <jet/shape.hpp>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace jet {

/// cuFFT could not be loaded (libcufft.so.12, then libcufft.so.11, or JET_CUFFT_LIBRARY): the
/// message names each library tried and why it failed. The rest of jet keeps working.
struct fft_unavailable : error {
  using error::error;
};

/// Whether cuFFT can be loaded (no device needed); on false, `reason` says why.
bool fft_available(std::string* reason = nullptr);

namespace detail {

enum class fft_kind : std::uint8_t { forward, inverse, real_forward, real_inverse };

/// An FFT call's shapes, checked before any device work.
struct fft_geometry {
  fft_kind kind;
  int rank;             // transformed axes: 1 (along `axis`), or 2 (the last two)
  int axis;             // the first transformed axis, in [0, the operand's rank)
  std::int64_t n[2];    // the transform's lengths (for rfft and irfft the real side's)
  std::int64_t length;  // elements of the last transformed axis the transform reads
  jet::shape operand;   // the operand's shape
  jet::shape buffer;    // the scratch the operand is evaluated into: its shape, or padded with zeros
  jet::shape output;    // the result's shape
  int last_axis() const { return axis + rank - 1; }
  bool padded() const { return !(buffer == operand); }
};

/// The shapes of an FFT of `rank` axes (1: along `axis`, negative counting from the end, to
/// length n, the operand's extent when absent; irfft's default is 2 * (m - 1)). invalid_argument
/// naming the function for a bad axis, a rank below 2 for fft2, or a length below 1; shape_error
/// for sizes past jet::size_limit (double_precision: elements of 8-byte parts).
fft_geometry fft_geometry_of(fft_kind kind, int rank, const jet::shape& operand, std::optional<std::int64_t> n,
                             int axis, bool double_precision);

/// Loads cuFFT (fft_unavailable when it cannot be).
void fft_require_library();

/// Transforms the buffer (contiguous, of shape g.buffer; it may be overwritten) into `output`
/// (contiguous, of shape g.output) on the current stream, scaling an inverse by 1/n.
void fft_execute(const fft_geometry& g, bool double_precision, void* buffer, void* output);

/// The same for the buffer that e (the operand into the part of the buffer it covers) fills: e
/// evaluated into the buffer, zero-filled first where it pads; or, with JET_FFT_CALLBACKS=on and
/// where an LTO callback can, computed in cuFFT's loads (the buffer then never written, and the
/// zeros where it pads computed too).
void fft_execute_from(const fft_geometry& g, bool double_precision, const evaluation& e, void* buffer, void* output);

/// Plans cuFFT made in this process (the plan cache's misses).
std::size_t fft_plans_created();

template <class T> struct fft_real;
template <class T> struct fft_real<std::complex<T>> { using type = T; };
template <> struct fft_real<float> { using type = float; };
template <> struct fft_real<double> { using type = double; };

/// The real type an FFT of E computes in: float for 16-bit and 32-bit floats and complex64 (NumPy
/// 2 computes float32 in single precision), double for everything else.
template <class E> constexpr bool fft_single() {
  constexpr dtype d = std::remove_cvref_t<E>::type;
  return d == dtype::float16 || d == dtype::bfloat16 || d == dtype::float32 || d == dtype::complex64;
}
template <class E> using fft_real_t = std::conditional_t<fft_single<E>(), float, double>;

/// Whether E is an array or a view of In, which a transform may read where it is.
template <class In, class E> constexpr bool fft_leaf_of =
    std::is_same_v<E, terminal<In>> || std::is_same_v<E, array_terminal<In>> || std::is_same_v<E, owning_terminal<In>>;

/// e, as a buffer of In (zero-padded or cropped along the last transformed axis to the length the
/// transform reads) would hold it, transformed into a new array of Out (fft_execute_from). A
/// contiguous array or view of In that needs no padding is read where it is: cuFFT reads it
/// without writing it, but for C2R (irfft), which always gets a copy.
template <class In, class Out, class E>
array<Out> run_fft(const E& e, fft_kind kind, int rank, std::optional<std::int64_t> n, int axis) {
  constexpr bool double_precision = std::is_same_v<typename fft_real<Out>::type, double>;
  const bound_one<In, E> bound(e);
  const fft_geometry g = fft_geometry_of(kind, rank, bound.shape(), n, axis, double_precision);
  fft_require_library();
  array<Out> out(g.output);
  if (out.empty()) return out;
  if constexpr (fft_leaf_of<In, E>) {
    if (!g.padded() && kind != fft_kind::real_inverse && e.layout().is_contiguous()) {
      fft_execute(g, double_precision, const_cast<In*>(e.data()), out.data());
      return out;
    }
  }
  array<In> buffer(g.buffer);
  const jet::view<In> target = g.padded() ? buffer.slice(g.last_axis(), 0, g.operand[g.last_axis()]) : buffer.view();
  void* to = target.data();
  fft_execute_from(g, double_precision, bound.request(&to, &target.layout()), buffer.data(), out.data());
  return out;
}

template <class E> using fft_complex_t = std::complex<fft_real_t<E>>;

/// What a transform of kind K reads (its scratch buffer's element type) and gives, for operand X.
template <fft_kind K, class X> struct fft_types {
  using in = fft_complex_t<X>;
  using out = fft_complex_t<X>;
};
template <class X> struct fft_types<fft_kind::real_forward, X> {
  static_assert(!is_complex(X::type),
                "jet::rfft takes a real operand: use jet::fft, or jet::rfft(jet::real(z)) to drop the imaginary parts");
  using in = fft_real_t<X>;
  using out = fft_complex_t<X>;
};
template <class X> struct fft_types<fft_kind::real_inverse, X> {
  using in = fft_complex_t<X>;
  using out = fft_real_t<X>;
};

/// The transform of kind K over `rank` axes from `axis`, of the operand e.
template <fft_kind K, int rank, class E> auto transform(E&& e, std::optional<std::int64_t> n, int axis) {
  using types = fft_types<K, expr_t<E>>;
  return run_fft<typename types::in, typename types::out>(as_expr(std::forward<E>(e)), K, rank, n, axis);
}

}  // namespace detail

/// The discrete Fourier transform along `along` (the last axis by default), as NumPy's fft:
/// X[k] = Σ x[j]·exp(-2πi·jk/n), batched over the other axes. n, when given, crops the axis or pads
/// it with zeros (NumPy's positional n: `fft(x, 8)`; an axis alone is `fft(x, jet::axis{0})`).
/// complex64 for float32, float16, bfloat16 and complex64 operands, complex128 for the others.
template <jet_operand E> auto fft(E&& e, axis along = -1) {
  return detail::transform<detail::fft_kind::forward, 1>(std::forward<E>(e), std::nullopt, along.value);
}
template <jet_operand E> auto fft(E&& e, std::int64_t n, axis along = -1) {
  return detail::transform<detail::fft_kind::forward, 1>(std::forward<E>(e), n, along.value);
}

/// The inverse of fft, scaled by 1/n (NumPy's ifft): x[j] = (1/n)·Σ X[k]·exp(2πi·jk/n).
template <jet_operand E> auto ifft(E&& e, axis along = -1) {
  return detail::transform<detail::fft_kind::inverse, 1>(std::forward<E>(e), std::nullopt, along.value);
}
template <jet_operand E> auto ifft(E&& e, std::int64_t n, axis along = -1) {
  return detail::transform<detail::fft_kind::inverse, 1>(std::forward<E>(e), n, along.value);
}

/// fft of a real operand, its n/2 + 1 non-negative frequencies only (NumPy's rfft). A complex
/// operand does not compile: NumPy would discard its imaginary parts.
template <jet_operand E> auto rfft(E&& e, axis along = -1) {
  return detail::transform<detail::fft_kind::real_forward, 1>(std::forward<E>(e), std::nullopt, along.value);
}
template <jet_operand E> auto rfft(E&& e, std::int64_t n, axis along = -1) {
  return detail::transform<detail::fft_kind::real_forward, 1>(std::forward<E>(e), n, along.value);
}

/// The inverse of rfft (NumPy's irfft): n real outputs (2·(m − 1) by default, m the operand's
/// extent) from the first n/2 + 1 values along the axis, cropped or zero-padded to that, read as
/// the non-negative half of a Hermitian spectrum (the imaginary parts of the zero-frequency term,
/// and for even n of the n/2 term, are ignored, as NumPy ignores them); scaled by 1/n.
template <jet_operand E> auto irfft(E&& e, axis along = -1) {
  return detail::transform<detail::fft_kind::real_inverse, 1>(std::forward<E>(e), std::nullopt, along.value);
}
template <jet_operand E> auto irfft(E&& e, std::int64_t n, axis along = -1) {
  return detail::transform<detail::fft_kind::real_inverse, 1>(std::forward<E>(e), n, along.value);
}

/// The 2-D fft over the last two axes, batched over the others (NumPy's fft2 with its defaults).
template <jet_operand E> auto fft2(E&& e) {
  return detail::transform<detail::fft_kind::forward, 2>(std::forward<E>(e), std::nullopt, -2);
}
/// The inverse of fft2, scaled by 1/(rows · columns).
template <jet_operand E> auto ifft2(E&& e) {
  return detail::transform<detail::fft_kind::inverse, 2>(std::forward<E>(e), std::nullopt, -2);
}

}  // namespace jet
