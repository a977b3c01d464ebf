// On the GPU: jet::fft, ifft, rfft, irfft, fft2 and ifft2 against a direct DFT on the host in long
// double (O(n^2) sums, twiddles from the exact j*k mod n), along every axis of 3-D arrays, on views
// and expressions, at a prime length, a power of 2 and others; round trips; the plan cache. Each
// result element must be within k ulps x (log2(n) + 1) x the sum of |x| over its row (the classic
// bound of an FFT's error, with room for cuFFT's Bluestein at prime lengths). The results are
// fresh arrays, so the pool is poisoned instead: a block of the result's size full of NaN is freed
// just before each call, and the result, which the pool hands that block, shows any element left
// unwritten.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

namespace {

using ld = long double;
using cld = std::complex<ld>;
using cf = std::complex<float>;
using cd = std::complex<double>;

constexpr ld two_pi = 6.283185307179586476925286766559005768L;

// Values in [-1, 1] (both parts for complex T).
template <class T> std::vector<T> random_values(std::size_t n, unsigned draw) {
  std::mt19937_64 g(jet::test::fresh_seed() + 7919 * draw + n);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (jet::detail::is_complex_type<T>::value)
      x = T(typename T::value_type(u(g)), typename T::value_type(u(g)));
    else
      x = T(u(g));
  }
  return v;
}

template <class T> cld widen(T x) {
  if constexpr (jet::detail::is_complex_type<T>::value)
    return {ld(x.real()), ld(x.imag())};
  else
    return {ld(x), 0};
}
template <class T> std::vector<cld> widen(const std::vector<T>& v) {
  std::vector<cld> w;
  for (const T& x : v) w.push_back(widen(x));
  return w;
}

// Σ x[j]·exp(sign·2πi·jk/n) for k < n, of x cropped or zero-padded to n.
std::vector<cld> dft(const std::vector<cld>& x, std::int64_t n, int sign) {
  std::vector<cld> twiddle(n);
  for (std::int64_t t = 0; t < n; ++t) twiddle[t] = std::polar(ld(1), sign * two_pi * ld(t) / ld(n));
  std::vector<cld> y(n);
  const auto m = std::min<std::int64_t>(n, x.size());
  for (std::int64_t k = 0; k < n; ++k) {
    cld s = 0;
    for (std::int64_t j = 0; j < m; ++j) s += x[j] * twiddle[(j * k) % n];
    y[k] = s;
  }
  return y;
}

enum class kind { forward, inverse, real_forward, real_inverse };

// One row's reference: what jet's `k` gives for a row x along the axis, to length n.
std::vector<cld> reference_row(kind k, std::vector<cld> x, std::int64_t n) {
  if (k == kind::forward) return dft(x, n, -1);
  if (k == kind::real_forward) {
    std::vector<cld> y = dft(x, n, -1);
    y.resize(n / 2 + 1);
    return y;
  }
  if (k == kind::real_inverse) {  // the Hermitian spectrum of the first n/2 + 1 values
    x.resize(n / 2 + 1);
    x[0].imag(0);
    if (n % 2 == 0) x[n / 2].imag(0);
    std::vector<cld> full(n);
    for (std::int64_t j = 0; j <= n / 2; ++j) full[j] = x[j];
    for (std::int64_t j = n / 2 + 1; j < n; ++j) full[j] = std::conj(x[n - j]);
    x = full;
  }
  std::vector<cld> y = dft(x, n, 1);
  for (auto& v : y) v /= ld(n);
  if (k == kind::real_inverse)
    for (auto& v : y) v.imag(0);
  return y;
}

