// The reductions' host reference: the host columns of reductions.def (identity, map, combine,
// finish), written independently of the CUDA spellings, over the accumulator's C++ type (double
// for floating accumulators) and combined pairwise, so that the reference's own rounding error
// (log2(n) units of 2^-53) stays far inside the bounds tested.
#pragma once

#include <jet/jet.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

namespace jet::test {

template <class T> T host_identity(jet::detail::reduction_id r) {
  switch (r) {
#define JET_REDUCTION(tag, rule, empty, i, m, c, f, host_identity, ...) \
  case jet::detail::reduction_id::tag: return host_identity;
#include <jet/reductions.def>
#undef JET_REDUCTION
    default: return T{};
  }
}
template <class T> T host_map(jet::detail::reduction_id r, T a) {
  switch (r) {
#define JET_REDUCTION(tag, rule, empty, i, m, c, f, host_identity, host_map, ...) \
  case jet::detail::reduction_id::tag: return static_cast<T>(host_map);
#include <jet/reductions.def>
#undef JET_REDUCTION
    default: return a;
  }
}
template <class T> T host_combine(jet::detail::reduction_id r, T a, T b) {
  switch (r) {
#define JET_REDUCTION(tag, rule, empty, i, m, c, f, host_identity, host_map, host_combine, ...) \
  case jet::detail::reduction_id::tag: return static_cast<T>(host_combine);
#include <jet/reductions.def>
#undef JET_REDUCTION
    default: return a;
  }
}
template <class T> long double host_finish(jet::detail::reduction_id r, T a, double n) {
  switch (r) {
#define JET_REDUCTION(tag, rule, empty, i, m, c, f, host_identity, host_map, host_combine, host_finish) \
  case jet::detail::reduction_id::tag: return static_cast<long double>(host_finish);
#include <jet/reductions.def>
#undef JET_REDUCTION
    default: return a;
  }
}

/// The mapped values [first, last) combined pairwise.
template <class T> T host_combine_range(jet::detail::reduction_id r, const std::vector<T>& mapped, std::size_t first,
                                        std::size_t last) {
  if (last - first == 0) return host_identity<T>(r);
  if (last - first == 1) return mapped[first];
  const std::size_t middle = first + (last - first) / 2;
  return host_combine(r, host_combine_range(r, mapped, first, middle), host_combine_range(r, mapped, middle, last));
}

/// Reduction r of `values` (already in the accumulator type T): the result, and the sum of the
/// mapped values' magnitudes that the error bound scales with.
template <class T> struct host_reduction {
  long double value;
  long double magnitude;
};
template <class T> host_reduction<T> host_reduce(jet::detail::reduction_id r, const std::vector<T>& values) {
  std::vector<T> mapped(values.size());
  long double magnitude = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    mapped[i] = host_map(r, values[i]);
    magnitude += std::fabs(static_cast<long double>(mapped[i]));
  }
  const T total = host_combine_range(r, mapped, 0, mapped.size());
  return {host_finish(r, total, static_cast<double>(values.size())), magnitude};
}

}  // namespace jet::test
