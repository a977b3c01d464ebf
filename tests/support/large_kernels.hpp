// Run-time descriptions of large float32 kernels, for what their size costs NVRTC and the GPU: a
// chain of transcendental ops, and Black-Scholes (the CUDA samples' formula) with each distinct
// subexpression one node, its operands any earlier nodes. Built at run time, so that a kernel's
// size is a number rather than a template instantiation.
#pragma once

#include <jet/detail/kernel_desc.hpp>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace jet::test {

/// A kernel description under construction: leaves and ops appended in post-order, each returning
/// its node's index. desc() points into it: it must outlive the description and stay unchanged.
class formula {
 public:
  std::uint16_t input() {
    input_types_.push_back(dtype::float32);
    return leaf(detail::op_id::input, input_types_.size() - 1);
  }
  std::uint16_t scalar(float value) {
    scalars_.push_back(value);
    return leaf(detail::op_id::scalar, scalars_.size() - 1);
  }
  // The op over earlier nodes, each operand taken in its own dtype; a comparison's result is bool.
  std::uint16_t apply(detail::op_id op, std::initializer_list<std::uint16_t> args) {
    const bool compares = op == detail::op_id::greater;
    detail::node n{op, compares ? dtype::boolean : dtype::float32, static_cast<std::uint8_t>(args.size())};
    int k = 0;
    for (std::uint16_t a : args) {
      n.arg[k] = a;
      n.arg_type[k++] = nodes_[a].type;
    }
    nodes_.push_back(n);
    return static_cast<std::uint16_t>(nodes_.size() - 1);
  }
  void output(std::uint16_t node) {
    out_nodes_.push_back(node);
    out_types_.push_back(dtype::float32);
  }
  // The nodes that are ops, not leaves.
  unsigned ops() const {
    unsigned count = 0;
    for (const detail::node& n : nodes_) count += n.arity > 0;
    return count;
  }
  const std::vector<float>& scalar_values() const { return scalars_; }

  detail::kernel_desc desc() const {
    return {
        .nodes = nodes_.data(),
        .node_count = static_cast<std::uint32_t>(nodes_.size()),
        .input_count = static_cast<std::uint32_t>(input_types_.size()),
        .scalar_count = static_cast<std::uint32_t>(scalars_.size()),
        .input_types = input_types_.data(),
        .counter_slots = 0,
        .out_count = static_cast<std::uint32_t>(out_nodes_.size()),
        .out_nodes = out_nodes_.data(),
        .out_types = out_types_.data(),
        .functions = nullptr,
        .function_count = 0,
        .hash = detail::hash_desc(nodes_, out_nodes_, out_types_, std::array<const detail::user_function*, 0>{}, 0)};
  }

 private:
  std::uint16_t leaf(detail::op_id op, std::size_t slot) {
    detail::node n{op, dtype::float32};
    n.arg[0] = static_cast<std::uint16_t>(slot);
    nodes_.push_back(n);
    return static_cast<std::uint16_t>(nodes_.size() - 1);
  }

  std::vector<detail::node> nodes_;
  std::vector<dtype> input_types_;
  std::vector<float> scalars_;
  std::vector<std::uint16_t> out_nodes_;
  std::vector<dtype> out_types_;
};

/// f(...f(x)) + y with `length` transcendental ops f, sin, tanh, exp, cos and sigmoid in turn (each
/// value stays within [-1, 2.1]): two arrays read, one written.
inline formula transcendental_chain(unsigned length) {
  using detail::op_id;
  constexpr op_id cycle[] = {op_id::sin, op_id::tanh, op_id::exp, op_id::cos, op_id::sigmoid};
  formula f;
  std::uint16_t value = f.input();
  const std::uint16_t y = f.input();
  for (unsigned k = 0; k < length; ++k) value = f.apply(cycle[k % std::size(cycle)], {value});
  f.output(f.apply(op_id::add, {value, y}));
  return f;
}

/// The CUDA samples' BlackScholes: call and put prices of options at price S, strike X and years T
/// (inputs 0, 1, 2), riskless rate R and volatility V, the normal CDF as its polynomial
/// approximation. Every distinct subexpression is one node (66 ops: log, sqrt, exp three times).
inline formula black_scholes(float riskless_rate = 0.02f, float volatility = 0.30f) {
  using detail::op_id;
  formula f;
  const std::uint16_t s = f.input(), x = f.input(), t = f.input();
  const std::uint16_t r = f.scalar(riskless_rate), v = f.scalar(volatility), half = f.scalar(0.5f),
                      one = f.scalar(1.0f), zero = f.scalar(0.0f);
  auto mul = [&](std::uint16_t a, std::uint16_t b) { return f.apply(op_id::mul, {a, b}); };
  auto add = [&](std::uint16_t a, std::uint16_t b) { return f.apply(op_id::add, {a, b}); };
  auto sub = [&](std::uint16_t a, std::uint16_t b) { return f.apply(op_id::sub, {a, b}); };
  auto div = [&](std::uint16_t a, std::uint16_t b) { return f.apply(op_id::div, {a, b}); };
  const std::uint16_t a1 = f.scalar(0.31938153f), a2 = f.scalar(-0.356563782f), a3 = f.scalar(1.781477937f),
                      a4 = f.scalar(-1.821255978f), a5 = f.scalar(1.330274429f), k = f.scalar(0.2316419f),
                      minus_half = f.scalar(-0.5f), rsqrt2pi = f.scalar(0.39894228040143267793994605993438f);
  auto cnd = [&](std::uint16_t d) {
    const std::uint16_t kd = div(one, add(one, mul(k, f.apply(op_id::abs, {d}))));
    std::uint16_t poly = mul(kd, a5);
    for (std::uint16_t a : {a4, a3, a2, a1}) poly = mul(kd, add(a, poly));
    const std::uint16_t c = mul(mul(rsqrt2pi, f.apply(op_id::exp, {mul(minus_half, mul(d, d))})), poly);
    return f.apply(op_id::where, {f.apply(op_id::greater, {d, zero}), sub(one, c), c});
  };
  const std::uint16_t v_sqrt_t = mul(v, f.apply(op_id::sqrt, {t}));
  const std::uint16_t d1 = div(add(f.apply(op_id::log, {div(s, x)}), mul(add(r, mul(half, mul(v, v))), t)), v_sqrt_t);
  const std::uint16_t d2 = sub(d1, v_sqrt_t);
  const std::uint16_t cnd1 = cnd(d1), cnd2 = cnd(d2);
  const std::uint16_t x_exp_rt = mul(x, f.apply(op_id::exp, {f.apply(op_id::neg, {mul(r, t)})}));
  f.output(sub(mul(s, cnd1), mul(x_exp_rt, cnd2)));
  f.output(sub(mul(x_exp_rt, sub(one, cnd2)), mul(s, sub(one, cnd1))));
  return f;
}

}  // namespace jet::test
