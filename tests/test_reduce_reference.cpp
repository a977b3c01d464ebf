// The GPU reduction tests' judgement (support/reduce_reference.hpp) with no GPU: a correctly
// rounded result is accepted wherever it falls (subnormal results included), and one a few units
// off is refused.
#include "support/catch.hpp"
#include "support/reduce_reference.hpp"
#include "support/reference.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using jet::detail::reduction_id;
using jet::test::host_reduction;
using jet::test::judge;

// T's value k units of its last place above v (a 16-bit float stepped through its bits).
template <class T> T step_up(T v, int k) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    for (int i = 0; i < k; ++i) v = std::nextafter(v, std::numeric_limits<T>::infinity());
    return v;
  } else {
    return T::from_bits(static_cast<std::uint16_t>(v < T(0.0f) ? v.bits - k : v.bits + k));
  }
}

template <class T> void check_rounding_is_accepted() {
  INFO(jet::name(jet::dtype_of<T>()));
  std::mt19937_64 engine(20261203);
  const int lowest_exponent = std::ilogb(jet::test::widen(std::numeric_limits<T>::denorm_min())) - 2;
  std::uniform_int_distribution<int> exponent(lowest_exponent, 4);
  for (int k = 0; k < 20000; ++k) {
    const long double exact =
        std::ldexp(std::uniform_real_distribution<long double>(1, 2)(engine), exponent(engine)) * (k % 2 ? -1 : 1);
    const T rounded = static_cast<T>(static_cast<double>(exact));
    const host_reduction<double> ref{exact, 0};
    const auto verdict = judge(rounded, ref, 1, reduction_id::sum);
    INFO(verdict.text);
    REQUIRE(verdict.ok);
    // Three units of the last place off is more than any rounding: refused, unless the value is
    // zero or so small that three subnormal steps stay within the bound's doubled unit.
    if (rounded != T(0.0f) &&
        std::fabs(exact) > 4 * static_cast<long double>(jet::test::widen(std::numeric_limits<T>::min())))
      REQUIRE_FALSE(judge(step_up(rounded, 3), ref, 1, reduction_id::sum).ok);
  }
}

}  // namespace

TEST_CASE("the reduction tests accept every correctly rounded result and refuse one 3 units off",
          "[cpu][reduce][reference]") {
  check_rounding_is_accepted<double>();
  check_rounding_is_accepted<float>();
  check_rounding_is_accepted<jet::float16>();
  check_rounding_is_accepted<jet::bfloat16>();
}

// The mean that failed on the H200 at 7dc9c57 (run seed 3455225326; the values of
// test_gpu_reduce.cpp's check_all_elements): 1.58e-5 is subnormal in float16, and the correctly
// rounded result, 2.1e-8 from the mean, was refused by a relative bound of 1.5e-8.
TEST_CASE("a float16 mean that is subnormal in float16 is judged by its absolute rounding",
          "[cpu][reduce][reference]") {
  const std::size_t n = (std::size_t{1} << 20) + 3;
  const std::uint64_t seed = 3455225326u + n * 131 + static_cast<int>(reduction_id::mean);
  const std::vector<jet::float16> host = jet::test::random_vector<jet::float16>(n, -2, 2, seed);
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(host[i]);
  const auto ref = jet::test::host_reduce(reduction_id::mean, values);
  REQUIRE(std::fabs(ref.value) < static_cast<float>(std::numeric_limits<jet::float16>::min()));
  const auto verdict = judge(jet::float16(static_cast<float>(ref.value)), ref, n, reduction_id::mean);
  INFO(verdict.text);
  CHECK(verdict.ok);
}

TEST_CASE("the arg reductions' host reference: the first best index, the first NaN's, -0 equal to +0",
          "[cpu][reduce][reference]") {
  const double nan = std::nan("");
  const auto index_of = [](reduction_id r, const std::vector<double>& values) {
    return static_cast<std::int64_t>(jet::test::host_reduce(r, values).value);
  };
  CHECK(index_of(reduction_id::argmax, {1, 3, 2, 3}) == 1);
  CHECK(index_of(reduction_id::argmin, {4, 1, 2, 1, 1}) == 1);
  CHECK(index_of(reduction_id::argmax, {1, nan, 7, nan}) == 1);
  CHECK(index_of(reduction_id::argmin, {-INFINITY, 1, nan}) == 2);
  CHECK(index_of(reduction_id::argmax, {-INFINITY, -INFINITY}) == 0);
  CHECK(index_of(reduction_id::argmax, {0.0, -0.0, 0.0}) == 0);
  CHECK(index_of(reduction_id::argmin, {0.0, -0.0}) == 0);
  const std::vector<std::int64_t> extremes = {INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX};
  CHECK(jet::test::host_reduce(reduction_id::argmax, extremes).value == 1);
  CHECK(jet::test::host_reduce(reduction_id::argmin, extremes).value == 0);
}
