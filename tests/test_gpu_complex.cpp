// On the GPU: complex64 and complex128 ops against std::complex<long double> (GCC's Annex G
// multiplication and division, glibc's complex functions), on fresh random values and on a grid
// of special components (±0, ±inf, NaN, huge and tiny magnitudes), into poisoned outputs. A
// finite result must be within k ulps of the reference's magnitude; a special one must be of the
// reference's kind part by part (NaN, or the same infinity).
#include "support/catch.hpp"
#include "support/complex_check.hpp"
#include "support/gpu_check.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace jet::test::complex_check;

// A value no op produces from these inputs: the output's poison.
template <class T> std::complex<T> poison() { return {T(-12345.5), T(6789.25)}; }

// Evaluates e into a poisoned array and counts the elements not close to want(i).
template <class T, class E, class Want, class Magnitude = ld (*)(std::size_t)> std::size_t mismatches(
    const char* what, const E& e, std::size_t n, Want want, double ulps,
    Magnitude magnitude = [](std::size_t) { return ld(0); }, specials rule = specials::part_by_part) {
  jet::array<std::complex<T>> out(n);
  const std::vector<std::complex<T>> poisoned(n, poison<T>());
  jet::detail::copy_to_device(out.data(), poisoned.data(), n * sizeof(std::complex<T>));
  out = e;
  return count_mismatches(what, out.to_host(), want, ulps, magnitude, rule);
}

