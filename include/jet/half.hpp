// 16-bit floating-point element types on the host: jet::float16 (IEEE 754 binary16, the layout of
// CUDA's __half) and jet::bfloat16 (the upper half of a float32, the layout of __nv_bfloat16).
// Each holds the bit pattern a kernel stores and converts to and from float, rounding to nearest
// even. Kernels compute on both in float32 (see README, "Dtypes").
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace jet {

/// A binary floating-point number of 16 bits: a sign bit, `ExponentBits` of exponent and
/// `MantissaBits` of mantissa, with IEEE 754's encoding (subnormals, infinities, NaN).
template <int ExponentBits, int MantissaBits> struct narrow_float {
  static_assert(1 + ExponentBits + MantissaBits == 16 && ExponentBits <= 8,
                "jet: a 16-bit format within float's range");
  static constexpr int exponent_bits = ExponentBits, mantissa_bits = MantissaBits;
  static constexpr int exponent_bias = (1 << (ExponentBits - 1)) - 1;
  static constexpr std::uint32_t exponent_mask = (1u << ExponentBits) - 1, mantissa_mask = (1u << MantissaBits) - 1;

  std::uint16_t bits;

  narrow_float() = default;  // trivial, as for float: narrow_float{} is zero
  /// The nearest value, ties to even; beyond the largest finite value, infinity; NaN stays NaN.
  constexpr explicit narrow_float(float value) : bits(round(value)) {}
  static constexpr narrow_float from_bits(std::uint16_t b) {
    narrow_float x{};
    x.bits = b;
    return x;
  }
  /// Exact: every value of the format is a float. Implicit, as a widening conversion is in C++.
  constexpr operator float() const { return widen(bits); }

 private:
  static constexpr int extra_bits = 23 - MantissaBits;  // how many more mantissa bits float has

  static constexpr std::uint16_t round(float value) {
    const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t sign = (f >> 16) & 0x8000, magnitude = f & 0x7fffffff;
    const std::uint32_t infinity = exponent_mask << MantissaBits;
    if (magnitude > 0x7f800000)  // NaN: quiet, keeping the top of the payload
      return static_cast<std::uint16_t>(sign | infinity | 1u << (MantissaBits - 1) |
                                        (magnitude & 0x7fffff) >> extra_bits);
    // The significand with its implicit bit, and the biased exponent it would have here if normal.
    const int float_exponent = static_cast<int>(magnitude >> 23);
    const std::uint32_t significand = float_exponent ? (magnitude & 0x7fffff) | 0x800000 : magnitude;
    int exponent = (float_exponent ? float_exponent : 1) - 127 + exponent_bias;
    if (exponent >= static_cast<int>(exponent_mask)) return static_cast<std::uint16_t>(sign | infinity);
    int shift = extra_bits;
    if (exponent < 1) {  // below the smallest normal value: a subnormal keeps fewer bits
      shift += 1 - exponent;
      exponent = 1;
    }
    if (shift > 24) return static_cast<std::uint16_t>(sign);  // under half the smallest subnormal
    std::uint32_t kept = significand >> shift;
    const std::uint32_t rest = significand & ((1u << shift) - 1), half = 1u << (shift - 1);
    kept += rest > half || (rest == half && (kept & 1));
    // `kept` still holds the implicit bit, worth one exponent step; a carry out of the mantissa
    // steps the exponent, up to infinity.
    return static_cast<std::uint16_t>(sign | ((static_cast<std::uint32_t>(exponent - 1) << MantissaBits) + kept));
  }

  static constexpr float widen(std::uint16_t b) {
    const std::uint32_t sign = static_cast<std::uint32_t>(b & 0x8000) << 16;
    int exponent = static_cast<int>((b >> MantissaBits) & exponent_mask);
    std::uint32_t mantissa = b & mantissa_mask;
    if (exponent == static_cast<int>(exponent_mask))  // infinity, NaN (with its payload)
      return std::bit_cast<float>(sign | 0x7f800000 | mantissa << extra_bits);
    if (exponent == 0) {
      // Zero or subnormal. With float's own exponent width (bfloat16) a subnormal is a float
      // subnormal; with a narrower one it is a normal float: normalize it.
      if (mantissa == 0 || ExponentBits == 8) return std::bit_cast<float>(sign | mantissa << extra_bits);
      for (exponent = 1; !(mantissa & (1u << MantissaBits)); --exponent) mantissa <<= 1;
      mantissa &= mantissa_mask;
    }
    const auto float_exponent = static_cast<std::uint32_t>(exponent - exponent_bias + 127);
    return std::bit_cast<float>(sign | float_exponent << 23 | mantissa << extra_bits);
  }
};

/// IEEE 754 binary16: 5 exponent bits, 10 mantissa bits; largest finite value 65504.
using float16 = narrow_float<5, 10>;
/// bfloat16: float32's 8 exponent bits and range, 7 mantissa bits.
using bfloat16 = narrow_float<8, 7>;

}  // namespace jet

/// The formats' limits, as for float.
template <int ExponentBits, int MantissaBits>
struct std::numeric_limits<jet::narrow_float<ExponentBits, MantissaBits>> {
 private:
  using type = jet::narrow_float<ExponentBits, MantissaBits>;
  static constexpr type with_exponent(std::uint32_t biased, std::uint32_t mantissa = 0) {
    return type::from_bits(static_cast<std::uint16_t>(biased << MantissaBits | mantissa));
  }

 public:
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, is_exact = false,
                        has_infinity = true, has_quiet_NaN = true;
  static constexpr int radix = 2, digits = MantissaBits + 1;
  static constexpr std::float_round_style round_style = std::round_to_nearest;

  /// The smallest positive normal value.
  static constexpr type min() noexcept { return with_exponent(1); }
  static constexpr type max() noexcept { return with_exponent(type::exponent_mask - 1, type::mantissa_mask); }
  static constexpr type lowest() noexcept { return type::from_bits(0x8000 | max().bits); }
  /// 2^-MantissaBits: the distance from 1 to the next value.
  static constexpr type epsilon() noexcept { return with_exponent(type::exponent_bias - MantissaBits); }
  static constexpr type denorm_min() noexcept { return type::from_bits(1); }
  static constexpr type infinity() noexcept { return with_exponent(type::exponent_mask); }
  static constexpr type quiet_NaN() noexcept { return with_exponent(type::exponent_mask, 1u << (MantissaBits - 1)); }
};
