// The op table's math functions and the activations, without a GPU: the host references against
// values known from elsewhere (tables, identities), the dtypes the ops give, the interpreter's
// calls of long functions, and each activation as one kernel computing its operand's work once.
#include "support/catch.hpp"
#include "support/operands.hpp"
#include "support/planned.hpp"

#include "interpreter/source.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
const double quiet_nan = std::numeric_limits<double>::quiet_NaN();

// Code that uses both namespaces still names std's function objects: jet has no function named
// less, greater, less_equal or greater_equal (README, "Ops").
namespace both_namespaces {
using namespace std;
using namespace jet;
bool ordered(int a, int b) { return less<int>()(a, b) && less_equal<>()(a, b) && !greater<int>()(a, b); }
}  // namespace both_namespaces

bool near(double got, double want, double relative = 1e-15) {
  return std::fabs(got - want) <= relative * std::fabs(want);
}

}  // namespace

TEST_CASE("math references: inverse error functions against tabulated values", "[cpu][math]") {
  using jet::host::erfcinv;
  using jet::host::erfinv;
  // Values from the defining integrals (Abramowitz and Stegun 7.1; DLMF 7.17), to 17 digits.
  CHECK(near(erfinv(0.5), 0.47693627620446987338));
  CHECK(near(erfinv(-0.9), -1.1630871536766740867));
  CHECK(near(erfinv(1e-20), 8.8622692545275801365e-21));
  CHECK(near(erfcinv(1e-20), 6.6015806223551425, 1e-14));
  CHECK(near(erfcinv(1.5), -0.47693627620446987338));
  CHECK(erfinv(1.0) == inf);
  CHECK(erfinv(-1.0) == -inf);
  CHECK(std::isnan(erfinv(1.5)));
  CHECK(erfcinv(0.0) == inf);
  CHECK(erfcinv(2.0) == -inf);
  CHECK(std::isnan(erfcinv(-0.5)));
  CHECK(std::isnan(erfcinv(quiet_nan)));
  for (double y : {1e-300, 1e-10, 0.01, 0.3, 0.999}) CHECK(near(std::erfc(erfcinv(y)), y, 1e-14));
}

TEST_CASE("math references: erfcx, sinpi, cospi, logaddexp at their edges", "[cpu][math]") {
  using namespace jet::host;
  CHECK(near(erfcx(1.0), 0.42758357615580700442));
  CHECK(near(erfcx(100.0), 0.0056416137829894329, 1e-14));  // 1/(x√π)·(1 - 1/(2x²) + ...)
  CHECK(erfcx(-30.0) == inf);
  CHECK(sinpi(1.0) == 0);
  CHECK(sinpi(-2.0) == 0);
  CHECK(cospi(0.5) == 0);
  CHECK(cospi(1e300) == 1);
  CHECK(near(sinpi(0.25), std::sqrt(0.5)));
  CHECK(near(sinpi(1.0 - 0x1p-40), std::sin(0x1p-40 * 3.14159265358979323846), 1e-15));
  CHECK(std::isnan(sinpi(inf)));
  CHECK(logaddexp(-inf, -inf) == -inf);
  CHECK(logaddexp(inf, inf) == inf);
  CHECK(logaddexp(inf, -inf) == inf);
  CHECK(std::isnan(logaddexp(quiet_nan, 1.0)));
  CHECK(near(logaddexp(1000.0, 1000.0), 1000.6931471805599453));
  CHECK(near(logaddexp2(3.0, 3.0), 4.0));
  CHECK(near(logaddexp(0.0, -40.0), 4.2483542552915889e-18, 1e-14));
}

TEST_CASE("math references: Bessel functions by parity, at 0 and past overflow", "[cpu][math]") {
  using namespace jet::host;
  CHECK(near(bessel_j(0, 1.0), 0.76519768655796655145, 1e-14));
  CHECK(near(bessel_j(1, -1.0), -0.44005058574493351596, 1e-14));
  CHECK(near(bessel_y(0, 1.0), 0.088256964215676957983, 1e-13));
  CHECK(bessel_y(1, 0.0) == -inf);
  CHECK(std::isnan(bessel_y(0, -1.0)));
  CHECK(near(bessel_i(1, -2.0), -1.5906368546373290634, 1e-14));
  CHECK(near(bessel_i(0, 705.0), bessel_i(0, 699.0) * std::exp(6.0) * std::sqrt(699.0 / 705.0), 1e-4));
  CHECK(bessel_i(0, 720.0) == inf);
  CHECK(bessel_i(0, inf) == inf);  // once e^inf / √inf, NaN (fuzz case 9185401816950936881)
  CHECK(bessel_i(0, -inf) == inf);
  CHECK(bessel_i(1, inf) == inf);
  CHECK(bessel_i(1, -inf) == -inf);
  CHECK(bessel_i(1, -std::numeric_limits<float>::infinity()) == -std::numeric_limits<float>::infinity());
  CHECK(bessel_j(0, inf) == 0);
}