// The reference of a 1-D transform along `axis` of x (C order, shape s) to length n, and each
// output element's error scale: Σ|x| over the row it came from (over the full Hermitian spectrum
// for irfft), over n for an inverse.
struct reference {
  std::vector<cld> values;
  std::vector<ld> scale;
  jet::shape shape;
};
reference along_axis(kind k, const std::vector<cld>& x, const jet::shape& s, int axis, std::int64_t n) {
  if (axis < 0) axis += s.rank();
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s[d];
  for (int d = axis + 1; d < s.rank(); ++d) inner *= s[d];
  const std::int64_t length = s[axis], out_length = k == kind::real_forward ? n / 2 + 1 : n;
  reference r{std::vector<cld>(outer * out_length * inner), std::vector<ld>(outer * out_length * inner), s};
  r.shape[axis] = out_length;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      std::vector<cld> row(length);
      for (std::int64_t j = 0; j < length; ++j) row[j] = x[(o * length + j) * inner + i];
      const std::int64_t read = std::min<std::int64_t>(length, k == kind::real_inverse ? n / 2 + 1 : n);
      ld sum = 0;
      for (std::int64_t j = 0; j < read; ++j) sum += std::abs(row[j]) * (k == kind::real_inverse && j > 0 ? 2 : 1);
      if (k == kind::inverse || k == kind::real_inverse) sum /= ld(n);
      const std::vector<cld> y = reference_row(k, row, n);
      for (std::int64_t j = 0; j < out_length; ++j) {
        r.values[(o * out_length + j) * inner + i] = y[j];
        r.scale[(o * out_length + j) * inner + i] = sum;
      }
    }
  return r;
}

// The 2-D transform over the last two axes: along the last, then along the one before.
reference last_two_axes(kind k, const std::vector<cld>& x, const jet::shape& s) {
  const int a = s.rank() - 2;
  reference rows = along_axis(k, x, s, a + 1, s[a + 1]);
  reference r = along_axis(k, rows.values, s, a, s[a]);
  const std::int64_t block = s[a] * s[a + 1];
  for (std::size_t b = 0; b < x.size() / block; ++b) {  // each element's scale: Σ|x| over its block
    ld sum = 0;
    for (std::int64_t e = 0; e < block; ++e) sum += std::abs(x[b * block + e]);
    if (k == kind::inverse) sum /= ld(block);
    for (std::int64_t e = 0; e < block; ++e) r.scale[b * block + e] = sum;
  }
  return r;
}

// Frees a NaN-filled block of `count` elements of T: the next allocation of that size on this
// stream (the result's) gets it from the pool.
template <class T> void poison_pool(std::size_t count) {
  using R = typename jet::detail::fft_real<T>::type;
  const T nan = T(std::numeric_limits<R>::quiet_NaN());
  jet::array<T> block = jet::from_host(std::vector<T>(count, nan));
}

// got within ulps · ε · (log2(n) + 1) · scale of the reference, element by element (a NaN fails).
template <class T>
std::size_t mismatches(const jet::array<T>& got, const reference& want, std::int64_t n, double ulps) {
  REQUIRE(got.shape() == want.shape);
  using R = typename jet::detail::fft_real<T>::type;
  const ld bound = ulps * std::numeric_limits<R>::epsilon() * (std::ceil(std::log2(ld(n))) + 1);
  const std::vector<T> values = got.to_host();
  std::size_t bad = 0;
  for (std::size_t e = 0; e < values.size(); ++e) {
    const ld error = std::abs(widen(values[e]) - want.values[e]);
    if (!(error <= bound * want.scale[e])) {
      if (++bad <= 5)
        std::printf("  element %zu: got (%.9Lg, %.9Lg), want (%.9Lg, %.9Lg), error %.3Lg > %.3Lg\n", e,
                    widen(values[e]).real(), widen(values[e]).imag(), want.values[e].real(), want.values[e].imag(),
                    error, bound * want.scale[e]);
    }
  }
  return bad;
}

constexpr double ulps = 8;  // per log2(n) + 1, of Σ|x|

template <class T> void check_1d(kind k, const jet::shape& s, int axis, std::int64_t n, unsigned draw) {
  using C = std::complex<typename jet::detail::fft_real<T>::type>;
  const std::vector<T> host = random_values<T>(s.size(), draw);
  const jet::array<T> x = jet::from_host(host, s);
  const reference want = along_axis(k, widen(host), s, axis, n);
  INFO("shape " << s.to_string() << ", axis " << axis << ", n " << n);
  if (k == kind::real_inverse) {
    poison_pool<typename jet::detail::fft_real<T>::type>(want.values.size());
    CHECK(mismatches(jet::irfft(x, n, axis), want, n, ulps) == 0);
    return;
  }
  poison_pool<C>(want.values.size());
  jet::array<C> got;
  if (k == kind::forward)
    got = jet::fft(x, n, axis);
  else if (k == kind::inverse)
    got = jet::ifft(x, n, axis);
  else if constexpr (!jet::detail::is_complex_type<T>::value)
    got = jet::rfft(x, n, axis);
  CHECK(mismatches(got, want, n, ulps) == 0);
}

