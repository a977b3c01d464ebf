// check_every_op's definition, for the every_op_*.cpp files that instantiate it (every_op.hpp).
#pragma once

#include "catch.hpp"
#include "every_op.hpp"
#include "gpu_check.hpp"
#include "op_accuracy.hpp"
#include "operands.hpp"
#include "reference.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <type_traits>
#include <vector>

namespace jet::test {
namespace every_op_detail {

struct range {
  double lo, hi;
  bool zero_one = false;  // a condition: 0 or 1
};

// Operand ranges where the ops are defined and well conditioned, per kind of operand type. A shift
// count runs from -2 past 64, the widest width: negative counts, 0 .. width - 1, the width and
// beyond (only integers shift).
struct ranges {
  range any, positive, divisor, pow_base, pow_exponent, exp_argument, clamp_low, clamp_high;
  range unit, probability, erfc_argument, above_one;  // (-1, 1), (0, 1), (0, 2), [1, 10]
  range shift_count;
};
constexpr ranges floating_ranges{{-4, 4},  {0.1, 10},     {0.5, 2},     {0.5, 2},     {-3, 3}, {-4, 4}, {-2, -0.5},
                                 {0.5, 2}, {-0.99, 0.99}, {0.01, 0.99}, {0.01, 1.99}, {1, 10}, {0, 0}};
constexpr ranges signed_ranges{{-50, 50}, {1, 50}, {1, 20}, {1, 5}, {-3, 3}, {-20, 20}, {-20, -1},
                               {1, 20},   {-1, 1}, {0, 1},  {0, 2}, {1, 10}, {-2, 66}};
constexpr ranges unsigned_ranges{{0, 100}, {1, 50}, {1, 20}, {1, 5}, {0, 3},  {0, 20}, {0, 20},
                                 {21, 50}, {0, 1},  {0, 1},  {0, 2}, {1, 10}, {0, 66}};
constexpr ranges bool_ranges{{0, 1}, {1, 1}, {1, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 0},
                             {1, 1}, {0, 1}, {0, 1}, {0, 1}, {1, 1}, {0, 1}};

template <class T> constexpr const ranges& ranges_for() {
  if constexpr (std::is_same_v<T, bool>)
    return bool_ranges;
  else if constexpr (std::is_unsigned_v<T>)
    return unsigned_ranges;
  else if constexpr (std::is_integral_v<T>)
    return signed_ranges;
  else
    return floating_ranges;
}

// The operands' ranges of each kind of test values of the op table (ops.def).
using operand_ranges = std::array<range, 3>;
inline operand_ranges any_values(const ranges& r) { return {r.any, r.any, r.any}; }
inline operand_ranges positive_values(const ranges& r) { return {r.positive, r.any, r.any}; }
inline operand_ranges divisor_values(const ranges& r) { return {r.any, r.divisor, r.any}; }
inline operand_ranges exponent_values(const ranges& r) { return {r.exp_argument, r.any, r.any}; }
inline operand_ranges power_values(const ranges& r) { return {r.pow_base, r.pow_exponent, r.any}; }
inline operand_ranges condition_values(const ranges& r) { return {range{0, 1, true}, r.any, r.any}; }
inline operand_ranges clamp_values(const ranges& r) { return {r.any, r.clamp_low, r.clamp_high}; }
inline operand_ranges unit_values(const ranges& r) { return {r.unit, r.any, r.any}; }
inline operand_ranges probability_values(const ranges& r) { return {r.probability, r.any, r.any}; }
inline operand_ranges erfc_argument_values(const ranges& r) { return {r.erfc_argument, r.any, r.any}; }
inline operand_ranges above_one_values(const ranges& r) { return {r.above_one, r.any, r.any}; }
inline operand_ranges shift_values(const ranges& r) { return {r.any, r.shift_count, r.any}; }
inline operand_ranges truth_values(const ranges&) { return {range{0, 1, true}, range{0, 1, true}, range{0, 1, true}}; }

// Each operand's range for op on operands of type T: the op table's test values column.
template <class T> operand_ranges ranges_for(jet::detail::op_id op) {
  switch (op) {
#define JET_OP1(tag, fn, rule, domain, values, ...) \
  case jet::detail::op_id::tag:                     \
    return values##_values(ranges_for<T>());
#define JET_OP2 JET_OP1
#define JET_OP3 JET_OP1
#include <jet/ops.def>
#undef JET_OP1
#undef JET_OP2
#undef JET_OP3
    default: return any_values(ranges_for<T>());
  }
}

template <class T> std::vector<T> operand_values(const range& d, std::size_t n, std::uint64_t s) {
  if (!d.zero_one) return random_vector<T>(n, d.lo, d.hi, s);
  std::vector<std::int32_t> bits = random_vector<std::int32_t>(n, 0, 1, s);
  return std::vector<T>(bits.begin(), bits.end());
}

// Operand arrays of one dtype and size, made once per range and operand position and shared by
// every op that asks for the same (fresh data every run; one upload per array).
template <class T> class operand_pool {
 public:
  explicit operand_pool(std::size_t n) : n_(n) {}
  const jet::array<T>& get(const range& d, int position, host_inputs& h) {
    auto [it, made] = arrays_.try_emplace(std::make_tuple(d.lo, d.hi, d.zero_one, position));
    if (made) {
      const std::vector<T> values = operand_values<T>(d, n_, fresh_seed() + 7 * position + 1000 * arrays_.size() + n_);
      it->second = h.upload(values);
    }
    return it->second;
  }

 private:
  std::size_t n_;
  std::map<std::tuple<double, double, bool, int>, jet::array<T>> arrays_;
};

// Op on fresh operands of dtype T drawn as the op table says, against the host reference: one launch.
template <class Op, class T> void check_op(std::size_t n, operand_pool<T>& pool, host_inputs& h) {
  // Results computed in float32 (from float32 or 16-bit operands) may be off by a few float32 ulp
  // of the operands near zero; a 16-bit subnormal result by half of 2^-24. Beyond that, what CUDA
  // documents for the op's function (op_accuracy.hpp) in the type the result is computed in.
  const operand_ranges r = ranges_for<T>(Op::id);
  const auto e = jet::test::apply_op<Op>(pool.get(r[0], 0, h), pool.get(r[1], 1, h), pool.get(r[2], 2, h));
  const bool float64 = std::remove_cvref_t<decltype(e)>::type == jet::dtype::float64;
  const double atol = std::max(float64 ? 1e-14 : 1e-6, allowed_error(Op::id, float64, 0)),
               rtol = allowed_error(Op::id, float64, float64 ? 0x1p-52 : 0x1p-23);
  INFO(Op::name << " on " << jet::name(jet::dtype_of<T>()) << ", n = " << n);
  const auto before = jet::stats().launches;
  CHECK(check_against_reference(e, n, h, atol, rtol) == 0);
  CHECK(jet::stats().launches - before == (n ? 1u : 0u));
}

}  // namespace every_op_detail

/// Every op whose domain holds T (ops.def).
template <class T> void check_every_op(std::size_t n) {
  every_op_detail::operand_pool<T> pool(n);
  host_inputs h;
  for_each_op_on<T>([&](auto op) { every_op_detail::check_op<decltype(op)>(n, pool, h); });
}

}  // namespace jet::test
