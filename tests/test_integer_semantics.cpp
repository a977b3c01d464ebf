// The op table's host references define every integer case C++ leaves undefined, as README's
// "Ops" table says: wrapping arithmetic, x / 0, lowest / -1, saturating float-to-integer
// conversion. The asan build runs these under UBSan, so the references themselves have no UB.
#include "support/catch.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace {

template <class T> constexpr T lowest = std::numeric_limits<T>::lowest();
template <class T> constexpr T highest = std::numeric_limits<T>::max();

// Op's host reference on operands of type T.
template <class Op, class T, class... U> T reference(T a, U... rest) { return Op::reference(a, T(rest)...); }

template <class T> void check_integer_semantics() {
  CHECK(reference<jet::ops::add>(highest<T>, 1) == lowest<T>);
  CHECK(reference<jet::ops::sub>(lowest<T>, 1) == highest<T>);
  CHECK(reference<jet::ops::mul>(highest<T>, 2) == -2);
  CHECK(reference<jet::ops::mul>(lowest<T>, -1) == lowest<T>);
  CHECK(reference<jet::ops::neg>(lowest<T>) == lowest<T>);
  CHECK(reference<jet::ops::abs>(lowest<T>) == lowest<T>);
  CHECK(reference<jet::ops::abs>(T(-5)) == 5);
  CHECK(reference<jet::ops::div>(T(-7), 2) == -3);  // truncates toward zero
  CHECK(reference<jet::ops::div>(T(5), 0) == 0);
  CHECK(reference<jet::ops::div>(T(0), 0) == 0);
  CHECK(reference<jet::ops::div>(lowest<T>, 0) == 0);
  CHECK(reference<jet::ops::div>(lowest<T>, -1) == lowest<T>);
  CHECK(reference<jet::ops::div>(T(7), -1) == -7);
  CHECK(reference<jet::ops::clamp>(T(5), 10, 0) == 10);  // lo > hi: x < lo gives lo
  CHECK(reference<jet::ops::clamp>(T(20), 10, 0) == 0);  // hi < x gives hi
  CHECK(reference<jet::ops::clamp>(T(-3), -1, 1) == -1);
}

template <class To, class From> void check_saturating_conversion() {
  const From inf = std::numeric_limits<From>::infinity();
  CHECK(jet::host::convert<To>(std::numeric_limits<From>::quiet_NaN()) == 0);
  CHECK(jet::host::convert<To>(inf) == highest<To>);
  CHECK(jet::host::convert<To>(-inf) == lowest<To>);
  CHECK(jet::host::convert<To>(From(1e30)) == highest<To>);
  CHECK(jet::host::convert<To>(From(-1e30)) == lowest<To>);
  CHECK(jet::host::convert<To>(From(-2.7)) == -2);
  CHECK(jet::host::convert<To>(From(2.7)) == 2);
  CHECK(jet::host::convert<To>(From(-0.0)) == 0);
  CHECK(jet::host::convert<To>(std::numeric_limits<From>::denorm_min()) == 0);
  // 2^digits is one past the highest value; the float just below it converts exactly.
  const From past_highest = std::ldexp(From(1), std::numeric_limits<To>::digits);
  CHECK(jet::host::convert<To>(past_highest) == highest<To>);
  const From below = std::nextafter(past_highest, From(0));
  CHECK(jet::host::convert<To>(below) == static_cast<To>(below));
  CHECK(jet::host::convert<To>(-past_highest) == lowest<To>);
  CHECK(jet::host::convert<To>(std::nextafter(-past_highest, -inf)) == lowest<To>);
}

}  // namespace

TEST_CASE("integer arithmetic wraps, x / 0 is 0 and lowest / -1 is lowest (host references)", "[cpu][semantics]") {
  check_integer_semantics<std::int32_t>();
  check_integer_semantics<std::int64_t>();
}

TEST_CASE("floating to integer conversion truncates, saturates and takes NaN to 0 (host references)",
          "[cpu][semantics]") {
  check_saturating_conversion<std::int32_t, float>();
  check_saturating_conversion<std::int32_t, double>();
  check_saturating_conversion<std::int64_t, float>();
  check_saturating_conversion<std::int64_t, double>();
  CHECK(jet::host::convert<std::int32_t>(2147483647.0) == 2147483647);  // exact in double
  CHECK(jet::host::convert<std::int32_t>(2147483646.5) == 2147483646);
  CHECK(jet::host::convert<std::int64_t>(std::int32_t{-5}) == -5);
  CHECK(jet::host::convert<std::int32_t>(std::int64_t{1} << 32 | 7) == 7);            // integers wrap
  CHECK(jet::host::convert<bool>(std::nan("")) == true);                              // as C++: NaN != 0
  CHECK(jet::host::convert<float>(1e300) == std::numeric_limits<float>::infinity());  // IEEE 754, as the GPU
}