template <class T> std::vector<T> transposed(const std::vector<T>& v, std::int64_t rows, std::int64_t columns) {
  std::vector<T> t(v.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < columns; ++c) t[c * rows + r] = v[r * columns + c];
  return t;
}

}  // namespace

TEST_CASE("fft: 1-D transforms against a long double DFT, batched, prime and power-of-2 lengths", "[gpu][fft]") {
  for (std::int64_t n : {1, 2, 7, 97, 100, 128, 512}) {
    check_1d<cf>(kind::forward, {3, n}, -1, n, 1);
    check_1d<cd>(kind::forward, {3, n}, -1, n, 2);
    check_1d<cf>(kind::inverse, {2, n}, 1, n, 3);
    check_1d<cd>(kind::inverse, {2, n}, 1, n, 4);
  }
  check_1d<cf>(kind::forward, {512}, 0, 512, 5);
  check_1d<cd>(kind::forward, {97}, -1, 97, 6);
}

TEST_CASE("fft: along axis 0, 1 and the last of 3-D arrays, in either batching", "[gpu][fft]") {
  for (const jet::shape& s : {jet::shape{4, 12, 7}, jet::shape{9, 8, 3}})
    for (int axis : {0, 1, 2, -2}) {
      const int dim = axis < 0 ? axis + 3 : axis;
      check_1d<cf>(kind::forward, s, axis, s[dim], 10);
      check_1d<cd>(kind::forward, s, axis, s[dim], 11);
      check_1d<cf>(kind::inverse, s, axis, s[dim], 12);
      check_1d<cd>(kind::inverse, s, axis, s[dim], 13);
    }
}

TEST_CASE("fft: n crops or pads with zeros", "[gpu][fft]") {
  check_1d<cf>(kind::forward, {3, 16}, -1, 5, 20);
  check_1d<cf>(kind::forward, {3, 16}, -1, 40, 21);
  check_1d<cd>(kind::inverse, {16, 3}, 0, 97, 22);
  check_1d<cd>(kind::forward, {4, 10, 3}, 1, 6, 23);
}

TEST_CASE("fft: rfft and irfft against the DFT, along the last axis and others, odd and even n", "[gpu][fft]") {
  for (std::int64_t n : {1, 2, 9, 97, 128}) {
    check_1d<float>(kind::real_forward, {3, n}, -1, n, 30);
    check_1d<double>(kind::real_forward, {3, n}, -1, n, 31);
  }
  check_1d<float>(kind::real_forward, {6, 5, 4}, 1, 5, 32);
  check_1d<double>(kind::real_forward, {10, 3}, 0, 10, 33);
  // irfft of arbitrary complex values: the imaginary parts of the zero frequency and of n/2 are
  // ignored, as NumPy ignores them.
  check_1d<cf>(kind::real_inverse, {3, 9}, -1, 16, 34);    // the default n = 2 * (9 - 1)
  check_1d<cd>(kind::real_inverse, {3, 9}, -1, 17, 35);    // odd n, reads 9
  check_1d<cd>(kind::real_inverse, {3, 9}, -1, 7, 36);     // cropped: reads 4
  check_1d<cf>(kind::real_inverse, {3, 9}, -1, 30, 37);    // padded: reads 16
  check_1d<cd>(kind::real_inverse, {4, 6, 5}, 1, 10, 38);  // C2R looped over the axes around it
  check_1d<cf>(kind::real_inverse, {6, 4, 3}, 1, 6, 39);
  check_1d<cf>(kind::real_inverse, {5, 4}, 0, 6, 40);
  // irfft's default n, without n given.
  const jet::array<cf> spectrum = jet::from_host(random_values<cf>(2 * 9, 41), {2, 9});
  CHECK(jet::irfft(spectrum).shape() == jet::shape{2, 16});
}

