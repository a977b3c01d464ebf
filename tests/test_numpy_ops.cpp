// NumPy's integer, bitwise, logical and NaN-aware ops (README, "Integer, bitwise and logical
// ops"): their host references on the edge cases, against values written out by hand (NumPy's,
// and jet's documented choices where NumPy raises or leaves the result to the platform), and
// their result dtypes. The asan build runs these under UBSan, so the references have no UB.
#include "support/catch.hpp"
#include "support/operands.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace {

template <class T> constexpr T lowest = std::numeric_limits<T>::lowest();
template <class T> constexpr T highest = std::numeric_limits<T>::max();
template <class T> constexpr T width = T(8 * sizeof(T));

// Op's host reference on operands of type T.
template <class Op, class T, class... U> auto reference(T a, U... rest) { return Op::reference(a, T(rest)...); }

namespace ops = jet::ops;

template <class T> void check_signed_division() {
  // C's % (the dividend's sign), Python's floor division and remainder (the divisor's sign).
  const T a[] = {7, -7, 7, -7}, b[] = {3, 3, -3, -3};
  const T fmod[] = {1, -1, 1, -1}, remainder[] = {1, 2, -2, -1}, floor_divide[] = {2, -3, -3, 2};
  for (int k = 0; k < 4; ++k) {
    INFO(+a[k] << " and " << +b[k]);
    CHECK(reference<ops::fmod>(a[k], b[k]) == fmod[k]);
    CHECK(reference<ops::remainder>(a[k], b[k]) == remainder[k]);
    CHECK(reference<ops::floor_divide>(a[k], b[k]) == floor_divide[k]);
  }
  for (T x : {T(5), T(0), lowest<T>, highest<T>}) {  // x % 0 and x // 0 are 0
    CHECK(reference<ops::fmod>(x, 0) == 0);
    CHECK(reference<ops::remainder>(x, 0) == 0);
    CHECK(reference<ops::floor_divide>(x, 0) == 0);
  }
  CHECK(reference<ops::fmod>(lowest<T>, -1) == 0);
  CHECK(reference<ops::remainder>(lowest<T>, -1) == 0);
  CHECK(reference<ops::floor_divide>(lowest<T>, -1) == lowest<T>);  // wraps, as lowest / -1
  CHECK(reference<ops::fmod>(highest<T>, lowest<T>) == highest<T>);
  CHECK(reference<ops::remainder>(highest<T>, lowest<T>) == -1);
  CHECK(reference<ops::floor_divide>(highest<T>, lowest<T>) == -1);
  CHECK(reference<ops::remainder>(lowest<T>, highest<T>) == highest<T> - 1);
  CHECK(reference<ops::floor_divide>(lowest<T>, highest<T>) == -2);
  CHECK(reference<ops::remainder>(T(1), lowest<T>) == lowest<T> + 1);
  CHECK(reference<ops::floor_divide>(T(1), lowest<T>) == -1);
  CHECK(reference<ops::fmod>(lowest<T> + 1, 2) == -1);
}

