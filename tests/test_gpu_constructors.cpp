// On the GPU: the fusing constructors (include/jet/constructors.hpp) evaluated into poisoned
// outputs, every element against values computed here on the host by NumPy's formulas (written
// out, not through jet's expressions), at sizes that reach the linear, rows and strided kernels;
// `x * arange(n)` as one launch; and printing of device arrays and views.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"

#include <jet/jet.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

using jet::test::fresh_seed;
using jet::test::random_vector;
using jet::test::readback_t;

template <class E> using value_of = jet::cpp_type<std::remove_cvref_t<E>::type>;

// e evaluated into a poisoned array of its own shape and dtype (Out), read back element by element
// (a bool as its byte, so that the poison shows).
template <class Out = void, class E> auto evaluated(const E& e) {
  using R = std::conditional_t<std::is_void_v<Out>, value_of<E>, Out>;
  using B = readback_t<R>;
  const jet::shape s = jet::detail::bound_one<R, std::remove_cvref_t<E>>(e).shape();
  jet::array<R> out(s);
  const std::vector<B> poisoned(s.size(), jet::test::poison<B>());
  jet::detail::copy_to_device(out.data(), poisoned.data(), s.size() * sizeof(R));
  out = e;
  REQUIRE(out.shape() == s);
  std::vector<B> got(s.size());
  jet::detail::copy_to_host(got.data(), out.data(), s.size() * sizeof(R));
  return got;
}

// The elements where got and want differ in their bits (NaN payloads aside), the first few printed.
template <class T>
std::size_t bit_differences(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
    const bool same = std::isnan(w) ? std::isnan(g) : std::memcmp(&got[i], &want[i], sizeof(T)) == 0;
    if (!same && bad++ < 5) std::printf("  %s, element %zu: got %.17g, want %.17g\n", what, i, g, w);
  }
  return bad;
}

// NumPy's arange over floats: ceil((stop - start) / step) elements, start, then start + i *
// ((start + step) - start).
std::vector<double> numpy_arange(double start, double stop, double step) {
  const double length = std::ceil((stop - start) / step);
  const std::size_t n = length > 0 ? static_cast<std::size_t>(length) : 0;
  std::vector<double> v(n);
  const double delta = (start + step) - start;
  for (std::size_t i = 0; i < n; ++i) v[i] = i == 0 ? start : start + static_cast<double>(i) * delta;
  return v;
}

// NumPy's linspace (numpy/_core/function_base.py), step by step.
std::vector<double> numpy_linspace(double start, double stop, std::size_t num, bool endpoint) {
  const double divisions = static_cast<double>(endpoint ? num - 1 : num), delta = stop - start;
  std::vector<double> y(num);
  for (std::size_t i = 0; i < num; ++i) {
    const double x = static_cast<double>(i);
    if (divisions <= 0)
      y[i] = x * delta + start;
    else if (delta / divisions == 0)
      y[i] = x / divisions * delta + start;
    else
      y[i] = x * (delta / divisions) + start;
  }
  if (endpoint && num > 1) y[num - 1] = stop;
  return y;
}

// Element (i, j, ...) of a C-order shape: its index along `axis`.
std::vector<std::int64_t> index_along(const jet::shape& s, int axis) {
  std::vector<std::int64_t> v(s.size());
  std::int64_t inner = 1;
  for (int d = s.rank() - 1; d > axis; --d) inner *= s[d];
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = (static_cast<std::int64_t>(i) / inner) % s[axis];
  return v;
}

}  // namespace

TEST_CASE("x * arange(x.size()) is one launch that reads only x", "[gpu][constructors]") {
  const std::size_t n = (1 << 20) + 3;
  const std::vector<float> hx = random_vector<float>(n, -3, 3, fresh_seed() + 31);
  const jet::array<float> x = jet::from_host(hx);
  const auto before = jet::stats().launches;
  const std::vector<float> got = evaluated(x * jet::arange(x.size()));
  CHECK(jet::stats().launches - before == 1);
  std::vector<float> want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = hx[i] * static_cast<float>(i);  // int64 to float, then one product
  CHECK(bit_differences("x * arange(n)", got, want) == 0);

  // Broadcast along the rows of a matrix (a rows kernel: rows longer than a block) and down its
  // columns (iota along axis 0: stride 0 along the inner dimension).
  const jet::shape s{300, 1000};
  const std::vector<float> hm = random_vector<float>(s.size(), -3, 3, fresh_seed() + 32);
  const jet::array<float> m = jet::from_host(hm, s);
  const std::vector<float> rows = evaluated(m * jet::arange(1000)), columns = evaluated(m - jet::iota(s, 0));
  std::vector<float> want_rows(s.size()), want_columns(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    want_rows[i] = hm[i] * static_cast<float>(i % 1000);
    want_columns[i] = hm[i] - static_cast<float>(i / 1000);
  }
  CHECK(bit_differences("m * arange(1000)", rows, want_rows) == 0);
  CHECK(bit_differences("m - iota(s, 0)", columns, want_columns) == 0);
}

