#include "fft/passes.hpp"

#include <jet/array.hpp>
#include <jet/constructors.hpp>
#include <jet/ops.hpp>

#include <complex>

namespace jet::detail {
namespace {

template <class T, class R> void scale(void* output, const jet::shape& s, R factor) {
  jet::view<T> v(static_cast<T*>(output), s);
  v *= factor;  // in place: the output is exactly the input
}

template <class R> void zero_imaginary_parts(void* buffer, const fft_geometry& g) {
  const jet::view<std::complex<R>> v(static_cast<std::complex<R>*>(buffer), g.buffer);
  const auto zero_at = [&](std::int64_t k) {
    jet::view<R> part = v.imag().slice(g.axis, k, k + 1);
    part = jet::zeros<R>(part.shape());
  };
  zero_at(0);
  if (g.n[0] % 2 == 0) zero_at(g.n[0] / 2);
}

// g with its axis moved last: [before, after, axis] (`length` elements of the buffer's read).
fft_geometry axis_last(const fft_geometry& g, std::int64_t before, std::int64_t after) {
  fft_geometry rows = g;
  rows.axis = 2;
  rows.operand = rows.buffer = jet::shape{before, after, g.length};
  rows.output = jet::shape{before, after, g.output[g.axis]};
  return rows;
}

template <class In, class Out>
void moved(const fft_geometry& g, bool double_precision, void* buffer, void* output, fft_transform transform) {
  std::int64_t before = 1, after = 1;
  for (int d = 0; d < g.axis; ++d) before *= g.output[d];
  for (int d = g.axis + 1; d < g.output.rank(); ++d) after *= g.output[d];
  const std::int64_t in_extent = g.buffer[g.axis], out_extent = g.output[g.axis];
  const fft_geometry rows = axis_last(g, before, after);
  jet::array<In> in(rows.buffer);
  jet::view<In> moved_in(in);
  moved_in = jet::view<In>(static_cast<In*>(buffer), rows.buffer, {in_extent * after, 1, after});
  jet::array<Out> out(rows.output);
  transform(rows, double_precision, in.data(), out.data());
  jet::view<Out>(static_cast<Out*>(output), rows.output, {out_extent * after, 1, after}) = out.view();
}

}  // namespace

void transform_with_axis_last(const fft_geometry& g, bool double_precision, void* buffer, void* output,
                              fft_transform transform) {
  const bool forward = g.kind == fft_kind::real_forward;
  if (double_precision)
    forward ? moved<double, std::complex<double>>(g, true, buffer, output, transform)
            : moved<std::complex<double>, double>(g, true, buffer, output, transform);
  else
    forward ? moved<float, std::complex<float>>(g, false, buffer, output, transform)
            : moved<std::complex<float>, float>(g, false, buffer, output, transform);
}

void scale_inverse(const fft_geometry& g, bool double_precision, void* output) {
  // 1/n computed in double, then rounded to the result's precision once.
  const double factor = 1.0 / (static_cast<double>(g.n[0]) * static_cast<double>(g.rank == 2 ? g.n[1] : 1));
  const bool real = g.kind == fft_kind::real_inverse;
  if (double_precision)
    real ? scale<double>(output, g.output, factor) : scale<std::complex<double>>(output, g.output, factor);
  else
    real ? scale<float>(output, g.output, static_cast<float>(factor))
         : scale<std::complex<float>>(output, g.output, static_cast<float>(factor));
}

void ignore_hermitian_imaginary_parts(const fft_geometry& g, bool double_precision, void* buffer) {
  double_precision ? zero_imaginary_parts<double>(buffer, g) : zero_imaginary_parts<float>(buffer, g);
}

}  // namespace jet::detail