template <class T> void check_signed_arithmetic() {
  CHECK(reference<ops::positive>(lowest<T>) == lowest<T>);
  CHECK(reference<ops::square>(T(-3)) == 9);
  CHECK(reference<ops::square>(highest<T>) == 1);  // (2^(n-1) - 1)^2 wraps to 1
  CHECK(reference<ops::square>(lowest<T>) == 0);
  // Integer reciprocal truncates as integer division: 1 / 0 is 0, as x / 0.
  const T x[] = {1, -1, 0, 2, -2, lowest<T>, highest<T>}, reciprocal[] = {1, -1, 0, 0, 0, 0, 0};
  for (int k = 0; k < 7; ++k) CHECK(reference<ops::reciprocal>(x[k]) == reciprocal[k]);
  CHECK(reference<ops::sign>(lowest<T>) == -1);
  CHECK(reference<ops::sign>(T(0)) == 0);
  CHECK(reference<ops::sign>(highest<T>) == 1);
  // power: exact and wrapping; a negative exponent gives 1 / a^|b| truncated.
  CHECK(reference<ops::power>(T(3), 0) == 1);
  CHECK(reference<ops::power>(T(0), 0) == 1);
  CHECK(reference<ops::power>(T(0), 5) == 0);
  CHECK(reference<ops::power>(T(-2), 3) == -8);
  CHECK(reference<ops::power>(T(-2), width<T> - 1) == lowest<T>);
  CHECK(reference<ops::power>(T(2), width<T>) == 0);
  CHECK(reference<ops::power>(T(-1), highest<T>) == -1);
  CHECK(reference<ops::power>(T(1), lowest<T>) == 1);
  CHECK(reference<ops::power>(T(-1), -3) == -1);
  CHECK(reference<ops::power>(T(-1), -2) == 1);
  CHECK(reference<ops::power>(T(-1), lowest<T>) == 1);
  CHECK(reference<ops::power>(T(2), -1) == 0);
  CHECK(reference<ops::power>(T(0), -1) == 0);
  CHECK(reference<ops::power>(lowest<T>, -1) == 0);
  // gcd and lcm of magnitudes; |lowest| wraps to lowest.
  CHECK(reference<ops::gcd>(T(12), 18) == 6);
  CHECK(reference<ops::gcd>(T(-12), 18) == 6);
  CHECK(reference<ops::gcd>(T(12), -18) == 6);
  CHECK(reference<ops::gcd>(T(0), 0) == 0);
  CHECK(reference<ops::gcd>(T(0), -5) == 5);
  CHECK(reference<ops::gcd>(lowest<T>, 0) == lowest<T>);
  CHECK(reference<ops::gcd>(lowest<T>, lowest<T>) == lowest<T>);
  CHECK(reference<ops::gcd>(lowest<T>, 6) == 2);
  CHECK(reference<ops::gcd>(highest<T>, lowest<T>) == 1);
  CHECK(reference<ops::lcm>(T(4), 6) == 12);
  CHECK(reference<ops::lcm>(T(-4), 6) == 12);
  CHECK(reference<ops::lcm>(T(4), -6) == 12);
  CHECK(reference<ops::lcm>(T(0), 5) == 0);
  CHECK(reference<ops::lcm>(T(0), 0) == 0);
  CHECK(reference<ops::lcm>(lowest<T>, -1) == lowest<T>);
  CHECK(reference<ops::lcm>(highest<T>, 2) == -2);  // 2 * highest wraps
}

template <class T> void check_signed_bits() {
  CHECK(reference<ops::bitwise_or>(T(12), 10) == 14);
  CHECK(reference<ops::bitwise_xor>(T(12), 10) == 6);
  CHECK(reference<ops::bitwise_xor>(T(-1), lowest<T>) == highest<T>);
  CHECK(reference<ops::bitwise_not>(T(0)) == -1);
  CHECK(reference<ops::bitwise_not>(lowest<T>) == highest<T>);
  // Counts -1, width and width + 1 shift every bit out: 0, or -1 for a negative value shifted right.
  CHECK(reference<ops::left_shift>(T(3), 0) == 3);
  CHECK(reference<ops::left_shift>(T(1), width<T> - 1) == lowest<T>);
  CHECK(reference<ops::left_shift>(T(-1), 1) == -2);
  CHECK(reference<ops::left_shift>(highest<T>, 1) == -2);
  for (T count : {T(-1), width<T>, T(width<T> + 1), lowest<T>, highest<T>}) {
    INFO("count " << +count);
    CHECK(reference<ops::left_shift>(T(1), count) == 0);
    CHECK(reference<ops::left_shift>(T(-1), count) == 0);
    CHECK(reference<ops::right_shift>(T(8), count) == 0);
    CHECK(reference<ops::right_shift>(T(-8), count) == -1);
    CHECK(reference<ops::right_shift>(lowest<T>, count) == -1);
  }
  CHECK(reference<ops::right_shift>(T(-8), 1) == -4);  // arithmetic: the sign fills
  CHECK(reference<ops::right_shift>(T(-7), 1) == -4);  // rounds toward -inf
  CHECK(reference<ops::right_shift>(lowest<T>, width<T> - 1) == -1);
  CHECK(reference<ops::right_shift>(highest<T>, width<T> - 1) == 0);
  CHECK(reference<ops::right_shift>(highest<T>, width<T> - 2) == 1);
  // The 1 bits of |x|, as a uint8.
  CHECK(reference<ops::bitwise_count>(T(0)) == 0);
  CHECK(reference<ops::bitwise_count>(T(-1)) == 1);
  CHECK(reference<ops::bitwise_count>(T(-6)) == 2);
  CHECK(reference<ops::bitwise_count>(lowest<T>) == 1);
  CHECK(reference<ops::bitwise_count>(highest<T>) == width<T> - 1);
  CHECK(std::is_same_v<decltype(reference<ops::bitwise_count>(T(0))), std::uint8_t>);
}

