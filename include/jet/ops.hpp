// Expands the op table (ops.def) into op tags, the public functions and operators, and the list of
// all ops.
#pragma once

#include <jet/expr.hpp>
#include <jet/host_math.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <type_traits>

namespace jet {

/// Host math with the device's semantics where C++ spells it differently, or leaves it undefined
/// (signed overflow, x / 0, out-of-range float-to-integer conversion): the op table's host
/// references, defined for every operand (see ops.def).
namespace host {
template <class T> inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// Two's complement arithmetic: computed on 64-bit unsigned integers, where it wraps, and
/// converted back modulo 2^n (as C++20 defines it).
template <class T> constexpr std::uint64_t bits(T a) { return static_cast<std::uint64_t>(a); }
template <class T> constexpr T add(T a, T b) {
  if constexpr (is_integer_v<T>)
    return static_cast<T>(bits(a) + bits(b));
  else
    return a + b;
}
template <class T> constexpr T subtract(T a, T b) {
  if constexpr (is_integer_v<T>)
    return static_cast<T>(bits(a) - bits(b));
  else
    return a - b;
}
template <class T> constexpr T multiply(T a, T b) {
  if constexpr (is_integer_v<T>)
    return static_cast<T>(bits(a) * bits(b));
  else
    return a * b;
}
template <class T> constexpr T negate(T a) {
  if constexpr (is_integer_v<T>)
    return static_cast<T>(0 - bits(a));
  else
    return -a;
}
/// Integer division truncates; x / 0 is 0 and lowest / -1 wraps to lowest.
template <class T> constexpr T divide(T a, T b) {
  if constexpr (is_integer_v<T>) {
    if (b == 0) return 0;
    if (std::is_signed_v<T> && b == static_cast<T>(-1)) return negate(a);
  }
  return a / b;
}
/// abs(lowest) wraps to lowest.
template <class T> constexpr T abs(T a) {
  if constexpr (is_integer_v<T>)
    return a < 0 ? negate(a) : a;
  else
    return std::abs(a);
}
template <class T> constexpr T fmin(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return std::fmin(a, b);
  else
    return std::min(a, b);
}
template <class T> constexpr T fmax(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return std::fmax(a, b);
  else
    return std::max(a, b);
}
/// Whether a is below 0 (never, for an unsigned type: no comparison for the compiler to flag).
template <class T> constexpr bool negative(T a) {
  if constexpr (std::is_signed_v<T>)
    return a < 0;
  else
    return false;
}
/// |a| as 64-bit unsigned: |lowest| = 2^(n-1) fits.
template <class T> constexpr std::uint64_t magnitude(T a) { return negative(a) ? 0 - bits(a) : bits(a); }
/// C's remainder of truncating division (fmod's, and C++'s % on integers): the dividend's sign.
/// x % 0 is 0 and lowest % -1 is 0, where C++ leaves both undefined.
template <class T> constexpr T fmod(T a, T b) {
  if constexpr (is_integer_v<T>) {
    if (b == 0 || (std::is_signed_v<T> && b == static_cast<T>(-1))) return 0;
    return static_cast<T>(a % b);
  } else {
    return std::fmod(a, b);
  }
}
template <class T> struct floor_division { T quotient, remainder; };
/// Python's floor division and remainder, as NumPy has them: the quotient rounded toward -inf,
/// the remainder with the divisor's sign. Integers: x // 0 and x % 0 are 0 (NumPy's, with a
/// warning there), lowest // -1 wraps to lowest. Floats, NumPy's npy_divmod: b == 0 gives a / b
/// and fmod's NaN; otherwise the quotient of the exact a - fmod(a, b), snapped to a whole
/// number, a zero remainder signed as b and a zero quotient as a / b.
template <class T> floor_division<T> floor_divmod(T a, T b) {
  if constexpr (is_integer_v<T>) {
    const T q = divide(a, b), r = fmod(a, b);
    if (r == 0 || (r > 0) == (b > 0)) return {q, r};
    return {static_cast<T>(q - 1), static_cast<T>(r + b)};  // neither wraps: r and b differ in sign
  } else {
    const T m = std::fmod(a, b);
    if (b == 0) return {static_cast<T>(a / b), m};
    T q = (a - m) / b, r = m;
    if (m == 0) {
      r = std::copysign(T(0), b);
    } else if ((m < 0) != (b < 0)) {
      r = m + b;
      q = q - 1;
    }
    if (q == 0) return {static_cast<T>(std::copysign(T(0), a / b)), r};
    const T whole = std::floor(q);
    return {q - whole > T(0.5) ? static_cast<T>(whole + 1) : whole, r};
  }
}
/// 1 / a; on integers truncated as integer division is (NumPy's integer reciprocal): a for 1 and
/// -1, else 0, and 0 for 0 (as x / 0).
template <class T> constexpr T reciprocal(T a) {
  if constexpr (is_integer_v<T>)
    return a == 1 || (std::is_signed_v<T> && a == static_cast<T>(-1)) ? a : 0;
  else
    return 1 / a;
}
/// -1, 0 or 1 by a's sign; NaN for NaN, +0 for ±0.
template <class T> constexpr T sign(T a) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a)) return a;
  return a > 0 ? T(1) : a == 0 ? T(0) : static_cast<T>(-1);
}
/// NumPy's power. Floats: std::pow. Integers: exact, wrapping in T. A negative exponent, which
/// NumPy refuses and a kernel cannot, gives 1 / a^|b| truncated as integer division is: 1 for
/// a == 1, 1 or -1 for a == -1 (by b's parity), 0 for any other a (for 0, as x / 0 is 0).
template <class T> constexpr T power(T a, T b) {
  if constexpr (is_integer_v<T>) {
    if (negative(b)) return a == 1 || a == static_cast<T>(-1) ? static_cast<T>(b % 2 == 0 ? 1 : a) : 0;
    std::uint64_t r = 1;  // the exponent's bits from the highest: r = r^2, times a for a 1
    for (int k = 63; k >= 0; --k) r = (bits(b) >> k & 1) ? r * r * bits(a) : r * r;
    return static_cast<T>(r);
  } else {
    return std::pow(a, b);
  }
}
/// NumPy's gcd and lcm, of |a| and |b|: never negative but where the result wraps (gcd(lowest, 0)
/// is lowest, an lcm past the type's range wraps); gcd(0, 0) and lcm(a, 0) are 0.
template <class T> constexpr T gcd(T a, T b) { return static_cast<T>(std::gcd(magnitude(a), magnitude(b))); }
template <class T> constexpr T lcm(T a, T b) {
  const std::uint64_t x = magnitude(a), y = magnitude(b), g = std::gcd(x, y);
  return static_cast<T>(g == 0 ? 0 : x / g * y);
}
/// ~a; on bool, logical not (NumPy's invert).
template <class T> constexpr T bitwise_not(T a) {
  if constexpr (std::is_same_v<T, bool>)
    return !a;
  else
    return static_cast<T>(~a);
}
/// NumPy's shifts, defined for every count: one of at least T's width, or a negative one, shifts
/// every bit out, giving 0, or -1 for a negative value shifted right (its sign bit fills it).
template <class T> constexpr bool shifts_out(T count) { return negative(count) || count >= T(8 * sizeof(T)); }
template <class T> constexpr T left_shift(T a, T count) {
  return shifts_out(count) ? T(0) : static_cast<T>(bits(a) << count);
}
template <class T> constexpr T right_shift(T a, T count) {
  if (shifts_out(count)) return negative(a) ? static_cast<T>(-1) : T(0);
  return static_cast<T>(a >> count);  // arithmetic for a signed a, as C++20 defines it
}
/// The 1 bits of |a| (NumPy's bitwise_count).
template <class T> constexpr std::uint8_t bitwise_count(T a) {
  return static_cast<std::uint8_t>(std::popcount(magnitude(a)));
}
/// Philox4x32-10 of a 128-bit counter under a 64-bit key: the four output words.
constexpr std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> c, std::uint64_t key) {
  std::uint32_t k0 = static_cast<std::uint32_t>(key), k1 = static_cast<std::uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{0xD2511F53} * c[0], p1 = std::uint64_t{0xCD9E8D57} * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<std::uint32_t>(p0)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}
