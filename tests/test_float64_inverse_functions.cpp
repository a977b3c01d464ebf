// jet's float64 asin, acos, asinh, acosh and atanh (include/jet/ops.def: jet_asin ..), the very
// text that kernels carry, compiled on the host: with only correctly rounded operations in it (and
// no contraction here, as NVRTC's --fmad=false has none there) the host computes the device's
// bits. Held to 1 ulp over NumPy's data and over random arguments against long double, and to C's
// results at special values.
#include "support/catch.hpp"
#include "support/float64_device_text.hpp"
#include "support/numpy_accuracy.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace jet::test::numpy_data;

struct function {
  const char* numpy_name;
  double (*jet)(double);
  long double (*exact)(long double);
  double (*c)(double);
};
const function functions[] = {
    {"arcsin", device_text::jet_asin, [](long double x) { return std::asin(x); },
     [](double x) { return std::asin(x); }},
    {"arccos", device_text::jet_acos, [](long double x) { return std::acos(x); },
     [](double x) { return std::acos(x); }},
    {"arcsinh", device_text::jet_asinh, [](long double x) { return std::asinh(x); },
     [](double x) { return std::asinh(x); }},
    {"arccosh", device_text::jet_acosh, [](long double x) { return std::acosh(x); },
     [](double x) { return std::acosh(x); }},
    {"arctanh", device_text::jet_atanh, [](long double x) { return std::atanh(x); },
     [](double x) { return std::atanh(x); }},
};

/// |got - exact| in ulps of the exact value's binade (subnormals' ulp below the normal range).
double error_ulps(double got, long double exact) {
  const int binade = std::max(std::ilogb(exact), std::numeric_limits<double>::min_exponent - 1);
  return double(std::fabs((static_cast<long double>(got) - exact) / std::ldexp(1.0L, binade - 52)));
}

/// Arguments spread over the function's domain: uniform, log-uniform in magnitude from the
/// smallest subnormal up, close to ±1 (1 for acosh), and the functions' other branches: |x| in
/// [1/2, 1) for asin, acos and atanh, [1, 2^1024) for asinh and acosh.
std::vector<double> random_arguments(const char* name, std::size_t count) {
  std::mt19937_64 random(20261204);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), exponent(-1074.0, 0.0);
  const bool bounded =
      std::string_view(name) == "arcsin" || std::string_view(name) == "arccos" || std::string_view(name) == "arctanh";
  const bool above_one = std::string_view(name) == "arccosh";
  std::vector<double> x;
  for (std::size_t i = 0; i < count; ++i) {
    const double u = unit(random), sign = u < 0 ? -1.0 : 1.0;
    const double tiny = std::exp2(exponent(random));       // (2^-1074, 1]
    const double near = std::exp2(exponent(random) / 20);  // (2^-53.7, 1]: 1 ± near is not 1
    double v = 0;
    switch (i % 4) {
      case 0: v = bounded ? u : 8 * u; break;
      case 1: v = sign * tiny; break;
      case 2: v = sign * (1.0 - near); break;
      case 3: v = bounded ? 0.5 * (u + sign) : sign * std::exp2(std::fabs(u) * 1024.0); break;
    }
    if (bounded) v = std::clamp(v, -1.0, 1.0);
    if (above_one) v = i % 4 == 3 ? std::fabs(v) : 1.0 + (i % 4 == 1 ? near : std::fabs(8 * u));
    if (std::isfinite(v)) x.push_back(v);
  }
  return x;
}

}  // namespace

TEST_CASE("float64 inverse functions: jet's device code within NumPy's ulp tolerances on NumPy's data",
          "[cpu][math][numpy]") {
  for (const function& f : functions) {
    INFO(f.numpy_name);
    const rows r = read(f.numpy_name).float64;
    REQUIRE(r.input.size() > 100);
    std::vector<double> got;
    double worst = 0;
    for (const std::uint64_t bits : r.input) {
      got.push_back(f.jet(from_bits<double>(bits)));
      worst = std::max(worst, ulp_distance(got.back(), from_bits<double>(r.expected[got.size() - 1])));
    }
    std::printf("%s float64, NumPy's %zu rows: at most %g ulp from NumPy's correctly rounded results\n", f.numpy_name,
                r.input.size(), worst);
    CHECK(r.max_ulps == 1);
    CHECK(count_failures<double>(f.numpy_name, r, got) == 0);
  }
}

TEST_CASE("float64 inverse functions: jet's device code within 1 ulp of long double on random arguments",
          "[cpu][math]") {
  for (const function& f : functions) {
    INFO(f.numpy_name);
    double worst = 0, worst_at = 0;
    std::size_t incorrectly_rounded = 0;
    const std::vector<double> x = random_arguments(f.numpy_name, 1'000'000);
    for (const double v : x) {
      const long double exact = f.exact(v);
      const double got = f.jet(v);
      if (std::isinf(exact)) {  // atanh(±1)
        CHECK(got == static_cast<double>(exact));
        continue;
      }
      if (got != static_cast<double>(exact)) ++incorrectly_rounded;
      const double e = error_ulps(got, exact);
      if (!(e <= worst)) worst = e, worst_at = v;
    }
    std::printf("%s float64, %zu random arguments: at most %.4f ulp (at %a), %zu not correctly rounded\n", f.numpy_name,
                x.size(), worst, worst_at, incorrectly_rounded);
    INFO("worst at " << worst_at);
    CHECK(worst < 1);
  }
}

TEST_CASE("float64 inverse functions: jet's device code as C at special values", "[cpu][math]") {
  constexpr double inf = std::numeric_limits<double>::infinity(), max = std::numeric_limits<double>::max();
  constexpr double denormal = std::numeric_limits<double>::denorm_min(), smallest = std::numeric_limits<double>::min();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> special = {
      0.0, denormal, smallest, 0x1p-28, 0x1p-26, 0x1p28, 0x1p30, 0.17, 0.5, 0.70710678118654752,
      1.0, 2.0,      max,      inf,     nan,     1e300,  1e-300};
  for (const double v : std::vector<double>(special)) {
    special.push_back(std::nextafter(v, 0.0));
    special.push_back(std::nextafter(v, inf));
  }
  for (const double v : std::vector<double>(special)) special.push_back(-v);
  for (const function& f : functions)
    for (const double v : special) {
      INFO(f.numpy_name << "(" << v << ")");
      const double got = f.jet(v), want = f.c(v);
      CHECK(std::isnan(got) == std::isnan(want));
      if (std::isnan(want)) continue;
      CHECK(std::signbit(got) == std::signbit(want));
      CHECK(std::isinf(got) == std::isinf(want));
      CHECK(ulp_distance(got, want) <= 1);
      if (std::isfinite(want)) CHECK(error_ulps(got, f.exact(v)) < 1);
    }
}