template <class T> void check_unsigned() {
  CHECK(reference<ops::fmod>(T(7), 3) == 1);
  CHECK(reference<ops::remainder>(T(7), 3) == 1);
  CHECK(reference<ops::floor_divide>(T(7), 3) == 2);
  CHECK(reference<ops::fmod>(highest<T>, 0) == 0);
  CHECK(reference<ops::remainder>(highest<T>, 0) == 0);
  CHECK(reference<ops::floor_divide>(highest<T>, 0) == 0);
  CHECK(reference<ops::fmod>(highest<T>, highest<T>) == 0);  // no -1 divisor: highest is one
  CHECK(reference<ops::floor_divide>(highest<T>, highest<T>) == 1);
  CHECK(reference<ops::reciprocal>(T(1)) == 1);
  CHECK(reference<ops::reciprocal>(highest<T>) == 0);
  CHECK(reference<ops::reciprocal>(T(0)) == 0);
  CHECK(reference<ops::sign>(highest<T>) == 1);
  CHECK(reference<ops::sign>(T(0)) == 0);
  CHECK(reference<ops::square>(highest<T>) == 1);
  CHECK(reference<ops::power>(T(2), width<T> - 1) == T(highest<T> / 2 + 1));
  CHECK(reference<ops::power>(highest<T>, highest<T>) == highest<T>);  // (-1)^odd modulo 2^n
  CHECK(reference<ops::gcd>(highest<T>, 0) == highest<T>);
  CHECK(reference<ops::lcm>(highest<T>, 2) == highest<T> - 1);
  CHECK(reference<ops::bitwise_not>(T(0)) == highest<T>);
  CHECK(reference<ops::left_shift>(T(1), width<T> - 1) == highest<T> / 2 + 1);
  CHECK(reference<ops::left_shift>(T(1), width<T>) == 0);
  CHECK(reference<ops::left_shift>(T(1), highest<T>) == 0);  // a negative count, as the type holds it
  CHECK(reference<ops::right_shift>(highest<T>, width<T> - 1) == 1);
  CHECK(reference<ops::right_shift>(highest<T>, width<T>) == 0);
  CHECK(reference<ops::right_shift>(highest<T>, width<T> + 1) == 0);
  CHECK(reference<ops::bitwise_count>(highest<T>) == width<T>);
}

// The same value, a zero's sign included; any NaN is the same as any other.
bool same_bits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

constexpr double inf = std::numeric_limits<double>::infinity(), qnan = std::numeric_limits<double>::quiet_NaN();

template <class Op> double ref(double a, double b) { return Op::reference(a, b); }
template <class Op> double ref(double a) { return Op::reference(a); }

}  // namespace

TEST_CASE("integer %, floor_divide and remainder: C's and Python's signs, x % 0 is 0 (host references)",
          "[cpu][semantics]") {
  check_signed_division<std::int8_t>();
  check_signed_division<std::int16_t>();
  check_signed_division<std::int32_t>();
  check_signed_division<std::int64_t>();
  check_unsigned<std::uint8_t>();
  check_unsigned<std::uint32_t>();
  check_unsigned<std::uint64_t>();
}

TEST_CASE("integer square, reciprocal, sign, power, gcd and lcm wrap and are defined everywhere (host references)",
          "[cpu][semantics]") {
  check_signed_arithmetic<std::int8_t>();
  check_signed_arithmetic<std::int32_t>();
  check_signed_arithmetic<std::int64_t>();
  CHECK(reference<ops::power>(std::int64_t{3}, 40) == -6289078614652622815);  // 3^40 modulo 2^64
  CHECK(reference<ops::power>(std::int64_t{7}, highest<std::int64_t>) == 7905747460161236407);
  CHECK(reference<ops::power>(std::int32_t{7}, highest<std::int32_t>) == -1227133513);
  CHECK(reference<ops::power>(std::int8_t{3}, 5) == -13);  // 243 modulo 2^8
}

TEST_CASE("bitwise ops and shifts by every count, bitwise_count of |x| (host references)", "[cpu][semantics]") {
  check_signed_bits<std::int8_t>();
  check_signed_bits<std::int16_t>();
  check_signed_bits<std::int32_t>();
  check_signed_bits<std::int64_t>();
  // On bool, ~ is logical not (NumPy's invert); | and ^ are or and xor.
  CHECK(reference<ops::bitwise_not>(true) == false);
  CHECK(reference<ops::bitwise_not>(false) == true);
  CHECK(static_cast<bool>(reference<ops::bitwise_or>(true, false)) == true);
  CHECK(static_cast<bool>(reference<ops::bitwise_xor>(true, true)) == false);
}

