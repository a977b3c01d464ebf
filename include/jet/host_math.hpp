// Host math for the op table's references (ops.def's last column) where <cmath> has no such
// function, or has it only on part of the domain: written from the definitions, independently of
// CUDA's implementations, and meant to be evaluated in float64 or wider.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <math.h>  // j0, j1, y0, y1
#include <numbers>
#include <type_traits>

namespace jet::host {

/// f(a) for a floating a; an integer or bool is its own floor, ceiling, ...
template <class T, class F> constexpr T rounded(T a, F f) {
  if constexpr (std::is_floating_point_v<T>)
    return f(a);
  else
    return a;
}

/// sin(πa) and cos(πa), with the argument reduced exactly (fmod by 2, then reflections that
/// Sterbenz's lemma keeps exact) so that whole and half-whole a give exact zeros.
template <class T> T sinpi(T a) {
  if (!std::isfinite(a)) return a - a;                           // NaN
  long double r = std::fmod(static_cast<long double>(a), 2.0L);  // (-2, 2)
  if (r > 1) r -= 2;
  if (r < -1) r += 2;  // [-1, 1]
  if (r > 0.5L) r = 1 - r;
  if (r < -0.5L) r = -1 - r;  // [-1/2, 1/2]
  if (r == 0) return std::copysign(T(0), a);
  return static_cast<T>(std::sin(std::numbers::pi_v<long double> * r));
}
template <class T> T cospi(T a) {
  if (!std::isfinite(a)) return a - a;
  long double r = std::fmod(std::fabs(static_cast<long double>(a)), 2.0L);  // [0, 2)
  if (r > 1) r = 2 - r;                                                     // [0, 1]
  const long double s = 0.5L - r;                                           // cos(πr) = sin(π(1/2 - r))
  if (s == 0) return T(0);
  return static_cast<T>(std::sin(std::numbers::pi_v<long double> * s));
}

/// log_base(base^a + base^b) for the base whose natural log is ln_base, in long double, which
/// holds e^a up to a ≈ 11356.
template <class T> T log_add(T a, T b, long double ln_base) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  if (a == b) return static_cast<T>(a + std::numbers::ln2_v<long double> / ln_base);  // infinities too
  const long double hi = std::fmax(a, b), lo = std::fmin(a, b);
  return static_cast<T>(hi + std::log1p(std::exp((lo - hi) * ln_base)) / ln_base);
}
template <class T> T logaddexp(T a, T b) { return log_add(a, b, 1.0L); }
template <class T> T logaddexp2(T a, T b) { return log_add(a, b, std::numbers::ln2_v<long double>); }

/// a · 2^trunc(b), the exponent held to ±4096 (beyond which every result is 0 or infinite).
template <class T> T ldexp(T a, T b) {
  if (std::isnan(b)) return b;
  return std::ldexp(a, static_cast<int>(std::fmax(std::fmin(std::trunc(b), T(4096)), T(-4096))));
}

/// The gap from a to the next value of T away from zero, with a's sign (NumPy's spacing): one ulp
/// of a's binade, 2^(exponent - digits + 1), at least the smallest subnormal; infinite past the
/// largest finite value; NaN for an infinity or NaN.
template <class T> T spacing(T a) {
  using L = std::numeric_limits<T>;
  if (!std::isfinite(a)) return L::quiet_NaN();
  if (std::fabs(a) == L::max()) return std::copysign(L::infinity(), a);
  const int binade = a == 0 ? L::min_exponent - 1 : std::max(std::ilogb(a), L::min_exponent - 1);
  return std::copysign(std::ldexp(T(1), binade - (L::digits - 1)), a);
}

/// a = mantissa · 2^exponent with 1/2 <= |mantissa| < 1; a itself and 0 for ±0, ±inf and NaN. An
/// integer or bool a (instantiated by the tests' dtype dispatch; the op computes it in float64) as
/// a double.
template <class F> struct frexp_result { F mantissa, exponent; };
template <class T> auto frexp_parts(T a) {
  using F = std::conditional_t<std::is_floating_point_v<T>, T, double>;
  const F x = static_cast<F>(a);
  if (x == 0 || !std::isfinite(x)) return frexp_result<F>{x, F(0)};
  const int exponent = std::ilogb(x) + 1;
  return frexp_result<F>{std::scalbn(x, -exponent), F(exponent)};
}

