// On the GPU: reductions kept as operands (jet::sum(x, axis, jet::keepdims)) inside expressions,
// and the compositions of include/jet/compositions.hpp, against host references in long double
// written from PyTorch's and SciPy's definitions: along every axis of N-D arrays and of strided
// views, rows from 1 element to longer than a multiprocessor's shared memory, float32, float64 and
// bfloat16, with the special values; each output poisoned first.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using jet::test::close;
using jet::test::fresh_seed;
using jet::test::random_vector;

namespace {

using real = long double;
using row_function = std::function<std::vector<real>(const std::vector<real>&)>;

// f of every row of `values` (C order, shape s) along `axis`, its results put where the row was.
std::vector<real> along_rows(const std::vector<real>& values, const jet::shape& s, int axis, const row_function& f) {
  const int along = axis < 0 ? axis + s.rank() : axis;
  std::int64_t inner = 1;
  for (int d = along + 1; d < s.rank(); ++d) inner *= s[d];
  const std::int64_t length = s[along],
                     outer = static_cast<std::int64_t>(values.size()) / std::max<std::int64_t>(length * inner, 1);
  std::vector<real> out(values.size());
  std::vector<real> row(static_cast<std::size_t>(length));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      const std::int64_t base = o * length * inner + i;
      for (std::int64_t j = 0; j < length; ++j) row[j] = values[base + j * inner];
      const std::vector<real> result = f(row);
      for (std::int64_t j = 0; j < length; ++j) out[base + j * inner] = result[j];
    }
  return out;
}

bool any_nan(const std::vector<real>& row) {
  return std::any_of(row.begin(), row.end(), [](real v) { return std::isnan(v); });
}
real greatest(const std::vector<real>& row) {
  if (any_nan(row)) return NAN;
  return *std::max_element(row.begin(), row.end());
}
real row_mean(const std::vector<real>& row) {
  real total = 0;
  for (real v : row) total += v;
  return total / row.size();
}
real row_variance(const std::vector<real>& row) {
  const real m = row_mean(row);
  real total = 0;
  for (real v : row) total += (v - m) * (v - m);
  return total / row.size();
}

// The definitions, row by row.
std::vector<real> softmax_row(const std::vector<real>& row) {
  const real m = greatest(row);
  std::vector<real> e(row.size());
  real total = 0;
  for (std::size_t j = 0; j < row.size(); ++j) total += e[j] = std::exp(row[j] - m);
  for (real& v : e) v /= total;
  return e;
}
std::vector<real> log_softmax_row(const std::vector<real>& row) {
  const real m = greatest(row);
  real total = 0;
  for (real v : row) total += std::exp(v - m);
  std::vector<real> out(row.size());
  for (std::size_t j = 0; j < row.size(); ++j) out[j] = row[j] - m - std::log(total);
  return out;
}
std::vector<real> logsumexp_row(const std::vector<real>& row) {  // SciPy's, one value repeated
  real m = greatest(row);
  if (!std::isfinite(m)) m = 0;
  real total = 0;
  for (real v : row) total += std::exp(v - m);
  return std::vector<real>(row.size(), m + std::log(total));
}
std::vector<real> standardize_row(const std::vector<real>& row) {
  const real m = row_mean(row), sd = std::sqrt(row_variance(row));
  std::vector<real> out(row.size());
  for (std::size_t j = 0; j < row.size(); ++j) out[j] = (row[j] - m) / sd;
  return out;
}
std::vector<real> normalize_row(const std::vector<real>& row) {
  real squares = 0;
  for (real v : row) squares += v * v;
  const real norm = std::sqrt(squares), divisor = std::isnan(norm) ? norm : std::max(norm, real(1e-12));
  std::vector<real> out(row.size());
  for (std::size_t j = 0; j < row.size(); ++j) out[j] = row[j] / divisor;
  return out;
}

template <class T> std::vector<real> widen(const std::vector<T>& v) {
  std::vector<real> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<real>(static_cast<double>(static_cast<float>(v[i])));
  if constexpr (std::is_same_v<T, double>)
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i];
  return out;
}

// The relative tolerance of a composition's result in T: a few roundings of its steps (float32
// math within a few ulp), or the final rounding of a 16-bit result.
template <class T> double composition_rtol() {
  if constexpr (std::is_same_v<T, double>)
    return 1e-12;
  else if constexpr (std::is_same_v<T, float>)
    return 2e-5;
  else
    return 2 * static_cast<double>(static_cast<float>(std::numeric_limits<T>::epsilon()));
}

