// The host's 16-bit floats: every bit pattern widens exactly and rounds back to itself, every
// halfway case rounds to even, and the known values and limits are right.
#include "support/catch.hpp"

#include <jet/half.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>

namespace {

// The value of a bit pattern from its fields, by the definition of the encoding (independent of
// the conversion under test): (-1)^s · 1.m · 2^(e - bias), subnormal (-1)^s · 0.m · 2^(1 - bias).
template <class H> double value_of(std::uint16_t bits) {
  const int m = H::mantissa_bits, bias = H::exponent_bias;
  const int exponent = (bits >> m) & H::exponent_mask;
  const double mantissa = bits & H::mantissa_mask, sign = bits & 0x8000 ? -1 : 1;
  if (exponent == static_cast<int>(H::exponent_mask))
    return mantissa == 0 ? sign * std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  if (exponent == 0) return sign * std::ldexp(mantissa, 1 - bias - m);
  return sign * std::ldexp(1 + std::ldexp(mantissa, -m), exponent - bias);
}

template <class H> void check_every_pattern_widens_exactly_and_rounds_back() {
  std::uint32_t mismatches = 0;
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float f = H::from_bits(bits);
    const double expected = value_of<H>(bits);
    if (std::isnan(expected)) {
      mismatches += !std::isnan(f) || !std::isnan(static_cast<float>(H(f)));
      continue;
    }
    mismatches += static_cast<double>(f) != expected || std::signbit(f) != static_cast<bool>(bits & 0x8000);
    mismatches += H(f).bits != bits;
  }
  CHECK(mismatches == 0);
}