TEST_CASE("floating %, floor_divide and remainder as NumPy: NaN, infinities and signed zeros (host references)",
          "[cpu][semantics]") {
  struct division_case {
    double a, b, fmod, remainder, floor_divide;
  };
  const division_case cases[] = {
      {5.5, 2, 1.5, 1.5, 2},
      {-5.5, 2, -1.5, 0.5, -3},
      {5.5, -2, 1.5, -0.5, -3},
      {-5.5, -2, -1.5, -1.5, 2},
      {1, 0.1, 0.09999999999999995, 0.09999999999999995, 9},  // Python's 1 // 0.1 == 9.0
      {1, 0, qnan, qnan, inf},
      {-1, 0, qnan, qnan, -inf},
      {0, 0, qnan, qnan, qnan},
      {qnan, 1, qnan, qnan, qnan},
      {1, qnan, qnan, qnan, qnan},
      {inf, 2, qnan, qnan, qnan},
      {1, inf, 1, 1, 0},
      {-1, inf, -1, inf, -1},
      {1, -inf, 1, -inf, -1},
      {-1, -inf, -1, -1, 0},
      {-0.0, 1, -0.0, 0.0, -0.0},  // a zero remainder has the divisor's sign, a zero quotient the exact one's
      {0.0, -1, 0.0, -0.0, -0.0},
      {0.0, 1, 0.0, 0.0, 0.0},
      {2, -1, 0.0, -0.0, -2},
      {-2, 1, -0.0, 0.0, -2},
  };
  for (const division_case& c : cases) {
    INFO(c.a << " and " << c.b);
    CHECK(same_bits(ref<ops::fmod>(c.a, c.b), c.fmod));
    CHECK(same_bits(ref<ops::remainder>(c.a, c.b), c.remainder));
    CHECK(same_bits(ref<ops::floor_divide>(c.a, c.b), c.floor_divide));
  }
  CHECK(ops::remainder::reference(-5.5f, 2.f) == 0.5f);  // float32 computes alike
  CHECK(ops::floor_divide::reference(-5.5f, 2.f) == -3.f);
  CHECK(same_bits(ref<ops::true_divide>(1, -0.0), -inf));
}

TEST_CASE("floating maximum and minimum propagate NaN; max, min ignore it; sign, reciprocal, power (host references)",
          "[cpu][semantics]") {
  const double firsts[] = {qnan, 1, -inf, qnan}, seconds[] = {1, qnan, qnan, qnan};
  for (int k = 0; k < 4; ++k) {
    CHECK(std::isnan(ref<ops::maximum>(firsts[k], seconds[k])));
    CHECK(std::isnan(ref<ops::minimum>(firsts[k], seconds[k])));
  }
  CHECK(ref<ops::max>(qnan, 1) == 1);
  CHECK(ref<ops::min>(1, qnan) == 1);
  CHECK(ref<ops::maximum>(inf, -inf) == inf);
  CHECK(ref<ops::minimum>(inf, -inf) == -inf);
  CHECK(ref<ops::maximum>(-1, 2) == 2);
  CHECK(ref<ops::minimum>(-1, 2) == -1);
  CHECK(reference<ops::maximum>(lowest<std::int64_t>, highest<std::int64_t>) == highest<std::int64_t>);
  CHECK(reference<ops::minimum>(true, false) == false);

  CHECK(std::isnan(ref<ops::sign>(qnan)));
  CHECK(same_bits(ref<ops::sign>(-0.0), 0.0));
  CHECK(ref<ops::sign>(-inf) == -1);
  CHECK(ref<ops::sign>(std::numeric_limits<double>::denorm_min()) == 1);
  CHECK(same_bits(ref<ops::reciprocal>(0.0), inf));
  CHECK(same_bits(ref<ops::reciprocal>(-0.0), -inf));
  CHECK(same_bits(ref<ops::reciprocal>(-inf), -0.0));
  CHECK(ref<ops::reciprocal>(4) == 0.25);
  CHECK(same_bits(ref<ops::square>(-0.0), 0.0));
  CHECK(ref<ops::square>(-inf) == inf);
  CHECK(ref<ops::power>(2, 0.5) == std::sqrt(2.0));
  CHECK(ref<ops::power>(qnan, 0) == 1);
  CHECK(std::isnan(ref<ops::power>(-8, 1.0 / 3)));
  CHECK(ref<ops::power>(0.0, -1) == inf);
}

