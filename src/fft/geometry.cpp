#include "fft/geometry.hpp"
#include "layout.hpp"

#include <jet/error.hpp>

#include <string>

namespace jet::detail {
namespace {

// invalid_argument for a transform length below 1 along `dim` (`given` says where it came from).
void require_length(const char* function, std::int64_t length, const std::string& given, int dim, const jet::shape& s) {
  if (length < 1)
    throw invalid_argument(std::string(function) + ": n = " + std::to_string(length) + given + " along axis " +
                           std::to_string(dim) + " of shape " + s.to_string() + "; an FFT's length is at least 1");
}

// The transform's length along `dim`: n, or the default (the extent m; irfft's 2 * (m - 1)).
std::int64_t length_of(const char* function, fft_kind kind, const jet::shape& s, int dim,
                       std::optional<std::int64_t> n) {
  const std::int64_t m = s[dim];
  std::int64_t length = m;
  std::string given;
  if (n) {
    length = *n;
  } else if (kind == fft_kind::real_inverse) {
    length = m < 1 ? 0 : checked_multiply(m - 1, 2, [&] {
      return std::string(function) + "'s default n = 2 * (m - 1) of m = " + std::to_string(m);
    });
    given = " (the default, 2 * (m - 1) for m = " + std::to_string(m) + ")";
  } else {
    given = " (the default, the extent of the axis)";
  }
  require_length(function, length, given, dim, s);
  return length;
}

fft_geometry two_dimensional(const char* function, fft_geometry g) {
  const jet::shape& s = g.operand;
  if (s.rank() < 2)
    throw invalid_argument(std::string(function) + ": the operand's shape " + s.to_string() + " has rank " +
                           std::to_string(s.rank()) +
                           "; a 2-D FFT transforms the last two axes, so needs rank 2 or more");
  g.axis = s.rank() - 2;
  for (int k = 0; k < 2; ++k) {
    g.n[k] = s[g.axis + k];
    require_length(function, g.n[k], "", g.axis + k, s);
  }
  g.length = g.n[1];
  g.buffer = g.output = s;
  return g;
}

}  // namespace

const char* fft_function_name(fft_kind kind, int rank) {
  switch (kind) {
    case fft_kind::forward: return rank == 2 ? "jet::fft2" : "jet::fft";
    case fft_kind::inverse: return rank == 2 ? "jet::ifft2" : "jet::ifft";
    case fft_kind::real_forward: return "jet::rfft";
    case fft_kind::real_inverse: return "jet::irfft";
  }
  return "jet::fft";
}

fft_geometry fft_geometry_of(fft_kind kind, int rank, const jet::shape& operand, std::optional<std::int64_t> n,
                             int axis, bool double_precision) {
  const char* function = fft_function_name(kind, rank);
  fft_geometry g{kind, rank, 0, {1, 1}, 0, operand, operand, operand};
  if (rank == 2) {
    g = two_dimensional(function, g);
  } else {
    g.axis = axis_dimension(function, operand, axis);
    const std::int64_t length = length_of(function, kind, operand, g.axis, n);
    g.n[0] = length;
    g.length = kind == fft_kind::real_inverse ? length / 2 + 1 : length;  // complex values a C2R reads
    if (g.length > operand[g.axis]) g.buffer[g.axis] = g.length;          // else cropped: read in place
    g.output[g.axis] = kind == fft_kind::real_forward ? length / 2 + 1 : length;
  }
  // Both sizes within jet::size_limit (shape_error otherwise), before anything is allocated.
  const std::size_t part = double_precision ? 8 : 4;
  bytes_of(g.buffer, kind == fft_kind::real_forward ? part : 2 * part);
  bytes_of(g.output, kind == fft_kind::real_inverse ? part : 2 * part);
  return g;
}

fft_batches batches_of(const fft_geometry& g) {
  const jet::shape& in = g.buffer;
  const jet::shape& out = g.output;
  fft_batches b{};
  b.rank = g.rank;
  b.loops = 1;
  long long outer = 1, inner = 1;
  for (int d = 0; d < g.axis; ++d) outer *= out[d];  // no overflow: g.output's count is checked
  for (int d = g.last_axis() + 1; d < out.rank(); ++d) inner *= out[d];
  for (int k = 0; k < g.rank; ++k) {
    b.n[k] = g.n[k];
    b.inembed[k] = in[g.axis + k];
    b.onembed[k] = out[g.axis + k];
  }
  const long long in_rows = g.rank == 2 ? b.inembed[0] * b.inembed[1] : b.inembed[0];
  const long long out_rows = g.rank == 2 ? b.onembed[0] * b.onembed[1] : b.onembed[0];
  b.istride = b.ostride = inner;
  if (inner == 1) {  // the transformed axes are the last: one batch of rows
    b.batch = outer, b.idist = in_rows, b.odist = out_rows;
  } else if (outer == 1 || inner > outer) {  // batched over the axes after, a loop over those before
    b.batch = inner, b.idist = b.odist = 1;
    b.loops = outer, b.in_step = in_rows * inner, b.out_step = out_rows * inner;
  } else {  // batched over the axes before, a loop over those after
    b.batch = outer, b.idist = in_rows * inner, b.odist = out_rows * inner;
    b.loops = inner, b.in_step = b.out_step = 1;
  }
  return b;
}

}  // namespace jet::detail