// Unary functions: CUDA's real functions composed, within 16 ulps of the magnitude (pow: 32).
template <class T> void check_functions(const std::vector<std::complex<T>>& hz) {
  const std::size_t n = hz.size();
  const jet::array<std::complex<T>> z = jet::from_host(hz);
  auto at = [&](std::size_t i) { return wide(hz[i]); };
  CHECK(mismatches<T>(
            "exp", jet::exp(z), n, [&](std::size_t i) { return std::exp(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "log", jet::log(z), n, [&](std::size_t i) { return std::log(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "sqrt", jet::sqrt(z), n, [&](std::size_t i) { return std::sqrt(at(i)); }, 4) == 0);
  CHECK(mismatches<T>(
            "sin", jet::sin(z), n, [&](std::size_t i) { return std::sin(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "cos", jet::cos(z), n, [&](std::size_t i) { return std::cos(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "tan", jet::tan(z), n, [&](std::size_t i) { return std::tan(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "sinh", jet::sinh(z), n, [&](std::size_t i) { return std::sinh(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "cosh", jet::cosh(z), n, [&](std::size_t i) { return std::cosh(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "tanh", jet::tanh(z), n, [&](std::size_t i) { return std::tanh(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "expm1", jet::expm1(z), n, [&](std::size_t i) { return expm1_reference(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "log1p", jet::log1p(z), n, [&](std::size_t i) { return log1p_reference(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "pow", jet::pow(z, z * T(0.5)), n, [&](std::size_t i) { return std::pow(at(i), at(i) * ld(0.5)); }, 32) ==
        0);
}

// Arithmetic, the parts and the magnitude; products only without `extremes` (huge and tiny
// components: quotients and magnitudes must neither overflow nor underflow before the result).
template <class T>
void check_arithmetic(const std::vector<std::complex<T>>& ha, const std::vector<std::complex<T>>& hb, bool extremes) {
  const std::size_t n = ha.size();
  const jet::array<std::complex<T>> a = jet::from_host(ha), b = jet::from_host(hb);
  auto x = [&](std::size_t i) { return wide(ha[i]); };
  auto y = [&](std::size_t i) { return wide(hb[i]); };
  CHECK(mismatches<T>(
            "a + b", a + b, n, [&](std::size_t i) { return x(i) + y(i); }, 1) == 0);
  CHECK(mismatches<T>(
            "a - b", a - b, n, [&](std::size_t i) { return x(i) - y(i); }, 1) == 0);
  if (!extremes) {
    CHECK(mismatches<T>(
              "a * b", a * b, n, [&](std::size_t i) { return x(i) * y(i); }, 4) == 0);
    // Its parts cancel: the error is relative to the terms' size, |a||b| + |a|.
    CHECK(mismatches<T>(
              "a * b + a (fused)", a * b + a, n, [&](std::size_t i) { return x(i) * y(i) + x(i); }, 8,
              [&](std::size_t i) { return std::abs(x(i)) * std::abs(y(i)) + std::abs(x(i)); }) == 0);
  }
  CHECK(mismatches<T>(
            "a / b", a / b, n, [&](std::size_t i) { return x(i) / y(i); }, 8, [](std::size_t) { return ld(0); },
            specials::annex_g_infinity) == 0);
  CHECK(mismatches<T>(
            "-a", -a, n, [&](std::size_t i) { return -x(i); }, 0) == 0);
  CHECK(mismatches<T>(
            "conj(a)", jet::conj(a), n, [&](std::size_t i) { return std::conj(x(i)); }, 0) == 0);
  // Real results: abs (hypot), abs2, real, imag, angle, each into a real array.
  const std::vector<T> abs_got = jet::array<T>(jet::abs(a)).to_host(), abs2_got = jet::array<T>(jet::abs2(a)).to_host(),
                       real_got = jet::array<T>(jet::real(a)).to_host(),
                       imag_got = jet::array<T>(jet::imag(a)).to_host(),
                       angle_got = jet::array<T>(jet::angle(a)).to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto same_bits = [](T got, T want) { return std::memcmp(&got, &want, sizeof(T)) == 0; };
    const auto near = [](T got, ld want, double ulps) {
      using L = std::numeric_limits<T>;
      if (std::isnan(want)) return std::isnan(got);
      if (std::fabs(want) > ld(L::max())) return std::isinf(got);
      return std::fabs(ld(got) - want) <= ld(ulps) * ld(L::epsilon()) * std::fabs(want) + ld(L::denorm_min());
    };
    const bool ok = near(abs_got[i], std::hypot(x(i).real(), x(i).imag()), 2) &&
                    near(abs2_got[i], x(i).real() * x(i).real() + x(i).imag() * x(i).imag(), 3) &&
                    same_bits(real_got[i], ha[i].real()) && same_bits(imag_got[i], ha[i].imag()) &&
                    near(angle_got[i], std::atan2(x(i).imag(), x(i).real()), 4);
    if (!ok && bad++ < 5)
      std::printf("  element %zu: abs %.9g abs2 %.9g real %.9g imag %.9g angle %.9g\n", i, double(abs_got[i]),
                  double(abs2_got[i]), double(real_got[i]), double(imag_got[i]), double(angle_got[i]));
  }
  CHECK(bad == 0);
}

// log and log1p where |z| overflows but log|z| does not (fuzz case 6152890373521329565: the
// device's log(hypot) gave inf).
template <class T> void check_huge_logarithms() {
  const T m = std::numeric_limits<T>::max();
  const std::vector<std::complex<T>> hz = {{m, m}, {-m, m / 2}, {m / 2, -m}, {m, T(1)}, {T(-3), m}, {m / 2, m / 2}};
  const std::size_t n = hz.size();
  const jet::array<std::complex<T>> z = jet::from_host(hz);
  auto at = [&](std::size_t i) { return wide(hz[i]); };
  CHECK(mismatches<T>(
            "log of huge", jet::log(z), n, [&](std::size_t i) { return std::log(at(i)); }, 16) == 0);
  CHECK(mismatches<T>(
            "log1p of huge", jet::log1p(z), n, [&](std::size_t i) { return log1p_reference(at(i)); }, 16) == 0);
}

template <class T> void check_all() {
  INFO((sizeof(T) == 4 ? "complex64" : "complex128"));
  check_functions(random_values<T>(1 << 16, false, 0));
  check_huge_logarithms<T>();
  check_arithmetic(random_values<T>(1 << 16, false, 1), random_values<T>(1 << 16, false, 2), false);
  check_arithmetic(random_values<T>(1 << 16, true, 3), random_values<T>(1 << 16, true, 4), true);
  // Every pair of special values: the products and quotients of Annex G, the roots of csqrt.
  const auto [ha, hb] = special_pairs<T>();
  check_arithmetic(ha, hb, false);
  const std::vector<std::complex<T>> s = special_values<T>();
  const jet::array<std::complex<T>> special = jet::from_host(s);
  CHECK(mismatches<T>(
            "sqrt", jet::sqrt(special), s.size(), [&](std::size_t i) { return std::sqrt(wide(s[i])); }, 4) == 0);
}

}  // namespace

TEST_CASE("complex arithmetic and functions against std::complex<long double>, on the GPU", "[gpu][complex]") {
  check_all<float>();
  check_all<double>();
}

TEST_CASE("complex values mix with real ones: promotion, constructors, where, casts, stores, on the GPU",
          "[gpu][complex]") {
  using cf = std::complex<float>;
  using cd = std::complex<double>;
  const std::vector<float> hx = {0.f, -0.f, 1.5f, -2.f, 3.25f};
  const std::vector<double> hy = {1.0, -1.0, 0.5, 2.0, -0.25};
  const jet::array<float> x = jet::from_host(hx);
  const jet::array<double> y = jet::from_host(hy);
  jet::array<cf> z = jet::from_host(std::vector<cf>{{1, 2}, {-3, 0.5f}, {0, -1}, {2, 2}, {-1, -1}});
  // make_complex of float32 and float64 parts is complex128; polar of float32 is complex64.
  const std::vector<cd> made = jet::array<cd>(jet::make_complex(x, y)).to_host();
  const std::vector<cf> polar = jet::array<cf>(jet::polar(x, x)).to_host();
  for (std::size_t i = 0; i < hx.size(); ++i) {
    CHECK(made[i] == cd(hx[i], hy[i]));
    CHECK(std::abs(polar[i] - std::polar(hx[i], hx[i])) <= 4e-7f * std::max(1.f, std::fabs(hx[i])));
  }
  // A real expression into a complex array: imaginary parts 0. complex64 * float64 is complex128.
  jet::array<cf> from_real(hx.size());
  from_real = x * 2.f;
  const std::vector<cd> widened = jet::array<cd>(z * y).to_host();
  const std::vector<cf> scaled = jet::array<cf>(z * cd(0, 1)).to_host();  // a complex128 scalar stays weak
  const std::vector<cf> chosen = jet::array<cf>(jet::where(x > 0.f, z, jet::cast<cf>(x))).to_host();
  const std::vector<bool> equal = jet::array<bool>(z == jet::conj(jet::conj(z))).to_host();
  const std::vector<cf> zs = z.to_host(), stored = from_real.to_host();
  for (std::size_t i = 0; i < hx.size(); ++i) {
    CHECK(stored[i] == cf(2 * hx[i], 0));
    CHECK(widened[i] == cd(zs[i]) * hy[i]);
    CHECK(scaled[i] == zs[i] * cf(0, 1));
    CHECK(chosen[i] == (hx[i] > 0 ? zs[i] : cf(hx[i], 0)));
    CHECK(equal[i]);
  }
  // Views of complex arrays: a strided one (every other element).
  const jet::view<cf> every_other(z.data(), jet::shape{3}, {2});  // elements 0, 2, 4
  const std::vector<cf> doubled = jet::array<cf>(every_other * 2.f).to_host();
  for (std::size_t i = 0; i < 3; ++i) CHECK(doubled[i] == zs[2 * i] * 2.f);
}

TEST_CASE("real() and imag() views write and read one part of complex memory, on the GPU", "[gpu][complex][view]") {
  using cd = std::complex<double>;
  const std::size_t rows = 3, columns = 5;
  std::vector<cd> hz(rows * columns);
  std::vector<double> hx(rows * columns);
  for (std::size_t i = 0; i < hz.size(); ++i) hz[i] = {0.5 * double(i), -double(i) - 0.25}, hx[i] = 100.0 + double(i);
  jet::array<cd> z = jet::from_host(hz, jet::shape{rows, columns});
  jet::array<double> x = jet::from_host(hx, jet::shape{rows, columns});
  z.real() = x * 2.0;  // the imaginary parts stay
  std::vector<cd> got = z.to_host();
  for (std::size_t i = 0; i < hz.size(); ++i) CHECK(got[i] == cd(2 * hx[i], hz[i].imag()));
  // Through a transposed view: imag() of z's transpose takes x's transpose.
  z.transpose().imag() = x.transpose() - 1.0;
  got = z.to_host();
  for (std::size_t i = 0; i < hz.size(); ++i) CHECK(got[i] == cd(2 * hx[i], hx[i] - 1));
  // Read as operands: |z|² from the parts equals abs2(z); a reversed column of imaginary parts.
  const std::vector<double> from_parts = jet::array<double>(z.real() * z.real() + z.imag() * z.imag()).to_host();
  const std::vector<double> abs2 = jet::array<double>(jet::abs2(z)).to_host();
  for (std::size_t i = 0; i < hz.size(); ++i) CHECK(from_parts[i] == abs2[i]);
  const std::vector<double> column = z.slice(1, 4, -6, -1).imag().slice(0, 1, 2).to_host();
  for (std::size_t c = 0; c < columns; ++c) CHECK(column[c] == hx[columns + (columns - 1 - c)] - 1);
}

namespace {

// The complex reductions over every element and along each axis of an odd-shaped matrix, against
// long double sums. A total is within (log2 n + 2) ε of Σ|z| (the accumulator is complex128; a
// complex64 result rounds once more), a product of m factors within 4m ε of its magnitude.
template <class T> void check_reductions() {
  using C = std::complex<T>;
  const std::size_t rows = 37, columns = 129, n = rows * columns;
  std::vector<C> ha = random_values<T>(n, false, 5), hb = random_values<T>(n, false, 6);
  for (std::size_t i = 0; i < n; i += 11) ha[i] = C(0, 0);  // zeros, for any and all
  jet::array<C> a = jet::from_host(ha, jet::shape{rows, columns});
  const jet::array<C> b = jet::from_host(hb, jet::shape{rows, columns});
  const ld eps = ld(std::numeric_limits<T>::epsilon());
  const auto near = [&](C got, cld want, ld scale, ld ulps) {
    return std::abs(cld(got.real(), got.imag()) - want) <= ulps * eps * scale;
  };
  // Σ f(i) over the elements i of row r (axis 1), column c (axis 0) or all, with Σ|f(i)|.
  const auto total = [&](auto f, int axis, std::size_t k) {
    cld s = 0;
    ld magnitude = 0;
    const std::size_t count = axis == 1 ? columns : axis == 0 ? rows : n;
    for (std::size_t j = 0; j < count; ++j) {
      const std::size_t i = axis == 1 ? k * columns + j : axis == 0 ? j * columns + k : j;
      s += f(i), magnitude += std::abs(f(i));
    }
    return std::pair{s, magnitude};
  };
  const auto x = [&](std::size_t i) { return wide(ha[i]); };
  const auto xy = [&](std::size_t i) { return wide(ha[i]) * wide(hb[i]); };
  const auto conj_xy = [&](std::size_t i) { return std::conj(wide(ha[i])) * wide(hb[i]); };
  const ld ulps = std::log2(ld(n)) + 2;
  const auto [sum, sum_scale] = total(x, -1, 0);
  CHECK(near(jet::sum(a).item(), sum, sum_scale, ulps));
  CHECK(near(jet::mean(a).item(), sum / ld(n), sum_scale / ld(n), ulps));
  const auto [dot, dot_scale] = total(xy, -1, 0);
  CHECK(near(jet::dot(a, b).item(), dot, dot_scale, ulps));
  const auto [vdot, vdot_scale] = total(conj_xy, -1, 0);
  CHECK(near(jet::vdot(a, b).item(), vdot, vdot_scale, ulps));
  ld squares = 0;
  for (std::size_t i = 0; i < n; ++i) squares += std::norm(x(i));
  CHECK(std::fabs(ld(jet::norm2(a).item()) - std::sqrt(squares)) <= ulps * eps * std::sqrt(squares));
  CHECK(jet::any(a).item());
  CHECK(!jet::all(a).item());
  CHECK(jet::all(b).item() == std::all_of(hb.begin(), hb.end(), [](C z) { return z != C(0); }));
  // Along each axis: sums and norms of the rows and columns, products of 8 columns of each row.
  for (int axis : {0, 1}) {
    const std::vector<C> sums = jet::sum(a, axis).to_host();
    const std::vector<T> norms = jet::norm2(a, axis).to_host();
    std::size_t bad = 0;
    for (std::size_t k = 0; k < sums.size(); ++k) {
      const auto [s, scale] = total(x, axis, k);
      const auto [q, q_scale] = total([&](std::size_t i) { return cld(std::norm(x(i))); }, axis, k);
      bad += !near(sums[k], s, scale, ulps) ||
             std::fabs(ld(norms[k]) - std::sqrt(q.real())) > ulps * eps * std::sqrt(q.real());
    }
    CHECK(bad == 0);
  }
  const std::vector<C> products = jet::prod(a.slice(1, 1, 9), 1).to_host();
  for (std::size_t r = 0; r < rows; ++r) {
    cld p = 1;
    for (std::size_t c = 1; c < 9; ++c) p *= x(r * columns + c);
    CHECK(near(products[r], p, std::abs(p), 32));
  }
}

}  // namespace

TEST_CASE("complex reductions: sum, prod, mean, norm2, dot, vdot, any, all, on the GPU", "[gpu][complex][reduce]") {
  check_reductions<float>();
  check_reductions<double>();
}

TEST_CASE("complex sums of every element over the whole grid: each block's partial has its place",
          "[gpu][complex][reduce]") {
  // 2^23 elements take the all-elements grid's most blocks, each leaving a complex128 partial in
  // its stream's workspace (twice a float64's bytes), before the ticket that the last block takes.
  const std::size_t n = std::size_t{1} << 23;
  const jet::array<std::complex<float>> a = jet::from_host(std::vector<std::complex<float>>(n, {1.0f, -2.0f}));
  const jet::array<std::complex<double>> b = jet::from_host(std::vector<std::complex<double>>(n, {0.5, 3.0}));
  for (int round = 0; round < 2; ++round) {  // the ticket is back at 0 for the next launch
    CHECK(jet::sum(a).item() == std::complex<float>(8388608.0f, -16777216.0f));
    CHECK(jet::sum(b).item() == std::complex<double>(4194304.0, 25165824.0));
    CHECK(jet::sum(jet::real(a)).item() == 8388608.0f);
  }
}