TEST_CASE("logical ops: any nonzero value, NaN included, is true; -0.0 is false (host references)",
          "[cpu][semantics]") {
  CHECK(ops::logical_and::reference(qnan, 1.0));
  CHECK_FALSE(ops::logical_and::reference(0.0, qnan));
  CHECK_FALSE(ops::logical_and::reference(-0.0, 1.0));
  CHECK_FALSE(ops::logical_or::reference(0.0, -0.0));
  CHECK(ops::logical_or::reference(0.0, -inf));
  CHECK(ops::logical_xor::reference(qnan, 0.0));
  CHECK_FALSE(ops::logical_xor::reference(qnan, inf));
  CHECK_FALSE(ops::logical_not::reference(qnan));
  CHECK(ops::logical_not::reference(-0.0));
  CHECK(ops::logical_and::reference(lowest<std::int64_t>, std::int64_t{2}));
  CHECK_FALSE(ops::logical_not::reference(lowest<std::int8_t>));
}

TEST_CASE("result dtypes of the integer, bitwise and logical ops follow NumPy but for bool arithmetic",
          "[cpu][semantics][dtype]") {
  using jet::dtype;
  const auto i8 = jet::test::fake_view<std::int8_t>();
  const auto u8 = jet::test::fake_view<std::uint8_t>();
  const auto i32 = jet::test::fake_view<std::int32_t>();
  const auto i64 = jet::test::fake_view<std::int64_t>();
  const auto f16 = jet::test::fake_view<jet::float16>();
  const auto f32 = jet::test::fake_view<float>();
  const auto b = jet::test::fake_view<bool>();
  auto type = [](const auto& e) { return std::remove_cvref_t<decltype(e)>::type; };
  CHECK(type(jet::true_divide(i32, i32)) == dtype::float64);  // as NumPy: integers divide in float64
  CHECK(type(jet::true_divide(f16, f16)) == dtype::float16);
  CHECK(type(i8 % i8) == dtype::int8);
  CHECK(type(jet::floor_divide(u8, i8)) == dtype::int16);
  CHECK(type(jet::power(i64, 2)) == dtype::int64);
  CHECK(type(jet::power(f32, 2)) == dtype::float32);
  CHECK(type(jet::gcd(u8, u8)) == dtype::uint8);
  CHECK(type(i8 << i8) == dtype::int8);
  CHECK(type(~b) == dtype::boolean);  // as NumPy's invert
  CHECK(type(b | b) == dtype::boolean);
  CHECK(type(jet::maximum(b, b)) == dtype::boolean);
  CHECK(type(jet::bitwise_count(i64)) == dtype::uint8);
  CHECK(type(jet::bitwise_count(b)) == dtype::uint8);
  CHECK(type(jet::logical_and(f32, i8)) == dtype::boolean);
  CHECK(type(!f16) == dtype::boolean);
  CHECK(type(f32 && i64) == dtype::boolean);
  CHECK(type(jet::logical_xor(i8, 0.5)) == dtype::boolean);
  // Arithmetic on bool computes as int32, where NumPy takes int8 (as + - * do in jet).
  CHECK(type(b << b) == dtype::int32);
  CHECK(type(jet::square(b)) == dtype::int32);
  CHECK(type(jet::sign(b)) == dtype::int32);
  // The other names build the same nodes.
  CHECK(std::is_same_v<decltype(jet::fmax(f32, i8)), decltype(jet::max(f32, i8))>);
  CHECK(std::is_same_v<decltype(jet::fmin(f32, 1)), decltype(jet::min(f32, 1))>);
  CHECK(std::is_same_v<decltype(jet::mod(i8, i32)), decltype(jet::remainder(i8, i32))>);
  CHECK(std::is_same_v<decltype(jet::fmod(f32, f32)), decltype(f32 % f32)>);
  CHECK(std::is_same_v<decltype(jet::bitwise_and(i8, 3)), decltype(i8 & 3)>);
  CHECK(std::is_same_v<decltype(jet::bitwise_not(u8)), decltype(~u8)>);
  CHECK(std::is_same_v<decltype(jet::right_shift(i64, i8)), decltype(i64 >> i8)>);
  CHECK(std::is_same_v<decltype(jet::logical_not(f32)), decltype(!f32)>);
}