/// The first Philox word of `counter` under `seed` as a float in (0, 1]: 24 random bits.
inline float philox_uniform(std::int64_t counter, std::int64_t seed) {
  const auto u = static_cast<std::uint64_t>(counter);
  const std::uint32_t word = philox4x32({static_cast<std::uint32_t>(u), static_cast<std::uint32_t>(u >> 32), 0, 0},
                                        static_cast<std::uint64_t>(seed))[0];
  return static_cast<float>((word >> 8) + 1) * (1.0f / 16777216.0f);
}
/// x < lo ? lo : (hi < x ? hi : x), for any lo and hi (std::clamp requires lo <= hi).
template <class T> constexpr T clamp(T x, T lo, T hi) { return x < lo ? lo : (hi < x ? hi : x); }

/// v converted to To as jet converts: floating to integer truncates toward zero, saturates to
/// To's range and takes NaN to 0; every other conversion is C++'s.
template <class To, class From> constexpr To convert(From v) {
  if constexpr (is_integer_v<To> && std::is_floating_point_v<From>) {
    // lowest (-2^digits or 0) and highest + 1 (2^digits) are exact in From; in between, the
    // truncated value fits.
    constexpr From past_highest = [] {
      From p = 1;
      for (int k = 0; k < std::numeric_limits<To>::digits; ++k) p *= 2;
      return p;
    }();
    if (std::isnan(v)) return 0;
    if (v <= static_cast<From>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (v >= past_highest) return std::numeric_limits<To>::max();
  }
  return static_cast<To>(v);
}
/// The least and greatest values of T, -inf and +inf for a float: where max and min start.
template <class T> constexpr T least() {
  if constexpr (std::numeric_limits<T>::has_infinity)
    return -std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::lowest();
}
template <class T> constexpr T greatest() {
  if constexpr (std::numeric_limits<T>::has_infinity)
    return std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::max();
}
/// `value`, unless a or b is NaN: then that NaN (the max and min reductions propagate NaN).
template <class T> constexpr T nan_or(T a, T b, T value) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return value;
}
/// The arg reductions' host accumulator: a value and its index (no_index: none yet, after every
/// index).
template <class V> struct indexed {
  using value = V;
  V v;
  std::int64_t i;
};
inline constexpr std::int64_t no_index = std::numeric_limits<std::int64_t>::max();
/// Of a and b, a NaN (the first of two), else the one `better` orders first, else the first index.
template <class V, class Better> constexpr indexed<V> first_best(indexed<V> a, indexed<V> b, Better better) {
  if constexpr (std::is_floating_point_v<V>) {
    const bool a_nan = std::isnan(a.v), b_nan = std::isnan(b.v);
    if (a_nan && b_nan) return a.i < b.i ? a : b;
    if (a_nan || b_nan) return a_nan ? a : b;
  }
  if (better(a.v, b.v)) return a;
  if (better(b.v, a.v)) return b;
  return a.i < b.i ? a : b;
}
/// The parts of a complex value; a real value is its own real part, with imaginary part 0.
template <class T> constexpr auto real_part(T a) {
  if constexpr (detail::is_complex_type<T>::value)
    return a.real();
  else
    return a;
}
template <class T> constexpr auto imaginary_part(T a) {
  if constexpr (detail::is_complex_type<T>::value)
    return a.imag();
  else
    return T(0);
}
template <class T> constexpr T conjugate(T a) {
  if constexpr (detail::is_complex_type<T>::value)
    return std::conj(a);
  else
    return a;
}
/// |a|^2: re^2 + im^2 of a complex value, a * a of a real one (wrapping for an integer).
template <class T> constexpr auto squared_magnitude(T a) {
  if constexpr (detail::is_complex_type<T>::value)
    return a.real() * a.real() + a.imag() * a.imag();
  else
    return multiply(a, a);
}
/// The phase: atan2(im, re), so that a real value's is 0 or pi by its sign bit (NaN for NaN).
template <class T> auto angle(T a) {
  if constexpr (detail::is_complex_type<T>::value)
    return std::arg(a);
  else
    return std::atan2(T(0), a);
}
/// NumPy's maximum and minimum: a NaN operand propagates (fmax and fmin ignore it).
template <class T> constexpr T maximum(T a, T b) { return nan_or(a, b, a < b ? b : a); }
template <class T> constexpr T minimum(T a, T b) { return nan_or(a, b, b < a ? b : a); }
}  // namespace host

