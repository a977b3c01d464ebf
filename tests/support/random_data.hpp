// The random data of the fuzzer's operands and scalars: the one random source a case draws
// everything from, moderate values with special ones (NaN, infinities, signed zeros, denormals,
// the edges of each dtype's range) mixed in, of every dtype jet has, complex ones part by part;
// and the bytes an operand's values are as its dtype stores them.
#pragma once

#include "reference.hpp"  // per_dtype, visit_real

#include <jet/detail/rules.hpp>
#include <jet/dtype.hpp>

#include <complex>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

namespace jet::test {

/// The generator's random source: every choice of one expression comes from one engine.
class chooser {
 public:
  explicit chooser(std::uint64_t seed) : engine_(seed) {}
  /// An integer in [0, n).
  std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(engine_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(engine_) < p; }
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(engine_); }
  template <class C> const auto& pick(const C& c) { return *(std::begin(c) + below(std::size(c))); }

 private:
  std::mt19937_64 engine_;
};

/// Special values of each dtype, mixed into operand data and scalars: NaN, infinities, signed
/// zeros, denormals, huge and tiny magnitudes, the edges of float32 and of the integer ranges (and
/// of the narrower ones inside a wider integer's range).
inline const std::vector<long double>& special_values(dtype t) {
  static const auto table = per_dtype([](auto x) {
    using T = decltype(x);
    using L = std::numeric_limits<T>;
    std::vector<long double> v;
    if constexpr (std::is_same_v<T, bool>) {
      v = {0, 1};
    } else if constexpr (std::is_integral_v<T>) {
      for (long double c : {static_cast<long double>(L::lowest()),
                            static_cast<long double>(L::lowest()) + 1,
                            static_cast<long double>(L::max()),
                            static_cast<long double>(L::max()) - 1,
                            0.0L,
                            1.0L,
                            -1.0L,
                            2.0L,
                            -2.0L,
                            127.0L,
                            128.0L,
                            -129.0L,
                            255.0L,
                            256.0L,
                            32767.0L,
                            -32769.0L,
                            65535.0L,
                            65536.0L,
                            46341.0L,
                            2147483648.0L,
                            -2147483649.0L,
                            4294967295.0L,
                            4294967296.0L,
                            9007199254740993.0L,
                            -9007199254740993.0L,
                            3037000500.0L})
        if (c >= static_cast<long double>(L::lowest()) && c <= static_cast<long double>(L::max())) v.push_back(c);
    } else {
      v = {L::quiet_NaN(),
           L::infinity(),
           -L::infinity(),
           0.0L,
           -0.0L,
           L::denorm_min(),
           -L::denorm_min(),
           L::min(),
           L::min() / 4,
           L::max(),
           L::lowest(),
           1e30L,
           -1e30L,
           1e-30L,
           -1e-30L,
           88.72L,
           -103.9L,
           1e10L,
           0.5L,
           1,
           -1,
           2147483648.0L,
           -2147483648.0L,
           9223372036854775808.0L,
           -9223372036854775808.0L,
           65504.0L,
           65520.0L,
           3e-8L};
      if constexpr (sizeof(T) == 8) v.insert(v.end(), {1e300L, -1e300L, 1e-300L, 709.7L, 3.5e38L, -3.5e38L});
      for (long double& e : v) e = static_cast<T>(e);  // each as the dtype holds it
    }
    return v;
  });
  return table[static_cast<std::size_t>(t)];
}

/// v as dtype t holds it (for the values drawn here: rounded, for floating types).
inline long double held_as(dtype t, double v) {
  return visit_real(t, [&](auto x) { return static_cast<long double>(static_cast<decltype(x)>(v)); });
}

/// One random element value of dtype t: special with probability special_rate, else moderate:
/// floating in [-4, 4] (a fifth of them whole), signed integers in [-50, 50], unsigned ones in
/// [0, 100]; when `positive`, floating ones mostly in [0.1, 4) and integers in [1, 50], where
/// logarithms and roots are defined. Exact in long double for every dtype.
inline long double random_value(dtype t, chooser& c, double special_rate, bool positive) {
  if (c.chance(special_rate)) return c.pick(special_values(t));
  if (t == dtype::boolean) return c.below(2);
  if (!is_floating(t)) {
    if (positive) return 1 + static_cast<long double>(c.below(50));
    return static_cast<long double>(c.below(101)) - (detail::traits_of(t).is_signed ? 50 : 0);
  }
  const double v = c.chance(0.2) ? static_cast<double>(c.below(9)) - 4
                   : positive    ? c.uniform(0.1, 4)
                                 : c.uniform(-4, 4);
  return held_as(t, v);
}

/// One random element value of dtype t, as random_value draws one; a complex one has a random real
/// part (positive as asked) and imaginary part, each special with half the rate (about as many
/// elements have a special part as of a real dtype).
inline std::complex<long double> random_element(dtype t, chooser& c, double special_rate, bool positive) {
  if (!is_complex(t)) return random_value(t, c, special_rate, positive);
  const long double re = random_value(real_type(t), c, special_rate / 2, positive);
  return {re, random_value(real_type(t), c, special_rate / 2, false)};
}

/// Values of dtype t (each exact in it) as the bytes an array of t holds.
inline std::vector<unsigned char> bytes_of(dtype t, const std::vector<std::complex<long double>>& values) {
  std::vector<unsigned char> bytes(values.size() * size_of(t));
  const std::size_t part = is_complex(t) ? size_of(t) / 2 : size_of(t);
  visit_real(real_type(t), [&](auto x) {
    using T = decltype(x);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const T parts[] = {static_cast<T>(values[i].real()), static_cast<T>(values[i].imag())};
      std::memcpy(&bytes[i * size_of(t)], parts, is_complex(t) ? 2 * part : part);
    }
  });
  return bytes;
}

/// Element `index` of an array of dtype t held in `bytes`. A bool is read as its byte: anything but
/// 0 or 1 is wrong.
inline std::complex<long double> element_of(dtype t, const std::vector<unsigned char>& bytes, std::int64_t index) {
  if (t == dtype::boolean) return bytes[index];
  return visit_real(real_type(t), [&](auto x) {
    decltype(x) parts[2] = {};
    std::memcpy(parts, &bytes[index * size_of(t)], size_of(t));
    return std::complex<long double>(static_cast<long double>(parts[0]),
                                     is_complex(t) ? static_cast<long double>(parts[1]) : 0.0L);
  });
}

}  // namespace jet::test
