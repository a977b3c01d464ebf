// On the GPU: NumPy's integer, bitwise, logical and NaN-aware ops on every pair of extreme operands
// (the integer extremes, 0 and -1 divisors, shift counts -1, width and width + 1; NaN, ±0, ±inf
// and values around them), fused into one kernel per op, against the host references, which
// tests/test_numpy_ops.cpp pins to hand-written values. Floating results must have the reference's
// bits (signed zeros included) where the op is exact, and be within CUDA's pow bound for power.
// divmod, modf and frexp write two outputs through jet::tie.
#include "support/catch.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace {

template <class T> constexpr T lowest = std::numeric_limits<T>::lowest();
template <class T> constexpr T highest = std::numeric_limits<T>::max();

// Integer operands that reach every case: the extremes, small values of both signs (of an
// unsigned type, values near its highest), and the shift counts -1, width - 1, width and width + 1.
template <class T> std::vector<T> integer_values() {
  constexpr T width = T(8 * sizeof(T));
  std::vector<T> v = {lowest<T>, T(lowest<T> + 1), T(highest<T> - 1), highest<T>, T(width - 1), width, T(width + 1)};
  for (const int small : {0, 1, 2, 3, 7, 12, -1, -2, -3, -7, -12}) v.push_back(T(small));
  return v;
}

template <class F> std::vector<F> floating_values() {
  using L = std::numeric_limits<F>;
  std::vector<F> v = {L::quiet_NaN(), L::infinity(), -L::infinity(), L::denorm_min(), L::max(), L::lowest()};
  for (const double moderate : {0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 5.5, -5.5, 0.1}) v.push_back(F(moderate));
  return v;
}

// Whether got is want: equal bits for floats (any NaN for a NaN), or, with `signed_zeros` false,
// equal values, or, with `ulps`, a finite want within that many epsilons of it (and the smallest
// subnormal); integers equal.
template <class T> bool same(T got, T want, bool signed_zeros, double ulps) {
  if constexpr (std::is_floating_point_v<T>) {
    using L = std::numeric_limits<T>;
    if (std::isnan(want)) return std::isnan(got);
    if (got == want) return !signed_zeros || std::signbit(got) == std::signbit(want);
    return std::isfinite(want) && std::fabs(got - want) <= ulps * L::epsilon() * std::fabs(want) + L::denorm_min();
  } else {
    return got == want;
  }
}

// Counts the elements where got differs from want(i), printing the first few.
template <class T, class F> std::size_t differences(const char* what, const std::vector<T>& got, F want,
                                                    bool signed_zeros = true, double ulps = 0) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto w = static_cast<T>(want(i));
    if (!same(got[i], w, signed_zeros, ulps) && bad++ < 5)
      std::printf("  %s, element %zu: got %.17g, want %.17g\n", what, i, static_cast<double>(got[i]),
                  static_cast<double>(w));
  }
  return bad;
}

// Each value as many times in a row as there are values (each), or the values in turn as many
// times: the two give every pair.
template <class T> std::vector<T> repeated(const std::vector<T>& values, bool each) {
  std::vector<T> v;
  for (std::size_t i = 0; i < values.size() * values.size(); ++i)
    v.push_back(values[each ? i / values.size() : i % values.size()]);
  return v;
}

// Every pair of values as two arrays: a[i], b[i].
template <class T> struct pairs {
  std::vector<T> ha, hb;
  jet::array<T> a, b;
  explicit pairs(const std::vector<T>& values)
      : ha(repeated(values, true)), hb(repeated(values, false)), a(jet::from_host(ha)), b(jet::from_host(hb)) {}
  template <class Op> auto want2() const {
    return [this](std::size_t i) { return Op::reference(ha[i], hb[i]); };
  }
  template <class Op> auto want1() const {
    return [this](std::size_t i) { return Op::reference(ha[i]); };
  }
};

template <class R, class E> std::vector<R> computed(const E& e) { return jet::array<R>(e).to_host(); }