/// One tag type per op. `reference` is the op's host reference, called with operands already
/// converted to the node's operand types.
namespace ops {
#define JET_OP_TAG(tag_, fn_, rule_, domain_, arity_, params_, body_)                            \
  struct tag_ {                                                                                  \
    static constexpr detail::op_id id = detail::op_id::tag_;                                     \
    static constexpr detail::rule rule = detail::rule::rule_;                                    \
    static constexpr detail::domain domain = detail::domain::domain_;                            \
    static constexpr dtype target = dtype::boolean; /* read by the target rule only */           \
    static constexpr int arity = arity_;                                                         \
    static constexpr const char* name = #tag_;                                                   \
    template <class A, class B = A, class C = A> static auto reference params_ { return body_; } \
  };
#define JET_OP1(tag, fn, rule, domain, values, cuda, host) JET_OP_TAG(tag, fn, rule, domain, 1, (A a), host)
#define JET_OP2(tag, fn, rule, domain, values, cuda, host) JET_OP_TAG(tag, fn, rule, domain, 2, (A a, B b), host)
#define JET_OP3(tag, fn, rule, domain, values, cuda, host) JET_OP_TAG(tag, fn, rule, domain, 3, (A a, B b, C c), host)
#include <jet/ops.def>
#undef JET_OP1
#undef JET_OP2
#undef JET_OP3
#undef JET_OP_TAG

/// A target-rule op (cast) with its target type.
template <class Op, class To> struct converting : Op { static constexpr dtype target = dtype_of<To>(); };

/// Every op tag, in table order: the tests walk this list, so an op added to the table is tested.
template <class F> constexpr void for_each_op(F&& f) {
#define JET_OP1(tag, ...) f(tag{});
#define JET_OP2 JET_OP1
#define JET_OP3 JET_OP1
#include <jet/ops.def>
#undef JET_OP1
#undef JET_OP2
#undef JET_OP3
}
}  // namespace ops