TEST_CASE("math references: heaviside, xlogy, ldexp as NumPy and SciPy define them", "[cpu][math]") {
  using namespace jet::host;
  CHECK(heaviside(-0.0, 0.5) == 0.5);
  CHECK(heaviside(-2.0, 0.5) == 0);
  CHECK(heaviside(inf, 0.5) == 1);
  CHECK(std::isnan(heaviside(quiet_nan, 0.5)));
  CHECK(xlogy(0.0, 0.0) == 0);
  CHECK(std::isnan(xlogy(0.0, quiet_nan)));
  CHECK(xlogy(2.0, 0.0) == -inf);
  CHECK(ldexp(3.0, 2.7) == 12);
  CHECK(ldexp(1.0, 1e10) == inf);
  CHECK(ldexp(1.0, -1e10) == 0);
  CHECK(std::isnan(ldexp(1.0, quiet_nan)));
}

TEST_CASE("math references: spacing, nextafter and frexp in the operand's own precision", "[cpu][math]") {
  using namespace jet::host;
  using F = std::numeric_limits<float>;
  using D = std::numeric_limits<double>;
  CHECK(spacing(1.0f) == 0x1p-23f);
  CHECK(spacing(-1.0) == -0x1p-52);
  CHECK(spacing(0.75f) == 0x1p-24f);
  CHECK(spacing(0x1p-126f) == F::denorm_min());  // the smallest normal and every subnormal
  CHECK(spacing(F::denorm_min()) == F::denorm_min());
  CHECK(spacing(-0.0) == -D::denorm_min());
  CHECK(spacing(0.0f) == F::denorm_min());
  CHECK(spacing(D::max()) == inf);
  CHECK(spacing(F::lowest()) == -F::infinity());
  CHECK(std::isnan(spacing(inf)));
  CHECK(std::isnan(spacing(quiet_nan)));
  for (const double x : {1.0, 3.0, -7.5, 1e300, 5e-324, 2.2250738585072014e-308})  // NumPy's definition
    CHECK(spacing(x) == std::nextafter(x, std::copysign(inf, x)) - x);
  CHECK(frexp_parts(8.0).mantissa == 0.5);
  CHECK(frexp_parts(8.0).exponent == 4);
  CHECK(frexp_parts(-0.75f).mantissa == -0.75f);
  CHECK(frexp_parts(-0.75f).exponent == 0);
  CHECK(frexp_parts(D::denorm_min()).mantissa == 0.5);
  CHECK(frexp_parts(D::denorm_min()).exponent == -1073);
  CHECK(frexp_parts(-inf).mantissa == -inf);
  CHECK(frexp_parts(-inf).exponent == 0);
  CHECK(std::signbit(frexp_parts(-0.0).mantissa));
  CHECK(jet::ops::nextafter::reference(1.0f, 2.0f) == 1.0f + 0x1p-23f);
  CHECK(jet::ops::float_power::reference(2.0, 0.5) == std::sqrt(2.0));
}