// Evaluates e (of shape s) into a poisoned array and compares each element with `expected`
// within rtol relative and atol[i] absolute.
template <class T, class E> void check_elements(const E& e, const jet::shape& s, const std::vector<real>& expected,
                                                double rtol, const std::vector<real>& atol) {
  std::vector<T> poisoned(s.size(), static_cast<T>(-7777.0f));
  jet::array<T> out = jet::from_host(poisoned, s);
  out = e;
  REQUIRE(out.shape() == s);
  const std::vector<T> got = out.to_host();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const real g =
        std::is_same_v<T, double> ? static_cast<real>(got[i]) : static_cast<real>(static_cast<float>(got[i]));
    const real want = jet::test::stored_as<T>(expected[i]);
    if (!close(g, want, rtol, static_cast<double>(atol[i])) && wrong++ < 4)
      FAIL_CHECK("element " << i << ": got " << static_cast<double>(g) << ", expected " << static_cast<double>(want)
                            << ", bound " << static_cast<double>(atol[i] + rtol * std::fabs(want)));
  }
  CHECK(wrong == 0);
}
template <class T, class E>
void check_elements(const E& e, const jet::shape& s, const std::vector<real>& expected, double rtol, double atol) {
  check_elements<T>(e, s, expected, rtol, std::vector<real>(expected.size(), atol));
}

// Every composition of x (values `h`) along `axis`, and a kept reduction in a plain expression.
template <class T> void check_compositions(const jet::view<T>& x, const std::vector<real>& h, int axis) {
  const jet::shape& s = x.shape();
  const double rtol = composition_rtol<T>();
  INFO("shape " << s.to_string() << " along axis " << axis << " in " << jet::name(jet::dtype_of<T>()));
  {
    INFO("softmax");
    check_elements<T>(jet::softmax(x, axis), s, along_rows(h, s, axis, softmax_row), rtol, 1e-30);
  }
  {
    INFO("log_softmax");  // a difference: absolute error of the row's logarithm's size
    check_elements<T>(jet::log_softmax(x, axis), s, along_rows(h, s, axis, log_softmax_row), rtol, rtol);
  }
  {
    INFO("logsumexp");
    check_elements<T>(jet::logsumexp(x, axis, jet::keepdims) + jet::zeros<T>(s), s,
                      along_rows(h, s, axis, logsumexp_row), rtol, rtol);
  }
  {
    INFO("standardize");
    // x - mean loses the digits of the mean's rounding to T: relative to the result, those of
    // (|x| + |mean|) / std, large where a row's spread is small against its mean.
    const row_function conditioning = [&](const std::vector<real>& row) {
      const real m = row_mean(row), sd = std::sqrt(row_variance(row));
      std::vector<real> bound(row.size());
      for (std::size_t j = 0; j < row.size(); ++j) bound[j] = 8 * rtol * (1 + (std::fabs(row[j]) + std::fabs(m)) / sd);
      return bound;
    };
    check_elements<T>(jet::standardize(x, axis), s, along_rows(h, s, axis, standardize_row), 4 * rtol,
                      along_rows(h, s, axis, conditioning));
  }
  {
    INFO("normalize");
    check_elements<T>(jet::normalize(x, axis), s, along_rows(h, s, axis, normalize_row), rtol, 1e-30);
  }
  {
    INFO("x - max(x, axis, keepdims) + mean(x, axis, keepdims)");
    const row_function shifted = [](const std::vector<real>& row) {
      std::vector<real> out(row.size());
      for (std::size_t j = 0; j < row.size(); ++j) out[j] = row[j] - greatest(row) + row_mean(row);
      return out;
    };
    check_elements<T>(x - jet::max(x, jet::axis{axis}, jet::keepdims) + jet::mean(x, axis, jet::keepdims), s,
                      along_rows(h, s, axis, shifted), rtol, 8 * rtol);
  }
}

template <class T> void check_random(const jet::shape& s, std::uint64_t salt) {
  const std::vector<T> values = random_vector<T>(s.size(), -4, 4, fresh_seed() + salt);
  jet::array<T> x = jet::from_host(values, s);
  const std::vector<real> h = widen(values);
  for (int axis = 0; axis < s.rank(); ++axis) check_compositions<T>(x.view(), h, axis);
  check_compositions<T>(x.view(), h, -1);
}

}  // namespace

TEST_CASE("compositions along every axis, rows of 1 element to longer than shared memory", "[gpu][compositions]") {
  for (const jet::shape& s : {jet::shape{7, 1}, jet::shape{1, 7}, jet::shape{33, 1000}, jet::shape{5, 4097},
                              jet::shape{2, 65539}, jet::shape{3, 5, 7}, jet::shape{4, 3, 2, 9}})
    check_random<float>(s, s.size());
  check_random<double>(jet::shape{17, 513}, 1);
  check_random<double>(jet::shape{2, 3, 70000}, 2);
  check_random<jet::bfloat16>(jet::shape{9, 4096}, 3);
  check_random<jet::float16>(jet::shape{3, 1025}, 4);
}