// The public functions and operators. The target rule takes the target type at the call:
// cast<double>(x). Each builds its node itself (JET_DETAIL_BUILDn says why).
#define JET_DEFINE_OP1_plain(tag, fn)          \
  template <jet_operand A> auto fn(A&& a) {    \
    using node = detail::apply_t<ops::tag, A>; \
    JET_DETAIL_BUILD1(node, (A, a));           \
  }
#define JET_DEFINE_OP1_arith JET_DEFINE_OP1_plain
#define JET_DEFINE_OP1_same JET_DEFINE_OP1_plain
#define JET_DEFINE_OP1_floating JET_DEFINE_OP1_plain
#define JET_DEFINE_OP1_compare JET_DEFINE_OP1_plain
#define JET_DEFINE_OP1_count JET_DEFINE_OP1_plain
#define JET_DEFINE_OP1_magnitude JET_DEFINE_OP1_plain
#define JET_DEFINE_OP1_phase JET_DEFINE_OP1_plain
#define JET_DEFINE_OP1_target(tag, fn)                              \
  template <class To, jet_operand A> auto fn(A&& a) {               \
    using node = detail::apply_t<ops::converting<ops::tag, To>, A>; \
    JET_DETAIL_BUILD1(node, (A, a));                                \
  }
#define JET_DEFINE_OP2(tag, fn)                   \
  template <class A, class B>                     \
  requires operands<A, B>                         \
  auto fn(A&& a, B&& b) {                         \
    using node = detail::apply_t<ops::tag, A, B>; \
    JET_DETAIL_BUILD2(node, (A, a), (B, b));      \
  }
