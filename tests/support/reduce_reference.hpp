// The reductions' host reference: the host columns of reductions.def (identity, map, combine,
// finish), written independently of the CUDA spellings, over the accumulator's C++ type (double
// for floating accumulators) and combined pairwise, so that the reference's own rounding error
// (log2(n) units of 2^-53) stays far inside the bounds tested.
#pragma once

#include <jet/jet.hpp>

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace jet::test {

template <class T> constexpr bool is_indexed = false;
template <class V> constexpr bool is_indexed<jet::host::indexed<V>> = true;
/// Whether reduction rule `rule`'s host columns are over T: an index rule's over host::indexed
/// values, the others' over plain ones (each switch below instantiates only those).
template <jet::detail::reduction_rule rule, class T>
constexpr bool columns_over = (rule == jet::detail::reduction_rule::index) == is_indexed<T>;

template <class T> T host_identity(jet::detail::reduction_id r) {
  switch (r) {
#define JET_REDUCTION(tag, rule, empty, i, m, c, f, host_identity, ...)                     \
  case jet::detail::reduction_id::tag:                                                      \
    if constexpr (columns_over<jet::detail::reduction_rule::rule, T>) return host_identity; \
    break;
#include <jet/reductions.def>
#undef JET_REDUCTION
    default: break;
  }
  return T{};
}
template <class T> T host_map(jet::detail::reduction_id r, T a) {
  switch (r) {
#define JET_REDUCTION(tag, rule, empty, i, m, c, f, host_identity, host_map, ...)                      \
  case jet::detail::reduction_id::tag:                                                                 \
    if constexpr (columns_over<jet::detail::reduction_rule::rule, T>) return static_cast<T>(host_map); \
    break;
#include <jet/reductions.def>
#undef JET_REDUCTION
    default: break;
  }
  return a;
}
template <class T> T host_combine(jet::detail::reduction_id r, T a, T b) {
  switch (r) {
#define JET_REDUCTION(tag, rule, empty, i, m, c, f, host_identity, host_map, host_combine, ...)            \
  case jet::detail::reduction_id::tag:                                                                     \
    if constexpr (columns_over<jet::detail::reduction_rule::rule, T>) return static_cast<T>(host_combine); \
    break;
#include <jet/reductions.def>
#undef JET_REDUCTION
    default: break;
  }
  return a;
}
template <class T> long double host_finish(jet::detail::reduction_id r, T a, double n) {
  switch (r) {
#define JET_REDUCTION(tag, rule, empty, i, m, c, f, host_identity, host_map, host_combine, host_finish)             \
  case jet::detail::reduction_id::tag:                                                                              \
    if constexpr (columns_over<jet::detail::reduction_rule::rule, T>) return static_cast<long double>(host_finish); \
    break;
#include <jet/reductions.def>
#undef JET_REDUCTION
    default: break;
  }
  if constexpr (is_indexed<T>)
    return a.i;
  else
    return a;
}

/// The mapped values [first, last) combined pairwise.
template <class T>
T host_combine_range(jet::detail::reduction_id r, const std::vector<T>& mapped, std::size_t first, std::size_t last) {
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
  if (jet::detail::reduction_rules[static_cast<int>(r)] == jet::detail::reduction_rule::index) {
    std::vector<jet::host::indexed<T>> mapped(values.size());  // each value with its index
    for (std::size_t i = 0; i < values.size(); ++i) mapped[i] = {values[i], static_cast<std::int64_t>(i)};
    const auto best = host_combine_range(r, mapped, 0, mapped.size());
    return {host_finish(r, best, static_cast<double>(values.size())), 0};
  }
  std::vector<T> mapped(values.size());
  long double magnitude = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    mapped[i] = host_map(r, values[i]);
    magnitude += std::fabs(static_cast<long double>(mapped[i]));
  }
  const T total = host_combine_range(r, mapped, 0, mapped.size());
  return {host_finish(r, total, static_cast<double>(values.size())), magnitude};
}

/// An element as the kernels compute with it: 16-bit floats in float32.
template <class E> auto widen(E v) {
  if constexpr (std::is_same_v<E, jet::float16> || std::is_same_v<E, jet::bfloat16>)
    return static_cast<float>(v);
  else
    return v;
}

/// The largest change of one rounding into float dtype T, with a factor of two to spare (a 16-bit
/// result is rounded from float64 through float32): relative, and absolute where the result is
/// subnormal in T (half of T's smallest subnormal, doubled).
template <class T> long double result_unit() {
  if constexpr (std::is_same_v<T, double>)
    return 0x1p-52L;
  else if constexpr (std::is_same_v<T, float>)
    return 0x1p-23L;
  else
    return static_cast<float>(std::numeric_limits<T>::epsilon());
}
template <class T> long double result_subnormal_unit() {
  return static_cast<long double>(widen(std::numeric_limits<T>::denorm_min()));
}

/// Whether a device result is within README's bound of the host's, and the figures that say so.
struct reduction_verdict {
  bool ok;
  std::string text;  // the value got, the value expected and the bound
};

/// Whether `got` is reduction r's result of n elements, `ref` from the host. Floats: within
/// README's bound, the result's rounding (relative, or absolute for a subnormal result) plus
/// (n/64 + 64) roundings of 2^-53 (float64 accumulation on the device and in the reference) of the
/// mapped values' magnitudes, plus `element_rtol` of it for elements the host computed differently
/// (in float64). Integers and bool: exactly.
template <class Acc, class Res> reduction_verdict judge(Res got, const host_reduction<Acc>& ref, std::size_t n,
                                                        jet::detail::reduction_id r, double element_rtol = 0) {
  using jet::detail::reduction_id;
  std::ostringstream text;
  text.precision(17);
  if constexpr (jet::is_floating(jet::dtype_of<Res>())) {
    const long double g = static_cast<long double>(widen(got));
    text << "got " << static_cast<double>(g) << ", expected " << static_cast<double>(ref.value);
    if (std::isnan(ref.value)) return {std::isnan(g), text.str() + " (NaN)"};
    const long double accumulation = (n / 64.0L + 64) * 0x1p-53L + element_rtol;
    long double bound = result_unit<Res>() * std::fabs(ref.value) + result_subnormal_unit<Res>();
    if (r == reduction_id::sum) bound += accumulation * ref.magnitude;
    if (r == reduction_id::mean) bound += accumulation * ref.magnitude / n;
    if (r == reduction_id::norm2 && ref.value > 0) bound += accumulation * ref.magnitude / ref.value;
    if (r == reduction_id::prod) bound += (n + 64) * 0x1p-53L * std::fabs(ref.value);
    text << ", bound " << static_cast<double>(bound) << " (error " << static_cast<double>(std::fabs(g - ref.value))
         << ")";
    return {std::fabs(g - ref.value) <= bound, text.str()};
  } else {
    const Res expected = std::is_same_v<Acc, std::uint64_t> ? static_cast<Res>(static_cast<std::uint64_t>(ref.value))
                                                            : static_cast<Res>(ref.value);
    text << "got " << +got << ", expected " << +expected << " exactly";
    return {got == expected, text.str()};
  }
}

}  // namespace jet::test
