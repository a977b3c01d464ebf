// jet's float64 normcdf and its j0, j1, y0 and y1 of large arguments (include/jet/ops.def), the
// very text that kernels carry, compiled on the host, with the host's libm where the device text
// calls CUDA's erfc, exp, sin and cos (each within a few ulps on both): the formulas hold the
// results to a few ulps where CUDA's own normcdf is 70 ulps off at x = -17 (fuzz cases in
// tests/README.md), and the Bessel functions to the accuracy of glibc's beyond 4096.
#include "support/catch.hpp"
#include "support/float64_device_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <random>

namespace {

// |got - exact| in ulps of the exact value's binade (subnormals' ulp below the normal range).
double error_ulps(double got, long double exact) {
  const int binade = std::max(std::ilogb(exact), std::numeric_limits<double>::min_exponent - 1);
  return double(std::fabs((static_cast<long double>(got) - exact) / std::ldexp(1.0L, binade - 52)));
}

}  // namespace

TEST_CASE("float64 normcdf: within 4 ulps down to the tail's underflow", "[cpu][math]") {
  std::mt19937_64 random(20261207);
  std::uniform_real_distribution<double> tail(-38.4, 8.0);
  double worst = 0, worst_x = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = i < 100 ? -(i % 39) : tail(random);  // the integers the fuzzer found, then any
    const long double exact = std::erfc(-static_cast<long double>(x) / std::numbers::sqrt2_v<long double>) / 2;
    const double e = error_ulps(device_text::jet_normcdf(x), exact);
    if (e > worst) worst = e, worst_x = x;
  }
  INFO("worst " << worst << " ulps at x = " << worst_x);
  CHECK(worst <= 4);  // erfc's own error (glibc's here, CUDA's 5 ulps there) and a rounding
  CHECK(device_text::jet_normcdf(-std::numeric_limits<double>::infinity()) == 0);
  CHECK(device_text::jet_normcdf(std::numeric_limits<double>::infinity()) == 1);
  CHECK(std::isnan(device_text::jet_normcdf(std::numeric_limits<double>::quiet_NaN())));
  CHECK(device_text::jet_normcdf(-50) == 0);
}

TEST_CASE("float64 j0, j1, y0, y1 from 4096 to 2^1023: within 4 ulps of the amplitude", "[cpu][math]") {
  // Against glibc's double functions, which reduce x exactly: long double's std::cyl_bessel_j
  // rounds its phase x - pi/4 to 64 bits, 1e-8 off at x = 1e12 and wholly at 1e19.
  std::mt19937_64 random(20261208);
  std::uniform_real_distribution<double> exponent(12.0, 1023.0);
  double worst = 0;
  for (int i = 0; i < 20000; ++i) {
    const double x = std::exp2(exponent(random));
    const double amplitude = std::sqrt(2 / std::numbers::pi / x);  // pi x overflows near 2^1023
    const double bound = 4 * std::numeric_limits<double>::epsilon() * amplitude;
    const double errors[] = {
        std::fabs(device_text::jet_bessel_j<0>(x) - ::j0(x)), std::fabs(device_text::jet_bessel_j<1>(x) - ::j1(x)),
        std::fabs(device_text::jet_bessel_j<1>(-x) - ::j1(-x)),  // odd
        std::fabs(device_text::jet_bessel_y<0>(x) - ::y0(x)), std::fabs(device_text::jet_bessel_y<1>(x) - ::y1(x))};
    for (double e : errors) worst = std::max(worst, e / bound);
  }
  INFO("worst error " << worst << " of the bound (4 ulps of the amplitude sqrt(2 / (pi x)))");
  CHECK(worst <= 1);
  CHECK(device_text::jet_bessel_j<0>(std::numeric_limits<double>::infinity()) == 0);
  // Below 4096: C's (CUDA's on the device). A volatile argument, as g++ may fold j0 of a constant
  // with MPFR (correctly rounded), which need not be glibc's run-time value.
  volatile double below = 4095.0;
  CHECK(device_text::jet_bessel_j<0>(below) == ::j0(below));
}