#define JET_DEFINE_OP3(tag, fn)                      \
  template <class A, class B, class C>               \
  requires operands<A, B, C>                         \
  auto fn(A&& a, B&& b, C&& c) {                     \
    using node = detail::apply_t<ops::tag, A, B, C>; \
    JET_DETAIL_BUILD3(node, (A, a), (B, b), (C, c)); \
  }
#define JET_OP1(tag, fn, rule, ...) JET_DEFINE_OP1_##rule(tag, fn)
#define JET_OP2(tag, fn, ...) JET_DEFINE_OP2(tag, fn)
#define JET_OP3(tag, fn, ...) JET_DEFINE_OP3(tag, fn)
#include <jet/ops.def>
#undef JET_OP1
#undef JET_OP2
#undef JET_OP3

/// NumPy's clip: minimum(maximum(a, lo), hi), so a NaN operand or bound gives NaN and lo > hi
/// gives hi; clamp (the op) keeps a where a bound is NaN and gives lo for a < lo.
template <class A, class L, class H>
requires operands<A, L> && operands<A, H>
auto clip(A&& a, L&& lo, H&& hi) {
  return minimum(maximum(std::forward<A>(a), std::forward<L>(lo)), std::forward<H>(hi));
}

// NumPy's (and C's) other names of ops of the table, each building the op's own node: fmax and
// fmin are max and min (a NaN operand ignored; maximum and minimum propagate it), mod is
// remainder, divide is true_divide (integers divide to float64, where the operator / truncates),
// conjugate is conj, arg is angle (C++'s name), and the operators have their ufuncs' names, but for
// less, less_equal, greater and greater_equal: under `using namespace std` such functions would
// make std::less and its kin ambiguous (write < <= > >=).
// One definition a line, as in the table:
// clang-format off
JET_DEFINE_OP2(max, fmax)
JET_DEFINE_OP2(min, fmin)
JET_DEFINE_OP2(remainder, mod)
JET_DEFINE_OP2(fmod, fmod)
JET_DEFINE_OP2(true_divide, divide)
JET_DEFINE_OP2(add, add)
JET_DEFINE_OP2(sub, subtract)
JET_DEFINE_OP2(mul, multiply)
JET_DEFINE_OP1_plain(neg, negative)
JET_DEFINE_OP1_plain(abs, absolute)
JET_DEFINE_OP1_plain(conj, conjugate)
JET_DEFINE_OP1_plain(angle, arg)
JET_DEFINE_OP2(equal, equal)
JET_DEFINE_OP2(not_equal, not_equal)
JET_DEFINE_OP1_plain(asin, arcsin)
JET_DEFINE_OP1_plain(acos, arccos)
JET_DEFINE_OP1_plain(atan, arctan)
JET_DEFINE_OP2(atan2, arctan2)
JET_DEFINE_OP1_plain(asinh, arcsinh)
JET_DEFINE_OP1_plain(acosh, arccosh)
JET_DEFINE_OP1_plain(atanh, arctanh)
JET_DEFINE_OP1_plain(bitwise_not, invert)
JET_DEFINE_OP2(bitwise_and, bitwise_and)
JET_DEFINE_OP2(bitwise_or, bitwise_or)
JET_DEFINE_OP2(bitwise_xor, bitwise_xor)
JET_DEFINE_OP1_plain(bitwise_not, bitwise_not)
JET_DEFINE_OP2(left_shift, left_shift)
JET_DEFINE_OP2(right_shift, right_shift)
JET_DEFINE_OP2(logical_and, logical_and)
JET_DEFINE_OP2(logical_or, logical_or)
JET_DEFINE_OP1_plain(logical_not, logical_not)
// clang-format on
#undef JET_DEFINE_OP1_plain
#undef JET_DEFINE_OP1_arith
#undef JET_DEFINE_OP1_same
#undef JET_DEFINE_OP1_floating
#undef JET_DEFINE_OP1_compare
#undef JET_DEFINE_OP1_count
#undef JET_DEFINE_OP1_magnitude
#undef JET_DEFINE_OP1_phase
#undef JET_DEFINE_OP1_target
#undef JET_DEFINE_OP2
#undef JET_DEFINE_OP3

}  // namespace jet