/// NumPy's heaviside: 0 below 0, 1 above, h0 at ±0, NaN for NaN.
template <class T> T heaviside(T x, T h0) {
  if (std::isnan(x)) return x;
  if (x == 0) return h0;
  return x < 0 ? T(0) : T(1);
}

/// x·log(y), 0 where x is 0 and y is not NaN (scipy.special.xlogy).
template <class T> T xlogy(T x, T y) {
  if (std::isnan(y)) return y;
  return x == 0 ? T(0) : x * std::log(y);
}

/// The standard normal distribution function, erfc(-x/√2)/2, in long double: in the lower tail an
/// error e in the argument makes one of 2·x²·e in the result, so in double the rounding of x/√2
/// alone (and of √2) costs some 500 ulps at x = -34 (fuzz case 2315752781651987633).
template <class T> T normcdf(T x) {
  const long double v = x;
  return static_cast<T>(std::erfc(-v / std::numbers::sqrt2_v<long double>) / 2);
}

/// e^(x²)·erfc(x): directly in long double up to x = 50, past it from the asymptotic series
/// 1/(x√π) · Σ (-1)^k (2k-1)!! / (2x²)^k, whose sixth term is below 2^-60 of the first there.
template <class T> T erfcx(T x) {
  if (std::isnan(x)) return x;
  const long double v = x;
  if (v < 50) return static_cast<T>(std::exp(v * v) * std::erfc(v));
  long double term = 1, sum = 1;
  for (int k = 1; k <= 6; ++k) {
    term *= -(2 * k - 1) / (2 * v * v);
    sum += term;
  }
  return static_cast<T>(sum / (v * std::sqrt(std::numbers::pi_v<long double>)));
}

namespace math_detail {
/// The x in [lo, hi] with f(x) = 0, f decreasing, f' its derivative: Newton's steps in long
/// double, a bisection wherever a step leaves the bracket. Independent of any approximation's
/// coefficients, which is what a reference wants.
template <class F, class D>
long double solve_decreasing(F f, D derivative, long double x, long double lo, long double hi) {
  for (int k = 0; k < 200; ++k) {
    const long double fx = f(x);
    if (fx == 0) return x;
    (fx > 0 ? lo : hi) = x;
    long double next = x - fx / derivative(x);
    if (!(next > lo && next < hi)) next = lo + (hi - lo) / 2;
    if (std::fabs(next - x) <= std::fabs(x) * 1e-19L || next == lo || next == hi) return next;
    x = next;
  }
  return x;
}
inline long double erfc_slope(long double x) {
  return -2 / std::sqrt(std::numbers::pi_v<long double>) * std::exp(-x * x);
}
}  // namespace math_detail

/// The inverse of erfc on (0, 2): +inf and -inf at the ends, NaN outside. Solved where erfc is
/// accurate: on log(erfc(x)) for y ≤ 1 (erfc underflows long double only past x ≈ 106), by
/// symmetry (erfcinv(2 - y) = -erfcinv(y), 2 - y exact) above.
template <class T> T erfcinv(T y) {
  if (std::isnan(y) || y < 0 || y > 2) return std::numeric_limits<T>::quiet_NaN();
  if (y == 0) return std::numeric_limits<T>::infinity();
  if (y == 2) return -std::numeric_limits<T>::infinity();
  if (y > 1) return -erfcinv(T(2) - y);
  const long double target = std::log(static_cast<long double>(y));
  const auto f = [&](long double x) { return std::log(std::erfc(x)) - target; };
  const auto slope = [](long double x) { return math_detail::erfc_slope(x) / std::erfc(x); };
  return static_cast<T>(math_detail::solve_decreasing(f, slope, std::sqrt(-target), 0.0L, 110.0L));
}