TEST_CASE("arange and linspace give NumPy's values on the device", "[gpu][constructors]") {
  std::vector<std::int64_t> ints;
  for (std::int64_t v = 1000003; v > -3000000; v -= 7) ints.push_back(v);
  CHECK(bit_differences("arange(1000003, -3000000, -7)", evaluated(jet::arange(1000003, -3000000, -7)), ints) == 0);
  constexpr auto lowest = std::numeric_limits<std::int64_t>::min(), highest = std::numeric_limits<std::int64_t>::max();
  CHECK(bit_differences("arange(lowest, highest, highest)", evaluated(jet::arange(lowest, highest, highest)),
                        std::vector<std::int64_t>{lowest, -1, highest - 1}) == 0);

  CHECK(bit_differences("arange(-2.5, 1e5, 0.1)", evaluated(jet::arange(-2.5, 1e5, 0.1)),
                        numpy_arange(-2.5, 1e5, 0.1)) == 0);
  CHECK(bit_differences("arange(-0.0, 3, 1)", evaluated(jet::arange(-0.0, 3, 1)), numpy_arange(-0.0, 3, 1)) == 0);
  CHECK(bit_differences("arange(1, 1.3, 0.1)", evaluated(jet::arange(1, 1.3, 0.1)), numpy_arange(1, 1.3, 0.1)) == 0);

  CHECK(bit_differences("linspace(-3, 7, 1000003)", evaluated(jet::linspace(-3, 7, 1000003)),
                        numpy_linspace(-3, 7, 1000003, true)) == 0);
  CHECK(bit_differences("linspace(0, 0.9, 4)", evaluated(jet::linspace(0, 0.9, 4)), numpy_linspace(0, 0.9, 4, true)) ==
        0);
  CHECK(bit_differences("linspace(1, -1, 10, false)", evaluated(jet::linspace(1, -1, 10, false)),
                        numpy_linspace(1, -1, 10, false)) == 0);
  CHECK(bit_differences("linspace(5, 9, 1)", evaluated(jet::linspace(5, 9, 1)), numpy_linspace(5, 9, 1, true)) == 0);
  CHECK(bit_differences("linspace(0, 5e-324, 3)", evaluated(jet::linspace(0, 5e-324, 3)),
                        numpy_linspace(0, 5e-324, 3, true)) == 0);
  CHECK(evaluated(jet::linspace(0, 1, 0)).empty());
  CHECK(evaluated(jet::arange(0)).empty());
}

TEST_CASE("full keeps its value's bits: -0.0, NaN, infinities, extremes", "[gpu][constructors]") {
  const jet::shape s{37, 1000};
  auto filled = [&](auto value) { return std::vector<decltype(value)>(s.size(), value); };
  CHECK(bit_differences("full(-0.0f)", evaluated(jet::full(s, -0.0f)), filled(-0.0f)) == 0);
  CHECK(bit_differences("full(-0.0)", evaluated(jet::full(s, -0.0)), filled(-0.0)) == 0);
  CHECK(bit_differences("full(NaN)", evaluated(jet::full(s, std::nanf(""))), filled(std::nanf(""))) == 0);
  CHECK(bit_differences("full(-inf)", evaluated(jet::full(s, -INFINITY)), filled(-INFINITY)) == 0);
  CHECK(bit_differences("full(denormal)", evaluated(jet::full(s, 5e-324)), filled(5e-324)) == 0);
  const auto minus_zero16 = jet::float16(-0.0f);
  CHECK(bit_differences("full<float16>(-0.0)", evaluated(jet::full<jet::float16>(s, -0.0)), filled(minus_zero16)) == 0);
  CHECK(bit_differences("full<bfloat16>(3.5)", evaluated(jet::full<jet::bfloat16>(s, 3.5)),
                        filled(jet::bfloat16(3.5f))) == 0);
  CHECK(bit_differences("full<int8>(-128)", evaluated(jet::full<std::int8_t>(s, -128)), filled(std::int8_t{-128})) ==
        0);
  const auto most = std::numeric_limits<std::uint64_t>::max();
  CHECK(bit_differences("full(uint64 max)", evaluated(jet::full(s, most)), filled(most)) == 0);
  CHECK(bit_differences("full(true)", evaluated(jet::full(s, true)), filled(std::uint8_t{1})) == 0);
  CHECK(bit_differences("full({}, 2.5)", evaluated(jet::full(jet::shape{}, 2.5)), std::vector<double>{2.5}) == 0);
  CHECK(evaluated(jet::full({3, 0}, 1.f)).empty());
  jet::test::per_dtype([&](auto zero) {
    using T = decltype(zero);
    CHECK(bit_differences("zeros", evaluated(jet::zeros<T>({1001})), std::vector<readback_t<T>>(1001, T(0))) == 0);
    CHECK(bit_differences("ones", evaluated(jet::ones<T>({1001})), std::vector<readback_t<T>>(1001, T(1))) == 0);
    return 0;
  });
}

