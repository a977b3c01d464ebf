// The device side of complex64 and complex128: jet_complex, its arithmetic and the overloads of
// the math functions that the op table spells (exp(a), sqrt(a)...), written into a kernel only
// when one of its values is complex (README, "Complex numbers", says what each gives).
#pragma once

#include <string_view>

namespace jet::detail {

inline constexpr std::string_view complex_helpers =
    R"cuda(// Two components, real part first: std::complex's, C's and cuComplex's layout.
template <class T> struct alignas(2 * sizeof(T)) jet_complex {
  T re, im;
  jet_complex() = default;
  __device__ __forceinline__ constexpr jet_complex(T r, T i = T(0)) : re(r), im(i) {}
  template <class U>
  __device__ __forceinline__ explicit constexpr jet_complex(const jet_complex<U>& z) : re(T(z.re)), im(T(z.im)) {}
};
template <class T> struct jet_is_complex<jet_complex<T>> { static constexpr bool value = true; };
template <class T> using jet_c = jet_complex<T>;
template <class T> __device__ __forceinline__ T jet_huge() { return sizeof(T) == 4 ? T(1e37f) : T(1e307); }
template <class T> __device__ __forceinline__ T jet_tiny() { return sizeof(T) == 4 ? T(1e-37f) : T(1e-307); }
template <class T> __device__ __forceinline__ T jet_inf() { return T(__longlong_as_double(0x7ff0000000000000ll)); }
// An infinite component as +-1 and a finite one as +-0 (C's Annex G recovers infinities so).
template <class T> __device__ __forceinline__ T jet_unit_if_inf(T x) { return copysign(isinf(x) ? T(1) : T(0), x); }
template <class T> __device__ __forceinline__ T jet_zero_if_nan(T x) { return isnan(x) ? copysign(T(0), x) : x; }

// A reduction's warp exchange and volatile read of a partial, part by part.
template <class T> __device__ __forceinline__ jet_c<T> jet_shuffle_xor(jet_c<T> a, int lane_mask) {
  return {__shfl_xor_sync(0xffffffffu, a.re, lane_mask), __shfl_xor_sync(0xffffffffu, a.im, lane_mask)};
}
template <class T> __device__ __forceinline__ jet_c<T> jet_read_volatile(const jet_c<T>* p) {
  const volatile T* parts = &p->re;
  return {parts[0], parts[1]};
}

template <class T> __device__ __forceinline__ bool operator==(jet_c<T> a, jet_c<T> b) { return a.re == b.re && a.im == b.im; }
template <class T> __device__ __forceinline__ bool operator!=(jet_c<T> a, jet_c<T> b) { return !(a == b); }
template <class T> __device__ __forceinline__ jet_c<T> operator+(jet_c<T> a, jet_c<T> b) { return {a.re + b.re, a.im + b.im}; }
template <class T> __device__ __forceinline__ jet_c<T> operator-(jet_c<T> a, jet_c<T> b) { return {a.re - b.re, a.im - b.im}; }
template <class T> __device__ __forceinline__ jet_c<T> operator-(jet_c<T> a) { return {-a.re, -a.im}; }
// C's Annex G multiplication: where both parts come out NaN, an infinite operand (or an
// overflowed product) is recovered as an infinity. The recovery, rare, is a call: inlined into
// every element of a kernel it would triple NVRTC's time for a product.
template <class T> __device__ __noinline__ jet_c<T> jet_recovered_product(jet_c<T> z, jet_c<T> w, jet_c<T> nan) {
  T a = z.re, b = z.im, c = w.re, d = w.im;
  bool again = false;
  if (isinf(a) || isinf(b)) {
    a = jet_unit_if_inf(a), b = jet_unit_if_inf(b), c = jet_zero_if_nan(c), d = jet_zero_if_nan(d);
    again = true;
  }
  if (isinf(c) || isinf(d)) {
    c = jet_unit_if_inf(c), d = jet_unit_if_inf(d), a = jet_zero_if_nan(a), b = jet_zero_if_nan(b);
    again = true;
  }
  if (!again && (isinf(z.re * w.re) || isinf(z.im * w.im) || isinf(z.re * w.im) || isinf(z.im * w.re))) {
    a = jet_zero_if_nan(a), b = jet_zero_if_nan(b), c = jet_zero_if_nan(c), d = jet_zero_if_nan(d);
    again = true;
  }
  if (!again) return nan;
  return {jet_inf<T>() * (a * c - b * d), jet_inf<T>() * (a * d + b * c)};
}
template <class T> __device__ __forceinline__ jet_c<T> operator*(jet_c<T> z, jet_c<T> w) {
  const jet_c<T> p{z.re * w.re - z.im * w.im, z.re * w.im + z.im * w.re};
  if (isnan(p.re) && isnan(p.im)) return jet_recovered_product(z, w, p);
  return p;
}
// C's Annex G division: divisor and dividend scaled by powers of two to magnitudes in [1, 2), so
// that no part overflows or underflows before the result does; infinities and zeros recovered
// where both parts come out NaN.
template <class T> __device__ __noinline__ jet_c<T> operator/(jet_c<T> z, jet_c<T> w) {
  T a = z.re, b = z.im, c = w.re, d = w.im;
  const T logbw = logb(fmax(fabs(c), fabs(d))), logbz = logb(fmax(fabs(a), fabs(b)));
  int scale = 0;
  if (isfinite(logbw)) scale = -int(logbw), c = scalbn(c, scale), d = scalbn(d, scale);
  if (isfinite(logbz)) scale += int(logbz), a = scalbn(a, -int(logbz)), b = scalbn(b, -int(logbz));
  const T denominator = c * c + d * d;
  T x = scalbn((a * c + b * d) / denominator, scale), y = scalbn((b * c - a * d) / denominator, scale);
  if (isnan(x) && isnan(y)) {
    if (denominator == T(0) && (!isnan(a) || !isnan(b))) {
      x = copysign(jet_inf<T>(), c) * a, y = copysign(jet_inf<T>(), c) * b;
    } else if ((isinf(a) || isinf(b)) && isfinite(c) && isfinite(d)) {
      a = jet_unit_if_inf(a), b = jet_unit_if_inf(b);
      x = jet_inf<T>() * (a * c + b * d), y = jet_inf<T>() * (b * c - a * d);
    } else if (isinf(logbw) && logbw > T(0) && isfinite(a) && isfinite(b)) {
      c = jet_unit_if_inf(c), d = jet_unit_if_inf(d);
      x = T(0) * (a * c + b * d), y = T(0) * (b * c - a * d);
    }
  }
  return {x, y};
}
// |z| without overflow or underflow of the squares.
template <class T> __device__ __forceinline__ T fabs(jet_c<T> z) { return hypot(z.re, z.im); }
template <class T> __device__ __noinline__ jet_c<T> exp(jet_c<T> z) {
  if (z.im == T(0)) return {exp(z.re), z.im};  // exp(x + 0i) is exp(x) + 0i, as C's cexp
  T s, c;
  sincos(z.im, &s, &c);
  const T e = exp(z.re);
  return {e * c, e * s};
}
// log|z| near |z| = 1 through log1p, where log(hypot) would cancel; from the largest part on as
// log(m) + log1p((n/m)^2)/2 where |z| may overflow (log of (1e308, 1e308) is 710.1 + 0.785i).
template <class T> __device__ __noinline__ jet_c<T> log(jet_c<T> z) {
  const T m = fmax(fabs(z.re), fabs(z.im)), n = fmin(fabs(z.re), fabs(z.im));
  T re;
  if (m > T(0.5) && m < T(2))
    re = T(0.5) * log1p((m - T(1)) * (m + T(1)) + n * n);
  else if (m > jet_huge<T>() && !isinf(m))
    re = log(m) + T(0.5) * log1p((n / m) * (n / m));
  else
    re = log(hypot(z.re, z.im));
  return {re, atan2(z.im, z.re)};
}
// The principal root, Kahan's way: t = sqrt((|a| + |z|) / 2), the other part from it; the
// imaginary part keeps z's sign. z is first scaled by an even power of two, 4^-1 where |z| could
// overflow and 4^13 (float) or 4^27 (double) where its parts are so small that subnormals would
// lose digits, and the root by the square root of that power.
template <class T> __device__ __noinline__ jet_c<T> sqrt(jet_c<T> z) {
  T a = z.re, b = z.im;
  if (isinf(b)) return {jet_inf<T>(), b};
  if (isinf(a)) return a > T(0) ? jet_c<T>{a, isnan(b) ? b : copysign(T(0), b)} : jet_c<T>{fabs(b - b), copysign(-a, b)};
  if (a == T(0) && b == T(0)) return {T(0), b};
  const T m = fmax(fabs(a), fabs(b));
  const int half = m > jet_huge<T>() ? 1 : m < jet_tiny<T>() ? (sizeof(T) == 4 ? -13 : -27) : 0;
  a = scalbn(a, -2 * half), b = scalbn(b, -2 * half);
  const T t = sqrt((fabs(a) + hypot(a, b)) * T(0.5));
  if (a >= T(0)) return {scalbn(t, half), scalbn(b / (T(2) * t), half)};
  return {scalbn(fabs(b) / (T(2) * t), half), scalbn(copysign(t, b), half)};
}
template <class T> __device__ __noinline__ jet_c<T> sinh(jet_c<T> z) {
  T s, c;
  sincos(z.im, &s, &c);
  return {sinh(z.re) * c, cosh(z.re) * s};
}
template <class T> __device__ __noinline__ jet_c<T> cosh(jet_c<T> z) {
  T s, c;
  sincos(z.im, &s, &c);
  return {cosh(z.re) * c, sinh(z.re) * s};
}
// sin z = -i sinh(iz), cos z = cosh(iz).
template <class T> __device__ __noinline__ jet_c<T> sin(jet_c<T> z) {
  const jet_c<T> w = sinh(jet_c<T>{-z.im, z.re});
  return {w.im, -w.re};
}
template <class T> __device__ __noinline__ jet_c<T> cos(jet_c<T> z) { return cosh(jet_c<T>{-z.im, z.re}); }
// Kahan's tanh: t = tan(b), s = sinh(a), rho = sqrt(1 + s^2); past |a| = 22 (float64's tanh 1)
// the real part is +-1 and the imaginary one 4 sin b cos b e^(-2|a|).
template <class T> __device__ __noinline__ jet_c<T> tanh(jet_c<T> z) {
  const T a = z.re, b = z.im;
  if (isnan(a)) return {a, b == T(0) ? b : a};
  if (fabs(a) > T(22)) {
    T s, c;
    sincos(b, &s, &c);
    return {copysign(T(1), a), isinf(b) ? copysign(T(0), b) : T(4) * s * c * exp(T(-2) * fabs(a))};
  }
  const T t = tan(b), beta = T(1) + t * t, s = sinh(a), rho = sqrt(T(1) + s * s), d = T(1) + beta * s * s;
  return {beta * rho * s / d, t / d};
}
// tan z = -i tanh(iz).
template <class T> __device__ __noinline__ jet_c<T> tan(jet_c<T> z) {
  const jet_c<T> w = tanh(jet_c<T>{-z.im, z.re});
  return {w.im, -w.re};
}
// exp(z) - 1 without cancellation near 0: expm1(a) cos b - 2 sin^2(b/2), e^a sin b.
template <class T> __device__ __noinline__ jet_c<T> expm1(jet_c<T> z) {
  const T h = sin(z.im * T(0.5));
  return {expm1(z.re) * cos(z.im) - T(2) * h * h, exp(z.re) * sin(z.im)};
}
// log(1 + z) without cancellation near 0: log|1 + z| as log1p(2a + a^2 + b^2) / 2.
template <class T> __device__ __noinline__ jet_c<T> log1p(jet_c<T> z) {
  const T a = z.re, b = z.im;
  if (fabs(a) + fabs(b) >= T(0.5)) return log(jet_c<T>{T(1) + a, b});
  return {T(0.5) * log1p(a * (T(2) + a) + b * b), atan2(b, T(1) + a)};
}
// z^w = exp(w log z); 0^w is 0 for Re w > 0 (NumPy's).
template <class T> __device__ __noinline__ jet_c<T> pow(jet_c<T> z, jet_c<T> w) {
  if (z.re == T(0) && z.im == T(0) && w.re > T(0)) return {T(0), T(0)};
  return exp(w * log(z));
}
)cuda";

}  // namespace jet::detail