/// The inverse of erf on (-1, 1): small |y| solved on erf itself (relative accuracy near 0), the
/// rest through erfcinv(1 - |y|) (exact for |y| ≥ 1/2).
template <class T> T erfinv(T y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<T>::quiet_NaN();
  if (y == 0) return y;
  if (std::fabs(y) >= T(0.5)) return std::copysign(erfcinv(T(1) - std::fabs(y)), y);
  const long double target = std::fabs(static_cast<long double>(y));
  const auto f = [&](long double x) { return target - std::erf(x); };
  const auto slope = [](long double x) { return math_detail::erfc_slope(x); };
  const long double x = math_detail::solve_decreasing(f, slope, target * 0.886L, 0.0L, 1.0L);
  return static_cast<T>(std::copysign(x, static_cast<long double>(y)));
}

#if defined(__cpp_lib_math_special_functions) || defined(__STDCPP_MATH_SPEC_FUNCS__)
/// The Bessel functions of order 0 and 1: J (even and odd in x), Y (real for x > 0 only), I (even
/// and odd), from C++17's special functions on x ≥ 0 (a
/// standard library without them, libc++'s, leaves these three undefined: only tests call them). I past x = 700, where those overflow double
/// inside, from its asymptotic series e^x/√(2πx) · Σ (-1)^k Π(4ν² - (2j-1)²) / (k! (8x)^k).
// Past |x| = 1024, C's double j0, j1, y0 and y1 (POSIX; glibc's reduce x exactly): the standard
// library's long double functions round the phase x - (2 order + 1) pi/4 to 64 bits there, 1e-8
// off at x = 1e12 and wholly at 1e19 (fuzz cases 2915151633136151181 and 6609705687442503532).
inline constexpr long double bessel_long_double_limit = 1024;
template <class T> T bessel_j(int order, T x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return T(0);
  const long double a = std::fabs(static_cast<long double>(x));
  const long double value = a < bessel_long_double_limit ? std::cyl_bessel_j(static_cast<long double>(order), a)
                            : order == 0                 ? ::j0(static_cast<double>(a))
                                                         : ::j1(static_cast<double>(a));
  return static_cast<T>(order == 1 && x < 0 ? -value : value);
}
template <class T> T bessel_y(int order, T x) {
  if (std::isnan(x) || x < 0) return std::numeric_limits<T>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<T>::infinity();
  if (std::isinf(x)) return T(0);
  const long double a = static_cast<long double>(x);
  if (a >= bessel_long_double_limit)
    return static_cast<T>(order == 0 ? ::y0(static_cast<double>(a)) : ::y1(static_cast<double>(a)));
  return static_cast<T>(std::cyl_neumann(static_cast<long double>(order), a));
}
template <class T> T bessel_i(int order, T x) {
  if (std::isnan(x)) return x;
  // I0(±inf) is +inf, I1(±inf) ±inf, as CUDA's cyl_bessel_i0/i1 give: the series below would be
  // e^inf / √inf, NaN (fuzz case 9185401816950936881, tests/README.md).
  if (std::isinf(x)) return order == 1 ? x : std::numeric_limits<T>::infinity();
  const long double v = std::fabs(static_cast<long double>(x));
  long double value;
  if (v <= 700) {
    value = std::cyl_bessel_i(static_cast<long double>(order), v);
  } else {
    const long double mu = 4.0L * order * order;
    long double term = 1, sum = 1;
    for (int k = 1; k <= 6; ++k) {
      term *= -(mu - (2 * k - 1) * (2 * k - 1)) / (k * 8 * v);
      sum += term;
    }
    value = std::exp(v) / std::sqrt(2 * std::numbers::pi_v<long double> * v) * sum;
  }
  return static_cast<T>(order == 1 && x < 0 ? -value : value);
}
#else
template <class T> T bessel_j(int order, T x);
template <class T> T bessel_y(int order, T x);
template <class T> T bessel_i(int order, T x);
#endif

}  // namespace jet::host
