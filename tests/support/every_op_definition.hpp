// check_every_op's definition, for the every_op_*.cpp files that instantiate it (every_op.hpp).
#pragma once

#include "catch.hpp"
#include "every_op.hpp"
#include "gpu_check.hpp"
#include "operands.hpp"
#include "reference.hpp"

#include <jet/jet.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <type_traits>
#include <vector>

namespace jet::test {
namespace every_op_detail {

struct domain {
  double lo, hi;
  bool zero_one = false;  // a condition: 0 or 1
};

// Operand ranges where the ops are defined and well conditioned, per kind of operand type.
struct ranges {
  domain any, positive, divisor, pow_base, pow_exponent, exp_argument, clamp_low, clamp_high;
};
constexpr ranges floating_ranges{{-4, 4}, {0.1, 10}, {0.5, 2}, {0.5, 2}, {-3, 3}, {-4, 4}, {-2, -0.5}, {0.5, 2}};
constexpr ranges signed_ranges{{-50, 50}, {1, 50}, {1, 20}, {1, 5}, {-3, 3}, {-20, 20}, {-20, -1}, {1, 20}};
constexpr ranges unsigned_ranges{{0, 100}, {1, 50}, {1, 20}, {1, 5}, {0, 3}, {0, 20}, {0, 20}, {21, 50}};
constexpr ranges bool_ranges{{0, 1}, {1, 1}, {1, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 0}, {1, 1}};

template <class T> constexpr const ranges& ranges_for() {
  if constexpr (std::is_same_v<T, bool>) return bool_ranges;
  else if constexpr (std::is_unsigned_v<T>) return unsigned_ranges;
  else if constexpr (std::is_integral_v<T>) return signed_ranges;
  else return floating_ranges;
}

// Each operand's range for op on operands of type T.
template <class T> std::array<domain, 3> domains_for(jet::detail::op_id op) {
  using jet::detail::op_id;
  const ranges& r = ranges_for<T>();
  switch (op) {
    case op_id::log:
    case op_id::sqrt:
    case op_id::rsqrt: return {r.positive, r.any, r.any};
    case op_id::pow: return {r.pow_base, r.pow_exponent, r.any};
    case op_id::div: return {r.any, r.divisor, r.any};
    case op_id::exp: return {r.exp_argument, r.any, r.any};
    case op_id::where: return {domain{0, 1, true}, r.any, r.any};
    case op_id::clamp: return {r.any, r.clamp_low, r.clamp_high};
    default: return {r.any, r.any, r.any};
  }
}

template <class T> std::vector<T> operand_values(const domain& d, std::size_t n, std::uint64_t s) {
  if (!d.zero_one) return random_vector<T>(n, d.lo, d.hi, s);
  std::vector<std::int32_t> bits = random_vector<std::int32_t>(n, 0, 1, s);
  return std::vector<T>(bits.begin(), bits.end());
}

// Operand arrays of one dtype and size, made once per domain and operand position and shared by
// every op that asks for the same (fresh data every run; one upload per array).
template <class T> class operand_pool {
 public:
  explicit operand_pool(std::size_t n) : n_(n) {}
  const jet::array<T>& get(const domain& d, int position, host_inputs& h) {
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

}  // namespace every_op_detail

template <class T> void check_every_op(std::size_t n) {
  every_op_detail::operand_pool<T> pool(n);
  host_inputs h;
  // Results computed in float32 (from float32 or 16-bit operands) may be off by a few float32 ulp
  // of the operands near zero; a 16-bit subnormal result by half of 2^-24.
  const double atol = jet::compute_type(jet::dtype_of<T>()) == jet::dtype::float32 ? 1e-6 : 1e-14;
  jet::ops::for_each_op([&](auto op) {
    using Op = decltype(op);
    const auto domains = every_op_detail::domains_for<T>(Op::id);
    const auto e = jet::test::apply_op<Op>(pool.get(domains[0], 0, h), pool.get(domains[1], 1, h),
                                          pool.get(domains[2], 2, h));
    INFO(Op::name << " on " << jet::name(jet::dtype_of<T>()) << ", n = " << n);
    const auto before = jet::stats().launches;
    CHECK(check_against_reference(e, n, h, atol) == 0);
    CHECK(jet::stats().launches - before == (n ? 1u : 0u));
  });
}

}  // namespace jet::test
