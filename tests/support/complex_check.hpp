// The judge of complex results, shared by the GPU test (test_gpu_complex.cpp) and the host test
// of the same device text (test_complex_device_text.cpp): random and special operands, and
// closeness to a std::complex<long double> reference (glibc's functions, GCC's Annex G
// multiplication and division).
#pragma once

#include "support/gpu_check.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace jet::test::complex_check {

using ld = long double;
using cld = std::complex<ld>;

// Random components in [-4, 4], some whole, and a few of huge or tiny magnitude (for / and abs).
template <class T> std::vector<std::complex<T>> random_values(std::size_t n, bool extremes, unsigned draw) {
  std::mt19937_64 g(jet::test::fresh_seed() + 16 * draw + sizeof(T));
  std::uniform_real_distribution<double> u(-4, 4);
  std::vector<std::complex<T>> v(n);
  const T huge = std::numeric_limits<T>::max() / 8, tiny = std::numeric_limits<T>::min() * 8;
  for (std::size_t i = 0; i < n; ++i) {
    T re = T(u(g)), im = T(u(g));
    if (i % 5 == 0) re = std::round(re);
    if (extremes && i % 7 == 1) re *= huge / 4, im *= huge / 4;
    if (extremes && i % 7 == 2) re *= tiny, im *= tiny;
    v[i] = {re, im};
  }
  return v;
}

// Every pair of special and ordinary components. (Huge ones are random_values' extremes: a product
// of two overflows in its parts' products, as C's does, where the long double reference does not.)
template <class T> std::vector<std::complex<T>> special_values() {
  using L = std::numeric_limits<T>;
  const T parts[] = {T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), T(1), T(-2.5), L::denorm_min()};
  std::vector<std::complex<T>> v;
  for (T re : parts)
    for (T im : parts) v.push_back({re, im});
  return v;
}

// Every pair (a[i], b[i]) of special_values: the operands of the products and quotients of
// Annex G.
template <class T> std::pair<std::vector<std::complex<T>>, std::vector<std::complex<T>>> special_pairs() {
  const std::vector<std::complex<T>> s = special_values<T>();
  std::pair<std::vector<std::complex<T>>, std::vector<std::complex<T>>> pairs;
  for (const auto& p : s)
    for (const auto& q : s) pairs.first.push_back(p), pairs.second.push_back(q);
  return pairs;
}

// How a result with an infinite or NaN part is judged: part by part, or as C's Annex G counts
// infinities (a value with an infinite part is infinite whatever its other part: a quotient's
// other part may be NaN where the divisor has a part too small to scale, as NumPy's is).
enum class specials { part_by_part, annex_g_infinity };

// Whether got is close to want: of want's kind where want has a special part; an infinity of the
// right sign where a part of want is past T's range; else within `ulps` epsilons of the larger of
// |want| and `magnitude` (the size of the terms that cancelled; and a few subnormals).
template <class T>
bool close(std::complex<T> got, cld want, double ulps, ld magnitude = 0, specials rule = specials::part_by_part) {
  using L = std::numeric_limits<T>;
  const auto part_special = [](ld x) { return std::isnan(x) || std::isinf(x); };
  if (rule == specials::annex_g_infinity && (std::isinf(want.real()) || std::isinf(want.imag())))
    return std::isinf(got.real()) || std::isinf(got.imag());
  if (part_special(want.real()) || part_special(want.imag())) {
    const auto same_kind = [&](T g, ld w) {
      if (std::isnan(w)) return std::isnan(g);
      if (std::isinf(w)) return std::isinf(g) && std::signbit(g) == std::signbit(w);
      return std::isfinite(g);  // the other part: finite where the reference's is
    };
    return same_kind(got.real(), want.real()) && same_kind(got.imag(), want.imag());
  }
  const auto overflows = [](T g, ld w) {
    return std::fabs(w) > ld(L::max()) && !(std::isinf(g) && std::signbit(g) == std::signbit(w));
  };
  if (std::fabs(want.real()) > ld(L::max()) || std::fabs(want.imag()) > ld(L::max()))
    return !overflows(got.real(), want.real()) && !overflows(got.imag(), want.imag());
  const ld error = std::abs(cld(got.real(), got.imag()) - want);
  return error <= ld(ulps) * ld(L::epsilon()) * std::max(std::abs(want), magnitude) + 4 * ld(L::denorm_min());
}

template <class T> cld wide(std::complex<T> z) { return {ld(z.real()), ld(z.imag())}; }

// exp(w) - 1 and log(1 + w), the references of expm1 and log1p, without their cancellation (in
// long double; the fuzzer's host evaluation also computes them in float and double).
template <class T> std::complex<T> expm1_reference(std::complex<T> w) {
  const T h = std::sin(w.imag() / 2);
  return {std::expm1(w.real()) * std::cos(w.imag()) - 2 * h * h, std::exp(w.real()) * std::sin(w.imag())};
}
// |1 + w|^2 - 1 = a(2 + a) + b^2 cancels itself near w = -1, where log |1 + w| is log of a small
// hypot (1 + a exact there) instead.
template <class T> std::complex<T> log1p_reference(std::complex<T> w) {
  const T a = w.real(), b = w.imag();
  const T modulus =
      std::fabs(a) + std::fabs(b) < T(0.5) ? std::log1p(a * (2 + a) + b * b) / 2 : std::log(std::hypot(1 + a, b));
  return {modulus, std::atan2(b, 1 + a)};
}

// The elements of got not close to want(i), the first five printed.
template <class T, class Want, class Magnitude>
std::size_t count_mismatches(const char* what, const std::vector<std::complex<T>>& got, Want want, double ulps,
                             Magnitude magnitude, specials rule) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const cld w = want(i);
    if (!close(got[i], w, ulps, magnitude(i), rule) && bad++ < 5)
      std::printf("  %s (%s), element %zu: got (%.17g, %.17g), reference (%.17Lg, %.17Lg)\n", what,
                  sizeof(T) == 4 ? "complex64" : "complex128", i, double(got[i].real()), double(got[i].imag()),
                  w.real(), w.imag());
  }
  return bad;
}

}  // namespace jet::test::complex_check