TEST_CASE("math ops give NumPy's dtypes", "[cpu][math][dtype]") {
  const auto f = jet::test::fake_view<float>();
  const auto h = jet::test::fake_view<jet::float16>();
  const auto i = jet::test::fake_view<std::int32_t>();
  const auto b = jet::test::fake_view<bool>();
  STATIC_REQUIRE(decltype(jet::erf(f))::type == jet::dtype::float32);
  STATIC_REQUIRE(decltype(jet::lgamma(h))::type == jet::dtype::float16);
  STATIC_REQUIRE(decltype(jet::exp2(i))::type == jet::dtype::float64);  // integers compute in float64
  STATIC_REQUIRE(decltype(jet::atan2(f, 2.0))::type == jet::dtype::float32);
  STATIC_REQUIRE(decltype(jet::floor(i))::type == jet::dtype::int32);  // an integer is its own floor
  STATIC_REQUIRE(decltype(jet::round(h))::type == jet::dtype::float16);
  STATIC_REQUIRE(decltype(jet::isnan(f))::type == jet::dtype::boolean);
  STATIC_REQUIRE(decltype(jet::signbit(i))::type == jet::dtype::boolean);
  STATIC_REQUIRE(decltype(jet::isfinite(b))::type == jet::dtype::boolean);
  STATIC_REQUIRE(decltype(jet::gelu(f))::type == jet::dtype::float32);
  STATIC_REQUIRE(decltype(jet::softplus(h, 2.0, 10.0))::type == jet::dtype::float16);
  STATIC_REQUIRE(decltype(jet::elu(i))::type == jet::dtype::float64);
  STATIC_REQUIRE(decltype(jet::float_power(f, f))::type == jet::dtype::float64);  // at least float64
  STATIC_REQUIRE(decltype(jet::float_power(i, 2))::type == jet::dtype::float64);
  STATIC_REQUIRE(decltype(jet::nextafter(f, 1.0))::type == jet::dtype::float32);
  STATIC_REQUIRE(decltype(jet::spacing(i))::type == jet::dtype::float64);
  STATIC_REQUIRE(decltype(jet::frexp_exponent(h))::type == jet::dtype::float16);
  STATIC_REQUIRE(decltype(jet::divide(i, i))::type == jet::dtype::float64);  // NumPy's divide
  STATIC_REQUIRE(decltype(jet::arctan2(f, f))::type == jet::dtype::float32);
  STATIC_REQUIRE(decltype(jet::invert(b))::type == jet::dtype::boolean);
  STATIC_REQUIRE(decltype(jet::not_equal(i, 2))::type == jet::dtype::boolean);
  // nextafter and spacing step by their dtype's own ulps: no 16-bit floats (README).
  STATIC_REQUIRE(!jet::detail::accepts(jet::ops::spacing::domain, jet::dtype::float16));
  STATIC_REQUIRE(!jet::detail::accepts(jet::ops::nextafter::domain, jet::dtype::bfloat16));
}

TEST_CASE("NumPy's names build the table's nodes; divmod is one kernel of two outputs", "[cpu][math]") {
  const auto x = jet::test::fake_view<float>(8, 0x10000), y = jet::test::fake_view<float>(8, 0x20000);
  STATIC_REQUIRE(std::is_same_v<decltype(jet::add(x, y)), decltype(x + y)>);
  STATIC_REQUIRE(std::is_same_v<decltype(jet::negative(x)), decltype(-x)>);
  STATIC_REQUIRE(std::is_same_v<decltype(jet::arcsinh(x)), decltype(jet::asinh(x))>);
  STATIC_REQUIRE(std::is_same_v<decltype(jet::equal(x, y)), decltype(x == y)>);
  CHECK(both_namespaces::ordered(1, 2));
  const auto q = jet::test::fake_view<float>(8, 0x90000), r = jet::test::fake_view<float>(8, 0xa0000);
  // One program writes both outputs, each op once.
  const jet::detail::encoding e = jet::test::planned_encoding_of(jet::divmod(x, y), q, r);
  CHECK(e.reason.empty());
  CHECK(e.output_count == 2);
  CHECK(jet::test::op_instructions(e, jet::detail::op_id::floor_divide) == 1);
  CHECK(jet::test::op_instructions(e, jet::detail::op_id::remainder) == 1);
}