TEST_CASE("fft: round trips ifft(fft(x)) and irfft(rfft(x), n) give x back", "[gpu][fft]") {
  for (std::int64_t n : {97, 512}) {
    const std::vector<cf> h = random_values<cf>(4 * n, 50);
    const jet::array<cf> x = jet::from_host(h, {4, n});
    const std::vector<cf> back = jet::ifft(jet::fft(x)).to_host();
    const std::vector<float> real = jet::irfft(jet::rfft(jet::real(x)), n).to_host();
    const ld bound = 2 * ulps * std::numeric_limits<float>::epsilon() * (std::ceil(std::log2(ld(n))) + 1);
    std::size_t bad = 0;
    for (std::int64_t r = 0; r < 4; ++r) {
      ld sum = 0, real_sum = 0;
      for (std::int64_t j = 0; j < n; ++j)
        sum += std::abs(widen(h[r * n + j])), real_sum += std::fabs(h[r * n + j].real());
      for (std::int64_t j = 0; j < n; ++j) {
        bad += !(std::abs(widen(back[r * n + j]) - widen(h[r * n + j])) <= bound * sum);
        bad += !(std::fabs(ld(real[r * n + j]) - ld(h[r * n + j].real())) <= bound * real_sum);
      }
    }
    CHECK(bad == 0);
  }
  const std::vector<cd> h = random_values<cd>(3 * 100, 51);
  const jet::array<cd> x = jet::from_host(h, {3, 100});
  const std::vector<cd> back = jet::ifft(jet::fft(x, jet::axis{0}), jet::axis{0}).to_host();
  for (std::size_t e = 0; e < h.size(); ++e) CHECK(std::abs(back[e] - h[e]) <= 1e-14);
}

TEST_CASE("fft: views and expressions as operands; real and integer operands promote", "[gpu][fft]") {
  const std::int64_t rows = 6, columns = 20;
  const std::vector<cf> h = random_values<cf>(rows * columns, 60);
  jet::array<cf> x = jet::from_host(h, {rows, columns});
  // A transposed view: the FFT of each column.
  reference want = along_axis(kind::forward, widen(transposed(h, rows, columns)), {columns, rows}, 1, rows);
  poison_pool<cf>(h.size());
  CHECK(mismatches(jet::fft(x.transpose()), want, rows, ulps) == 0);
  // Every other column.
  std::vector<cf> every_other;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < columns; c += 2) every_other.push_back(h[r * columns + c]);
  want = along_axis(kind::forward, widen(every_other), {rows, columns / 2}, 1, columns / 2);
  CHECK(mismatches(jet::fft(x.slice(1, 0, columns, 2)), want, columns / 2, ulps) == 0);
  // x * window, one kernel into the FFT's buffer.
  const std::vector<float> w = random_values<float>(columns, 61);
  const jet::array<float> window = jet::from_host(w);
  std::vector<cld> product(h.size());
  for (std::size_t e = 0; e < h.size(); ++e) product[e] = widen(h[e]) * ld(w[e % columns]);
  want = along_axis(kind::forward, product, {rows, columns}, 1, columns);
  CHECK(mismatches(jet::fft(x * window), want, columns, ulps) == 0);
  // A real expression promotes to complex64; integers and bool compute in complex128.
  std::vector<cld> real_product(h.size());
  for (std::size_t e = 0; e < h.size(); ++e) real_product[e] = ld(h[e].real()) * ld(w[e % columns]);
  want = along_axis(kind::forward, real_product, {rows, columns}, 1, columns);
  CHECK(mismatches(jet::fft(jet::real(x) * window), want, columns, ulps) == 0);
  std::vector<std::int32_t> integers(rows * columns);
  for (std::size_t e = 0; e < integers.size(); ++e) integers[e] = static_cast<std::int32_t>(e * 37 % 101) - 50;
  want = along_axis(kind::forward, widen(integers), {rows, columns}, 1, columns);
  const jet::array<cd> from_integers = jet::fft(jet::from_host(integers, {rows, columns}));
  CHECK(mismatches(from_integers, want, columns, ulps) == 0);
}

