// The passes jet evaluates around a cuFFT transform, as ordinary jet kernels on the current
// stream: each is a pass over memory of its own (cuFFT's callbacks would fuse them, later).
#pragma once

#include <jet/fft.hpp>

namespace jet::detail {

/// Multiplies the inverse transform's result (contiguous, of shape g.output) by 1/n: NumPy's
/// "backward" normalization.
void scale_inverse(const fft_geometry& g, bool double_precision, void* output);

/// Sets to 0 the imaginary parts of the terms a C2R transform must find real (the zero frequency
/// and, for even n, n/2) in the buffer (complex, of shape g.buffer), as NumPy ignores them; cuFFT
/// leaves what it does with them unspecified.
void ignore_hermitian_imaginary_parts(const fft_geometry& g, bool double_precision, void* buffer);

/// Runs `transform` (a transform along the last axis, with no loop) on a copy of the buffer with
/// g's axis moved last, and copies its result back into `output` with the axis where it was: two
/// passes more, for R2C and C2R along a middle axis, whose loops' offsets would leave the real
/// side misaligned (cuFFT needs 8 bytes: an odd float offset is CUFFT_INVALID_VALUE).
using fft_transform = void (*)(const fft_geometry& rows, bool double_precision, void* buffer, void* output);
void transform_with_axis_last(const fft_geometry& g, bool double_precision, void* buffer, void* output,
                              fft_transform transform);

}  // namespace jet::detail