TEST_CASE("compositions of strided views: transposed, reversed and sliced", "[gpu][compositions]") {
  const jet::shape s{40, 300};
  const std::vector<float> values = random_vector<float>(s.size(), -3, 3, fresh_seed() + 5);
  jet::array<float> x = jet::from_host(values, s);
  const std::vector<real> h = widen(values);
  // the transpose's values in C order of its own shape
  std::vector<real> t(h.size());
  for (std::int64_t i = 0; i < 300; ++i)
    for (std::int64_t j = 0; j < 40; ++j) t[i * 40 + j] = h[j * 300 + i];
  check_compositions<float>(x.transpose(), t, 0);
  check_compositions<float>(x.transpose(), t, 1);
  std::vector<real> r;  // rows reversed, every other column
  for (std::int64_t i = 39; i >= 0; --i)
    for (std::int64_t j = 0; j < 300; j += 2) r.push_back(h[i * 300 + j]);
  check_compositions<float>(x.slice(0, -1, INT64_MIN, -1).slice(1, 0, INT64_MAX, 2), r, 1);
}

TEST_CASE("compositions of rows holding the special values", "[gpu][compositions]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> values = {
      1,     2,      3,      -inf,     // an -inf element: exp gives 0 there
      -inf,  -inf,   -inf,   -inf,     // all -inf: softmax NaN, logsumexp -inf
      1,     inf,    2,      3,        // +inf: softmax NaN, logsumexp +inf
      1,     nan,    2,      3,        // NaN: NaN throughout
      -0.0f, 0.0f,   -0.0f,  0.0f,     // equal zeros: standardize 0/0
      88,    89,     1e-40f, -1e-40f,  // near exp's overflow, denormals
      1e19f, -1e19f, 1e-38f, 2,        // squares past float32's range, summed in float64
  };
  const jet::shape s{7, 4};
  jet::array<float> x = jet::from_host(values, s);
  check_compositions<float>(x.view(), widen(values), 1);
}

TEST_CASE("layer_norm and rms_norm against torch.nn.functional's definitions", "[gpu][compositions]") {
  for (const jet::shape& s : {jet::shape{64, 768}, jet::shape{3, 4, 4099}, jet::shape{5, 1}}) {
    const std::int64_t n = s[s.rank() - 1];
    const std::vector<float> values = random_vector<float>(s.size(), -3, 3, fresh_seed() + 6 + n),
                             weight = random_vector<float>(n, -2, 2, fresh_seed() + 7),
                             bias = random_vector<float>(n, -1, 1, fresh_seed() + 8);
    jet::array<float> x = jet::from_host(values, s), w = jet::from_host(weight), b = jet::from_host(bias);
    const std::vector<real> h = widen(values);
    INFO("shape " << s.to_string());
    const row_function layer = [&](const std::vector<real>& row) {
      const real m = row_mean(row), d = std::sqrt(row_variance(row) + 1e-5L);
      std::vector<real> out(row.size());
      for (std::size_t j = 0; j < row.size(); ++j) out[j] = (row[j] - m) / d * weight[j] + bias[j];
      return out;
    };
    const row_function rms = [&](const std::vector<real>& row) {
      real squares = 0;
      for (real v : row) squares += v * v;
      const real d = std::sqrt(squares / row.size() + 1e-6L);
      std::vector<real> out(row.size());
      for (std::size_t j = 0; j < row.size(); ++j) out[j] = row[j] / d * weight[j];
      return out;
    };
    check_elements<float>(jet::layer_norm(x, w, b), s, along_rows(h, s, -1, layer), 4e-5, 4e-5);
    check_elements<float>(jet::rms_norm(x, w), s, along_rows(h, s, -1, rms), 4e-5, 4e-5);
  }
}

TEST_CASE("a kept reduction is one more launch, and its copies stay apart", "[gpu][compositions]") {
  const std::vector<float> values = random_vector<float>(4096, -2, 2, fresh_seed() + 9);
  const jet::array<float> x = jet::from_host(values, jet::shape{64, 64});
  jet::array<float> y(jet::shape{64, 64});
  y = x - jet::max(x, jet::axis{1}, jet::keepdims);  // compiled
  const auto before = jet::stats().launches;
  y = x - jet::max(x, jet::axis{1}, jet::keepdims);
  CHECK(jet::stats().launches - before == 2);
  // One expression object evaluated twice, its operand changed between: the second reads anew.
  jet::array<float> z = jet::from_host(values, jet::shape{64, 64});
  const auto shifted = z - jet::sum(z, 1, jet::keepdims);
  y = shifted;
  z = z * 2.0f;
  y = shifted;
  const std::vector<float> got = y.to_host();
  for (std::size_t r = 0; r < 64; ++r) {
    real total = 0;
    for (std::size_t c = 0; c < 64; ++c) total += 2.0L * values[r * 64 + c];
    CHECK(close(got[r * 64], 2.0L * values[r * 64] - total, 1e-5, 1e-4));
  }
  CHECK_THROWS_AS(y = x - jet::max(x, jet::axis{2}, jet::keepdims), jet::invalid_argument);
}