TEST_CASE("eye and iota on the device", "[gpu][constructors]") {
  const std::array<std::int64_t, 3> cases[] = {{5, 5, 0},      {1000, 1000, 0}, {64, 3000, 7},
                                               {3000, 64, -9}, {4, 4, 4},       {4, 4, -4}};
  for (const auto& [n, m, k] : cases) {
    std::vector<float> want(static_cast<std::size_t>(n * m));
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = 0; c < m; ++c) want[static_cast<std::size_t>(r * m + c)] = c - r == k ? 1.f : 0.f;
    CAPTURE(n, m, k);
    CHECK(bit_differences("eye<float>", evaluated(jet::eye<float>(n, m, k)), want) == 0);
  }
  for (const jet::shape& s : {jet::shape{37, 50, 300}, jet::shape{300, 2, 1, 700}, jet::shape{5}})
    for (int axis = 0; axis < s.rank(); ++axis) {
      CAPTURE(s.to_string(), axis);
      CHECK(bit_differences("iota", evaluated(jet::iota(s, axis)), index_along(s, axis)) == 0);
    }
}

TEST_CASE("constructors become arrays, fill views and reduce", "[gpu][constructors]") {
  const jet::array<float> z = jet::zeros<float>({3, 4});
  CHECK(z.shape() == jet::shape{3, 4});
  CHECK(z.to_host() == std::vector<float>(12, 0.f));
  const jet::array<std::int64_t> a = jet::arange(5);
  CHECK(a.to_host() == std::vector<std::int64_t>{0, 1, 2, 3, 4});

  // Into columns 2..7 of a poisoned (4, 10) array: the rest stays poisoned.
  jet::array<std::int64_t> backing = jet::test::poisoned_array<std::int64_t>({4, 10});
  jet::view<std::int64_t> window = backing.slice(1, 2, 8);
  window = jet::iota({4, 6}, 1) + 10 * jet::iota({4, 1}, 0);
  const std::vector<std::int64_t> got = backing.to_host();
  std::size_t bad = 0;
  for (std::int64_t r = 0; r < 4; ++r)
    for (std::int64_t c = 0; c < 10; ++c) {
      const std::int64_t want = c >= 2 && c < 8 ? (c - 2) + 10 * r : jet::test::poison<std::int64_t>();
      bad += got[static_cast<std::size_t>(r * 10 + c)] != want;
    }
  CHECK(bad == 0);

  const std::int64_t n = 3000001;
  CHECK(jet::sum(jet::arange(n)).item() == n * (n - 1) / 2);
  CHECK(jet::sum(jet::eye<float>(700, 900, 100)).item() == 700.f);
}

TEST_CASE("printing a device array or view writes its values, shape and dtype", "[gpu][print]") {
  const jet::array<float> a = jet::cast<float>(jet::arange(6)) * 0.5f;
  const jet::array<float> m = jet::from_host(std::vector<float>{0, 1, 2, 3, 4, 5}, jet::shape{2, 3});
  std::ostringstream out;
  out << a;
  CHECK(out.str() == "array([0. , 0.5, 1. , 1.5, 2. , 2.5], shape=(6,), dtype=float32)");
  CHECK(jet::to_string(m) == "array([[0., 1., 2.],\n       [3., 4., 5.]], shape=(2, 3), dtype=float32)");
  jet::array<float> mutable_m = m.clone();
  CHECK(jet::to_string(mutable_m.transpose()) ==
        "array([[0., 3.],\n       [1., 4.],\n       [2., 5.]], shape=(3, 2), dtype=float32)");
  const jet::array<bool> flags = jet::iota({3}, 0) == 1;
  CHECK(jet::to_string(flags) == "array([False,  True, False], shape=(3,), dtype=bool)");
  CHECK(jet::to_string(jet::array<double>()) == "array([], shape=(0,), dtype=float64)");
  // A large array is the host formatting of its copy.
  const jet::array<std::int32_t> big = jet::cast<std::int32_t>(jet::iota({30, 40, 50}, 2) - jet::iota({30, 40, 50}, 0));
  const std::vector<std::int32_t> host = big.to_host();
  CHECK(jet::to_string(big) == jet::detail::format_array(host.data(), jet::dtype::int32, big.shape()));
}