template <class T> void check_integer_ops() {
  const pairs<T> p(integer_values<T>());
  const auto &a = p.a, &b = p.b;
  namespace ops = jet::ops;
  CHECK(differences("a % b", computed<T>(a % b), p.template want2<ops::fmod>()) == 0);
  CHECK(differences("remainder", computed<T>(jet::remainder(a, b)), p.template want2<ops::remainder>()) == 0);
  CHECK(differences("floor_divide", computed<T>(jet::floor_divide(a, b)), p.template want2<ops::floor_divide>()) == 0);
  CHECK(differences("true_divide", computed<double>(jet::true_divide(a, b)),
                    [&](std::size_t i) { return static_cast<double>(p.ha[i]) / static_cast<double>(p.hb[i]); }) == 0);
  CHECK(differences("power", computed<T>(jet::power(a, b)), p.template want2<ops::power>()) == 0);
  CHECK(differences("gcd", computed<T>(jet::gcd(a, b)), p.template want2<ops::gcd>()) == 0);
  CHECK(differences("lcm", computed<T>(jet::lcm(a, b)), p.template want2<ops::lcm>()) == 0);
  CHECK(differences("a | b", computed<T>(a | b), p.template want2<ops::bitwise_or>()) == 0);
  CHECK(differences("a ^ b", computed<T>(a ^ b), p.template want2<ops::bitwise_xor>()) == 0);
  CHECK(differences("a << b", computed<T>(a << b), p.template want2<ops::left_shift>()) == 0);
  CHECK(differences("a >> b", computed<T>(a >> b), p.template want2<ops::right_shift>()) == 0);
  CHECK(differences("maximum", computed<T>(jet::maximum(a, b)), p.template want2<ops::maximum>()) == 0);
  CHECK(differences("minimum", computed<T>(jet::minimum(a, b)), p.template want2<ops::minimum>()) == 0);
  CHECK(differences("a && b", computed<bool>(a && b), p.template want2<ops::logical_and>()) == 0);
  CHECK(differences("logical_xor", computed<bool>(jet::logical_xor(a, b)), p.template want2<ops::logical_xor>()) == 0);
  CHECK(differences("~a", computed<T>(~a), p.template want1<ops::bitwise_not>()) == 0);
  CHECK(differences("square", computed<T>(jet::square(a)), p.template want1<ops::square>()) == 0);
  CHECK(differences("reciprocal", computed<T>(jet::reciprocal(a)), p.template want1<ops::reciprocal>()) == 0);
  CHECK(differences("sign", computed<T>(jet::sign(a)), p.template want1<ops::sign>()) == 0);
  CHECK(differences("bitwise_count", computed<std::uint8_t>(jet::bitwise_count(a)),
                    p.template want1<ops::bitwise_count>()) == 0);
  CHECK(differences("!a", computed<bool>(!a), p.template want1<ops::logical_not>()) == 0);
  // Fused into a wider type in the same kernel, each result is its own type's first.
  CHECK(differences("cast<int64_t>(a << b)", computed<std::int64_t>(jet::cast<std::int64_t>(a << b)),
                    p.template want2<ops::left_shift>()) == 0);
  CHECK(differences("cast<int64_t>(power(a, b))", computed<std::int64_t>(jet::cast<std::int64_t>(jet::power(a, b))),
                    p.template want2<ops::power>()) == 0);
}

template <class F> void check_floating_ops() {
  const pairs<F> p(floating_values<F>());
  const auto &a = p.a, &b = p.b;
  namespace ops = jet::ops;
  // fmod, floor and copysign are exact, and division is correctly rounded: the reference's bits.
  CHECK(differences("a % b", computed<F>(a % b), p.template want2<ops::fmod>()) == 0);
  CHECK(differences("remainder", computed<F>(jet::remainder(a, b)), p.template want2<ops::remainder>()) == 0);
  CHECK(differences("floor_divide", computed<F>(jet::floor_divide(a, b)), p.template want2<ops::floor_divide>()) == 0);
  CHECK(differences("true_divide", computed<F>(jet::true_divide(a, b)), p.template want2<ops::true_divide>()) == 0);
  // CUDA's max and min may order -0.0 and +0.0 either way.
  CHECK(differences("maximum", computed<F>(jet::maximum(a, b)), p.template want2<ops::maximum>(), false) == 0);
  CHECK(differences("minimum", computed<F>(jet::minimum(a, b)), p.template want2<ops::minimum>(), false) == 0);
  CHECK(differences("fmax", computed<F>(jet::fmax(a, b)), p.template want2<ops::max>(), false) == 0);
  CHECK(differences("fmin", computed<F>(jet::fmin(a, b)), p.template want2<ops::min>(), false) == 0);
  // clip, NumPy's: a NaN bound gives NaN, lo > hi gives hi.
  const auto clipped = [&](std::size_t i, F lo, F hi) {
    return ops::minimum::reference(ops::maximum::reference(p.ha[i], lo), hi);
  };
  CHECK(differences(
            "clip(a, b, 2)", computed<F>(jet::clip(a, b, F(2))),
            [&](std::size_t i) { return clipped(i, p.hb[i], F(2)); }, false) == 0);
  CHECK(differences(
            "clip(a, 2, b)", computed<F>(jet::clip(a, F(2), b)),
            [&](std::size_t i) { return clipped(i, F(2), p.hb[i]); }, false) == 0);
  CHECK(differences("a || b", computed<bool>(a || b), p.template want2<ops::logical_or>()) == 0);
  CHECK(differences("sign", computed<F>(jet::sign(a)), p.template want1<ops::sign>()) == 0);
  CHECK(differences("square", computed<F>(jet::square(a)), p.template want1<ops::square>()) == 0);
  CHECK(differences("reciprocal", computed<F>(jet::reciprocal(a)), p.template want1<ops::reciprocal>()) == 0);
  CHECK(differences("!a", computed<bool>(!a), p.template want1<ops::logical_not>()) == 0);
  // nextafter and spacing step by the dtype's own ulps: exact, against references in F.
  CHECK(differences("nextafter", computed<F>(jet::nextafter(a, b)), p.template want2<ops::nextafter>()) == 0);
  CHECK(differences("spacing", computed<F>(jet::spacing(a)), p.template want1<ops::spacing>()) == 0);
  // power is CUDA's pow: within 4 ulp (CUDA's bound for powf; pow's is 2), exact at its special values.
  CHECK(differences("power", computed<F>(jet::power(a, b)), p.template want2<ops::power>(), false, 4) == 0);
}