TEST_CASE("the long math functions are the math and special interpreters', each one called function",
          "[cpu][math][interpreter]") {
  using jet::detail::interpreter_families;
  const auto& core = interpreter_families[0];
  const auto family = [](const char* name) -> const jet::detail::interpreter_family& {
    return *std::find_if(std::begin(interpreter_families), std::end(interpreter_families),
                         [&](const auto& f) { return f.name == name; });
  };
  const auto &math = family("float32 math"), &special = family("float32 special");
  const std::string core_source = jet::detail::interpreter_source(core),
                    math_source = jet::detail::interpreter_source(math),
                    special_source = jet::detail::interpreter_source(special);
  CHECK(core_source.find("jet_lgamma(") == std::string::npos);
  CHECK(core_source.find("__forceinline__ auto jet_sin(") != std::string::npos);  // the core as it was
  CHECK(math_source.find("__noinline__ auto jet_atan2(") != std::string::npos);
  CHECK(math_source.find("__noinline__ auto jet_log1p(") != std::string::npos);
  CHECK(math_source.find("jet_lgamma(") == std::string::npos);
  CHECK(special_source.find("__noinline__ auto jet_lgamma(") != std::string::npos);
  CHECK(special_source.find("__noinline__ auto jet_j0(") != std::string::npos);
  CHECK(special_source.find("__noinline__ auto jet_erfinv(") != std::string::npos);
  CHECK(special_source.find("jet_atan2(") == std::string::npos);
  for (const std::string* s : {&math_source, &special_source}) {
    CHECK(s->find("__forceinline__ auto jet_sin(") != std::string::npos);
    CHECK(s->find("__forceinline__ auto jet_floor(") != std::string::npos);
  }
  // An expression runs on the core family unless it needs a math or special one; one that needs
  // both compiles.
  const auto x = jet::test::fake_view<float>(8, 0x10000), out = jet::test::fake_view<float>(8, 0x90000);
  CHECK(jet::test::planned_encoding_of(jet::tuple(jet::sin(x) + jet::floor(x)), out).family == &core);
  CHECK(jet::test::planned_encoding_of(jet::tuple(jet::sin(x) + jet::atan2(x, x)), out).family == &math);
  CHECK(jet::test::planned_encoding_of(jet::tuple(jet::sin(x) + jet::erf(x)), out).family == &special);
  const jet::detail::encoding both = jet::test::planned_encoding_of(jet::tuple(jet::erf(x) + jet::atan2(x, x)), out);
  CHECK_FALSE(both.family);
  CHECK(both.reason.find("interpreter has no") != std::string::npos);
}

TEST_CASE("each activation is one kernel that computes its operand's work once", "[cpu][math][activations]") {
  using jet::detail::op_id;
  using jet::test::op_instructions;
  const auto x = jet::test::fake_view<float>(8, 0x10000), out = jet::test::fake_view<float>(8, 0x90000);
  const auto program = [&](const auto& e) { return jet::test::planned_encoding_of(jet::tuple(e), out); };
  SECTION("gelu: x·Φ(x)") {
    const jet::detail::encoding e = program(jet::gelu(x));
    REQUIRE(e.family);
    CHECK(op_instructions(e, op_id::normcdf) == 1);
    CHECK(op_instructions(e, op_id::mul) == 1);
  }
  SECTION("softplus: β·x once, for the test and the exponent") {
    const jet::detail::encoding e = program(jet::softplus(x, 2.0, 15.0));
    REQUIRE(e.family);
    CHECK(op_instructions(e, op_id::mul) == 1);
    CHECK(op_instructions(e, op_id::exp) == 1);
    CHECK(op_instructions(e, op_id::log1p) == 1);
    CHECK(op_instructions(e, op_id::where) == 1);
  }
  SECTION("mish: softplus inside tanh") {
    const jet::detail::encoding e = program(jet::mish(x));
    REQUIRE(e.family);
    CHECK(op_instructions(e, op_id::tanh) == 1);
    CHECK(op_instructions(e, op_id::exp) == 1);
  }
  SECTION("hardswish and logsigmoid") {
    CHECK(op_instructions(program(jet::hardswish(x)), op_id::clamp) == 1);
    CHECK(op_instructions(program(jet::logsigmoid(x)), op_id::abs) == 1);
  }
}

TEST_CASE("clip is NumPy's: maximum, then minimum, in one kernel", "[cpu][math]") {
  const auto x = jet::test::fake_view<float>(8, 0x10000), lo = jet::test::fake_view<float>(8, 0x20000);
  const auto out = jet::test::fake_view<float>(8, 0x90000);
  const jet::detail::encoding e = jet::test::planned_encoding_of(jet::tuple(jet::clip(x, lo, 2.f)), out);
  CHECK(jet::test::op_instructions(e, jet::detail::op_id::maximum) == 1);
  CHECK(jet::test::op_instructions(e, jet::detail::op_id::minimum) == 1);
  CHECK(jet::test::op_instructions(e, jet::detail::op_id::clamp) == 0);
}