// For every pair of neighbouring finite values: their midpoint rounds to the one with an even
// mantissa, and the floats just below and above it round to the nearer one; the same negated.
template <class H> void check_every_halfway_case_rounds_to_even() {
  std::uint32_t mismatches = 0;
  const std::uint16_t largest = std::numeric_limits<H>::max().bits;
  for (std::uint16_t low = 0; low < largest; ++low) {
    const auto high = static_cast<std::uint16_t>(low + 1);
    // Exact in float: the midpoint has one bit more than the format.
    const float mid = static_cast<float>((value_of<H>(low) + value_of<H>(high)) / 2);
    const std::uint16_t even = low % 2 == 0 ? low : high;
    for (const float sign : {1.f, -1.f}) {
      const std::uint16_t s = sign < 0 ? 0x8000 : 0;
      mismatches += H(sign * mid).bits != (even | s);
      mismatches += H(sign * std::nextafter(mid, 0.f)).bits != (low | s);
      mismatches += H(sign * std::nextafter(mid, 2 * mid)).bits != (high | s);
    }
  }
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("16-bit floats are their bit pattern, and convert at compile time", "[cpu][half]") {
  STATIC_REQUIRE(sizeof(jet::float16) == 2);
  STATIC_REQUIRE(sizeof(jet::bfloat16) == 2);
  STATIC_REQUIRE(std::is_trivially_copyable_v<jet::float16>);
  STATIC_REQUIRE(std::is_trivially_default_constructible_v<jet::bfloat16>);
  STATIC_REQUIRE(jet::float16(1.0f).bits == 0x3c00);
  STATIC_REQUIRE(static_cast<float>(jet::bfloat16::from_bits(0x3f80)) == 1.0f);
  STATIC_REQUIRE(!std::is_convertible_v<float, jet::float16>);  // narrowing is explicit
  STATIC_REQUIRE(std::is_convertible_v<jet::float16, float>);   // widening is exact, so implicit
}

TEST_CASE("float16: known values", "[cpu][half]") {
  using jet::float16;
  CHECK(float16(1.0f).bits == 0x3c00);
  CHECK(float16(-2.0f).bits == 0xc000);
  CHECK(float16(0.1f).bits == 0x2e66);
  CHECK(float16(65504.0f).bits == 0x7bff);  // the largest finite value
  CHECK(float16(65519.0f).bits == 0x7bff);  // below the midpoint to 65536: still finite
  CHECK(float16(65520.0f).bits == 0x7c00);  // the midpoint rounds to even: infinity
  CHECK(float16(1e10f).bits == 0x7c00);
  CHECK(float16(-std::numeric_limits<float>::infinity()).bits == 0xfc00);
  CHECK(float16(std::ldexp(1.0f, -14)).bits == 0x0400);  // the smallest normal value
  CHECK(float16(std::ldexp(1.0f, -24)).bits == 0x0001);  // the smallest subnormal
  CHECK(float16(std::ldexp(1.0f, -25)).bits == 0x0000);  // halfway to it: even, zero
  CHECK(float16(std::ldexp(1.5f, -25)).bits == 0x0001);
  CHECK(float16(std::ldexp(1.0f, -30)).bits == 0x0000);
  CHECK(float16(std::numeric_limits<float>::denorm_min()).bits == 0x0000);
  CHECK(float16(-0.0f).bits == 0x8000);
  CHECK(float16(1.0f + std::ldexp(1.0f, -11)).bits == 0x3c00);      // tie: to even
  CHECK(float16(1.0f + 3 * std::ldexp(1.0f, -11)).bits == 0x3c02);  // tie: to even, upwards
  const float16 nan(std::numeric_limits<float>::quiet_NaN());
  CHECK((nan.bits & 0x7c00) == 0x7c00);
  CHECK((nan.bits & 0x03ff) != 0);
  CHECK(std::isnan(static_cast<float>(nan)));
  CHECK(std::isnan(static_cast<float>(float16(-std::numeric_limits<float>::signaling_NaN()))));
  CHECK(static_cast<float>(float16::from_bits(0x7bff)) == 65504.0f);
  CHECK(static_cast<float>(float16::from_bits(0x0001)) == std::ldexp(1.0f, -24));
  CHECK(static_cast<float>(float16::from_bits(0x8001)) == -std::ldexp(1.0f, -24));
  CHECK(static_cast<float>(float16::from_bits(0x03ff)) == std::ldexp(1023.0f, -24));  // the largest subnormal
}

TEST_CASE("bfloat16: known values", "[cpu][half]") {
  using jet::bfloat16;
  CHECK(bfloat16(1.0f).bits == 0x3f80);
  CHECK(bfloat16(-2.0f).bits == 0xc000);
  CHECK(bfloat16(0.1f).bits == 0x3dcd);  // 0x3dcccccd rounds up
  CHECK(bfloat16(3.0f).bits == 0x4040);
  CHECK(bfloat16(1.0f + std::ldexp(1.0f, -8)).bits == 0x3f80);        // tie: to even
  CHECK(bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)).bits == 0x3f82);    // tie: to even, upwards
  CHECK(bfloat16(std::numeric_limits<float>::max()).bits == 0x7f80);  // rounds past the largest: infinity
  CHECK(bfloat16(std::numeric_limits<float>::infinity()).bits == 0x7f80);
  CHECK(bfloat16(std::numeric_limits<float>::denorm_min()).bits == 0x0000);  // 2^-149: under half of 2^-133
  CHECK(bfloat16(std::ldexp(1.0f, -133)).bits == 0x0001);  // the smallest subnormal, a float subnormal
  CHECK(static_cast<float>(bfloat16::from_bits(0x0001)) == std::ldexp(1.0f, -133));
  CHECK(static_cast<float>(bfloat16::from_bits(0x7f7f)) == std::ldexp(255.0f, 120));
  CHECK(std::isnan(static_cast<float>(bfloat16(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isnan(static_cast<float>(bfloat16(std::bit_cast<float>(0x7f800001u)))));  // payload only in the low bits
}

TEST_CASE("the limits of both formats", "[cpu][half]") {
  using h = std::numeric_limits<jet::float16>;
  using b = std::numeric_limits<jet::bfloat16>;
  CHECK(static_cast<float>(h::max()) == 65504.0f);
  CHECK(static_cast<float>(h::lowest()) == -65504.0f);
  CHECK(static_cast<float>(h::min()) == std::ldexp(1.0f, -14));
  CHECK(static_cast<float>(h::epsilon()) == std::ldexp(1.0f, -10));
  CHECK(static_cast<float>(h::denorm_min()) == std::ldexp(1.0f, -24));
  CHECK(std::isinf(static_cast<float>(h::infinity())));
  CHECK(std::isnan(static_cast<float>(h::quiet_NaN())));
  CHECK(h::digits == 11);
  CHECK(static_cast<float>(b::max()) == std::ldexp(255.0f, 120));
  CHECK(static_cast<float>(b::min()) == std::numeric_limits<float>::min());
  CHECK(static_cast<float>(b::epsilon()) == std::ldexp(1.0f, -7));
  CHECK(static_cast<float>(b::denorm_min()) == std::ldexp(1.0f, -133));
  CHECK(std::isinf(static_cast<float>(b::infinity())));
  CHECK(std::isnan(static_cast<float>(b::quiet_NaN())));
  CHECK(b::digits == 8);
}

TEST_CASE("all 65536 patterns widen exactly and round back to themselves", "[cpu][half]") {
  check_every_pattern_widens_exactly_and_rounds_back<jet::float16>();
  check_every_pattern_widens_exactly_and_rounds_back<jet::bfloat16>();
}

TEST_CASE("every halfway case rounds to even, and its neighbours to the nearer value", "[cpu][half]") {
  check_every_halfway_case_rounds_to_even<jet::float16>();
  check_every_halfway_case_rounds_to_even<jet::bfloat16>();
}

TEST_CASE("random floats round as independent conversions do", "[cpu][half]") {
  std::mt19937 engine(2024);
  std::uint32_t float16_mismatches = 0, bfloat16_mismatches = 0;
  for (int i = 0; i < 1 << 22; ++i) {
    // Any pattern, or (every other one) a float with an exponent within float16's range, 2^-26..2^16.
    std::uint32_t u = engine();
    if (i % 2) u = (u & 0x807fffff) | (101 + u % 43) << 23;
    const float f = std::bit_cast<float>(u);
    if (std::isnan(f)) continue;
    // bfloat16: the classic rounding of float32's upper half, carries into the exponent included.
    bfloat16_mismatches += jet::bfloat16(f).bits != (u + 0x7fff + ((u >> 16) & 1)) >> 16;
#ifdef __FLT16_MANT_DIG__
    // float16: the compiler's own _Float16 conversion.
    float16_mismatches += jet::float16(f).bits != std::bit_cast<std::uint16_t>(static_cast<_Float16>(f));
#endif
  }
  CHECK(bfloat16_mismatches == 0);
  CHECK(float16_mismatches == 0);
}