// A poisoned output of n elements: every element must be written.
template <class T> jet::array<T> poisoned(std::size_t n) {
  return jet::full<T>(jet::shape::of_size(n), std::is_floating_point_v<T> ? T(-12345.5) : T(-99));
}

// divmod, modf and frexp through jet::tie, one kernel each, against <cmath> in T's own precision
// (all three are exact). Integers and bool compute modf and frexp in float64.
template <class T> void check_two_outputs(const std::vector<T>& values) {
  using F = std::conditional_t<std::is_floating_point_v<T>, T, double>;
  const pairs<T> p(values);
  const std::size_t n = p.ha.size();
  namespace ops = jet::ops;
  const auto before = jet::stats().launches;
  jet::array<T> quotient = poisoned<T>(n), remainder = poisoned<T>(n);
  jet::array<F> fraction = poisoned<F>(n), whole = poisoned<F>(n), mantissa = poisoned<F>(n);
  jet::array<std::int32_t> exponent = poisoned<std::int32_t>(n);
  const auto launches = jet::stats().launches;
  jet::tie(quotient, remainder) = jet::divmod(p.a, p.b);
  jet::tie(fraction, whole) = jet::modf(p.a);
  jet::tie(mantissa, exponent) = jet::frexp(p.a);
  CHECK(jet::stats().launches - launches == 3);
  CHECK(launches - before == 6);  // the poisoning
  auto operand = [&](std::size_t i) { return static_cast<F>(p.ha[i]); };
  CHECK(differences("divmod's quotient", quotient.to_host(), p.template want2<ops::floor_divide>()) == 0);
  CHECK(differences("divmod's remainder", remainder.to_host(), p.template want2<ops::remainder>()) == 0);
  CHECK(differences("modf's fraction", fraction.to_host(), [&](std::size_t i) {
          F w;
          return std::modf(operand(i), &w);
        }) == 0);
  CHECK(differences("modf's whole part", whole.to_host(), [&](std::size_t i) {
          F w;
          std::modf(operand(i), &w);
          return w;
        }) == 0);
  CHECK(differences("frexp's mantissa", mantissa.to_host(), [&](std::size_t i) {
          int e;
          return std::isfinite(operand(i)) ? std::frexp(operand(i), &e) : operand(i);
        }) == 0);
  CHECK(differences("frexp's exponent", exponent.to_host(), [&](std::size_t i) {
          int e = 0;
          if (std::isfinite(operand(i))) std::frexp(operand(i), &e);
          return e;
        }) == 0);
}

}  // namespace

TEST_CASE("divmod, modf and frexp: two outputs of one kernel through jet::tie, on the GPU", "[gpu][semantics]") {
  check_two_outputs(floating_values<float>());
  check_two_outputs(floating_values<double>());
  check_two_outputs(integer_values<std::int32_t>());
  check_two_outputs(integer_values<std::uint8_t>());
}

TEST_CASE("NumPy's integer ops on every pair of extremes, divisors and shift counts, on the GPU",
          "[gpu][semantics][sanitize]") {
  check_integer_ops<std::int8_t>();
  check_integer_ops<std::uint8_t>();
  check_integer_ops<std::int16_t>();
  check_integer_ops<std::int32_t>();
  check_integer_ops<std::uint32_t>();
  check_integer_ops<std::int64_t>();
  check_integer_ops<std::uint64_t>();
}

TEST_CASE("NumPy's floating %, floor_divide, remainder, maximum and minimum on NaN, ±0 and ±inf, on the GPU",
          "[gpu][semantics][sanitize]") {
  check_floating_ops<float>();
  check_floating_ops<double>();
}

TEST_CASE("bool: ~ is logical not, | ^ are or and xor, logical ops give bool, on the GPU", "[gpu][semantics]") {
  const std::vector<bool> ha = {false, false, true, true}, hb = {false, true, false, true};
  const jet::array<bool> a = jet::from_host(ha), b = jet::from_host(hb);
  CHECK(computed<bool>(~a) == std::vector<bool>{true, true, false, false});
  CHECK(computed<bool>(a | b) == std::vector<bool>{false, true, true, true});
  CHECK(computed<bool>(a ^ b) == std::vector<bool>{false, true, true, false});
  CHECK(computed<bool>(!a || b) == std::vector<bool>{true, true, false, true});
  CHECK(computed<bool>(jet::logical_xor(a, b) == (a != b)) == std::vector<bool>{true, true, true, true});
  CHECK(computed<std::int32_t>(a << b) == std::vector<std::int32_t>{0, 0, 1, 2});  // bool shifts as int32
  CHECK(computed<std::uint8_t>(jet::bitwise_count(a)) == std::vector<std::uint8_t>{0, 0, 1, 1});
}
