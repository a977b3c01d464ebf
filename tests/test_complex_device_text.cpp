// jet's complex device functions (src/codegen/complex_source.hpp), the very text kernels carry,
// compiled on the host over the host's real functions, and judged as the GPU test judges the
// device (support/complex_check.hpp: random values, huge and tiny ones, the special grid, against
// std::complex<long double>). The host's libm is not CUDA's, so this checks the algorithms
// (Annex G's recoveries, the scalings against overflow and underflow, the forms without
// cancellation, the special values), not the device's bits; the GPU test checks those.
#include "support/catch.hpp"
#include "support/complex_check.hpp"

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

// The text at global scope, as in a kernel: its overloads of exp, sqrt... for jet_complex sit
// beside the host's real ones (brought in by the using-directive), as the device's do.
using namespace std;
#define __device__
#define __forceinline__ inline
#define __noinline__
inline double __longlong_as_double(long long v) { return std::bit_cast<double>(v); }
template <class T> void sincos(T x, T* s, T* c) { *s = std::sin(x), *c = std::cos(x); }
template <class T> struct jet_is_complex { static constexpr bool value = false; };
#include "complex_functions.inc"
#undef __device__
#undef __forceinline__
#undef __noinline__

namespace {

using namespace jet::test::complex_check;

template <class T> jet_c<T> to_device(std::complex<T> z) { return {z.real(), z.imag()}; }
template <class T> std::complex<T> from_device(jet_c<T> z) { return {z.re, z.im}; }

// f of every element of a (and b), on the host.
template <class T, class F> std::vector<std::complex<T>> map(const std::vector<std::complex<T>>& a, F f) {
  std::vector<std::complex<T>> r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) r[i] = from_device(f(to_device(a[i])));
  return r;
}
template <class T, class F>
std::vector<std::complex<T>> map(const std::vector<std::complex<T>>& a, const std::vector<std::complex<T>>& b, F f) {
  std::vector<std::complex<T>> r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) r[i] = from_device(f(to_device(a[i]), to_device(b[i])));
  return r;
}
const auto no_magnitude = [](std::size_t) { return ld(0); };

template <class T>
void check_arithmetic(const std::vector<std::complex<T>>& a, const std::vector<std::complex<T>>& b, bool extremes) {
  const auto x = [&](std::size_t i) { return wide(a[i]); };
  const auto y = [&](std::size_t i) { return wide(b[i]); };
  const auto judge = [](const char* what, const auto& got, auto want, double ulps,
                        specials rule = specials::part_by_part) {
    return count_mismatches(what, got, want, ulps, no_magnitude, rule);
  };
  CHECK(judge(
            "a + b", map(a, b, [](auto p, auto q) { return p + q; }), [&](std::size_t i) { return x(i) + y(i); }, 1) ==
        0);
  CHECK(judge(
            "a - b", map(a, b, [](auto p, auto q) { return p - q; }), [&](std::size_t i) { return x(i) - y(i); }, 1) ==
        0);
  if (!extremes)
    CHECK(judge(
              "a * b", map(a, b, [](auto p, auto q) { return p * q; }), [&](std::size_t i) { return x(i) * y(i); },
              4) == 0);
  CHECK(judge(
            "a / b", map(a, b, [](auto p, auto q) { return p / q; }), [&](std::size_t i) { return x(i) / y(i); }, 8,
            specials::annex_g_infinity) == 0);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const T got = fabs(to_device(a[i]));
    const ld want = std::hypot(x(i).real(), x(i).imag());
    const bool ok = std::isnan(want)   ? std::isnan(got)
                    : std::isinf(want) ? std::isinf(got)
                                       : std::fabs(ld(got) - want) <= 2 * ld(std::numeric_limits<T>::epsilon()) * want +
                                                                          ld(std::numeric_limits<T>::denorm_min());
    bad += !ok;
  }
  CHECK(bad == 0);
}

template <class T> void check_functions(const std::vector<std::complex<T>>& z) {
  const auto at = [&](std::size_t i) { return wide(z[i]); };
  const auto judge = [](const char* what, const auto& got, auto want, double ulps) {
    return count_mismatches(what, got, want, ulps, no_magnitude, specials::part_by_part);
  };
  CHECK(judge(
            "exp", map(z, [](auto w) { return exp(w); }), [&](std::size_t i) { return std::exp(at(i)); }, 16) == 0);
  CHECK(judge(
            "log", map(z, [](auto w) { return log(w); }), [&](std::size_t i) { return std::log(at(i)); }, 16) == 0);
  CHECK(judge(
            "sqrt", map(z, [](auto w) { return sqrt(w); }), [&](std::size_t i) { return std::sqrt(at(i)); }, 4) == 0);
  CHECK(judge(
            "sin", map(z, [](auto w) { return sin(w); }), [&](std::size_t i) { return std::sin(at(i)); }, 16) == 0);
  CHECK(judge(
            "cos", map(z, [](auto w) { return cos(w); }), [&](std::size_t i) { return std::cos(at(i)); }, 16) == 0);
  CHECK(judge(
            "tan", map(z, [](auto w) { return tan(w); }), [&](std::size_t i) { return std::tan(at(i)); }, 16) == 0);
  CHECK(judge(
            "sinh", map(z, [](auto w) { return sinh(w); }), [&](std::size_t i) { return std::sinh(at(i)); }, 16) == 0);
  CHECK(judge(
            "cosh", map(z, [](auto w) { return cosh(w); }), [&](std::size_t i) { return std::cosh(at(i)); }, 16) == 0);
  CHECK(judge(
            "tanh", map(z, [](auto w) { return tanh(w); }), [&](std::size_t i) { return std::tanh(at(i)); }, 16) == 0);
  CHECK(judge(
            "expm1", map(z, [](auto w) { return expm1(w); }), [&](std::size_t i) { return expm1_reference(at(i)); },
            16) == 0);
  CHECK(judge(
            "log1p", map(z, [](auto w) { return log1p(w); }), [&](std::size_t i) { return log1p_reference(at(i)); },
            16) == 0);
  CHECK(judge(
            "pow", map(z, [](auto w) { return pow(w, w * jet_c<T>(T(0.5))); }),
            [&](std::size_t i) { return std::pow(at(i), at(i) * ld(0.5)); }, 32) == 0);
}

template <class T> void check_all() {
  INFO((sizeof(T) == 4 ? "complex64" : "complex128"));
  check_functions(random_values<T>(1 << 14, false, 0));
  check_arithmetic(random_values<T>(1 << 14, false, 1), random_values<T>(1 << 14, false, 2), false);
  check_arithmetic(random_values<T>(1 << 14, true, 3), random_values<T>(1 << 14, true, 4), true);
  const auto [a, b] = special_pairs<T>();
  check_arithmetic(a, b, false);
  const std::vector<std::complex<T>> s = special_values<T>();
  CHECK(count_mismatches(
            "sqrt", map(s, [](auto w) { return sqrt(w); }), [&](std::size_t i) { return std::sqrt(wide(s[i])); }, 4,
            no_magnitude, specials::part_by_part) == 0);
}

}  // namespace

TEST_CASE("complex device functions, compiled on the host, against std::complex<long double>",
          "[cpu][complex][device_text]") {
  check_all<float>();
  check_all<double>();
}