TEST_CASE("fft: operands computed in cuFFT's loads, padded along each axis, new operands each call", "[gpu][fft]") {
  const jet::shape s{5, 12, 7};
  for (unsigned call = 0; call < 2; ++call) {  // the second call refills each plan's parameter block
    const std::vector<cf> h = random_values<cf>(s.size(), 100 + call);
    const std::vector<float> w = random_values<float>(s[2], 110 + call);
    const float gain = call ? -0.5f : 2.f;
    const jet::array<cf> x = jet::from_host(h, s);
    const jet::array<float> window = jet::from_host(w);
    std::vector<cld> product(h.size()), real_product(h.size());
    for (std::size_t e = 0; e < h.size(); ++e) {
      product[e] = widen(h[e]) * ld(w[e % s[2]]) * ld(gain);
      real_product[e] = ld(h[e].real()) * ld(w[e % s[2]]);
    }
    for (int axis = 0; axis < 3; ++axis) {
      INFO("call " << call << ", axis " << axis);
      const std::int64_t n = s[axis] + 3;  // the zeros that pad are the callback's too
      const reference want = along_axis(kind::forward, product, s, axis, n);
      poison_pool<cf>(want.values.size());
      CHECK(mismatches(jet::fft(x * window * gain, n, jet::axis{axis}), want, n, ulps) == 0);
      // R2C reads real values (along axis 1, a copy moved last, not fused).
      const reference real_want = along_axis(kind::real_forward, real_product, s, axis, n);
      poison_pool<cf>(real_want.values.size());
      CHECK(mismatches(jet::rfft(jet::real(x) * window, n, jet::axis{axis}), real_want, n, ulps) == 0);
    }
  }
  // complex128 from integers and a counter (no memory), along the last axis.
  std::vector<std::int32_t> integers(s.size());
  std::vector<cld> sum(s.size());
  for (std::size_t e = 0; e < integers.size(); ++e) {
    integers[e] = static_cast<std::int32_t>(e * 53 % 97) - 48;
    sum[e] = ld(integers[e]) + ld(e % s[2]);
  }
  const jet::array<std::int32_t> i = jet::from_host(integers, s);
  poison_pool<cd>(s.size());
  CHECK(mismatches(jet::fft(i + jet::arange(s[2])), along_axis(kind::forward, sum, s, 2, s[2]), s[2], ulps) == 0);
}

TEST_CASE("fft: fft2 and ifft2 over the last two axes, and their round trip", "[gpu][fft]") {
  const jet::shape s{3, 8, 6};
  const std::vector<cf> h = random_values<cf>(s.size(), 70);
  const jet::array<cf> x = jet::from_host(h, s);
  const reference forward = last_two_axes(kind::forward, widen(h), s);
  poison_pool<cf>(h.size());
  CHECK(mismatches(jet::fft2(x), forward, 48, ulps) == 0);
  const std::vector<cd> hd = random_values<cd>(s.size(), 71);
  const jet::array<cd> xd = jet::from_host(hd, s);
  CHECK(mismatches(jet::ifft2(xd), last_two_axes(kind::inverse, widen(hd), s), 48, ulps) == 0);
  const std::vector<cd> back = jet::ifft2(jet::fft2(xd)).to_host();
  for (std::size_t e = 0; e < hd.size(); ++e) CHECK(std::abs(back[e] - hd[e]) <= 1e-14);
}

TEST_CASE("fft: Parseval's identity at 2^16 points", "[gpu][fft]") {
  const std::int64_t n = 1 << 16;
  const jet::array<cd> x = jet::from_host(random_values<cd>(n, 80));
  const jet::array<cd> X = jet::fft(x);
  const double time_energy = jet::sum(jet::abs2(x)).item(), frequency_energy = jet::sum(jet::abs2(X)).item();
  CHECK(std::fabs(frequency_energy / n - time_energy) <= 1e-12 * time_energy);
}

TEST_CASE("fft: plans are made once per layout and stream; empty batches transform nothing", "[gpu][fft]") {
  const jet::array<cf> x = jet::from_host(random_values<cf>(3 * 37, 90), {3, 37});
  const std::size_t before = jet::detail::fft_plans_created();
  jet::array<cf> a = jet::fft(x);
  const std::size_t after_first = jet::detail::fft_plans_created();
  CHECK(after_first <= before + 1);  // 0 if an earlier test made this plan
  jet::array<cf> b = jet::fft(x);
  CHECK(jet::detail::fft_plans_created() == after_first);
  jet::stream s;
  {
    jet::stream_guard on(s);
    jet::array<cf> c = jet::fft(x);
    CHECK(jet::detail::fft_plans_created() == after_first + 1);
    CHECK(c.to_host() == a.to_host());  // same plan shape, another stream: the same bits
  }
  CHECK(b.to_host() == a.to_host());
  const jet::array<cf> empty(jet::shape{0, 8});
  CHECK(jet::fft(empty).shape() == jet::shape{0, 8});
  CHECK(jet::detail::fft_plans_created() == after_first + 1);
}
