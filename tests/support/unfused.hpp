// A kernel description taken apart into one kernel per node: each array operand copied into a
// contiguous array, then each op evaluated as a one-op description whose result is stored in a
// contiguous array of its dtype, in the shape its operands broadcast to. The fuzzer's judge
// compares a fused result with this one.
#pragma once

#include "runtime_desc.hpp"

#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace jet::test {

/// One kernel of the unfused evaluation.
struct unfused_step {
  /// Where an input slot of the step reads: an input slot of the whole description (an operand
  /// as the user passed it) or the array an earlier step stored a node's value in.
  struct source {
    bool original_slot;
    unsigned index;  // the slot, or the node of the whole description
  };
  std::vector<detail::node> nodes;
  std::vector<dtype> input_types;
  std::vector<source> inputs;          // per input slot of the step
  std::vector<unsigned> scalar_slots;  // per scalar slot of the step: the description's slot
  std::array<std::uint16_t, 1> out_node{};
  std::array<dtype, 1> out_type{dtype::float32};
  unsigned stores;  // the node of the whole description whose value this step stores

  detail::kernel_desc desc() const { return runtime_desc(nodes, input_types, scalar_slots.size(), out_node, out_type); }
};

/// The steps of description d (one output) in order; the last one stores the output, in its dtype.
inline std::vector<unfused_step> unfused_steps(const detail::kernel_desc& d) {
  std::vector<unfused_step> steps;
  auto leaf = [](unfused_step& s, detail::op_id op, dtype t, std::uint16_t slot) {
    detail::node n{op, t};
    n.arg[0] = slot;
    s.nodes.push_back(n);
    return static_cast<std::uint16_t>(s.nodes.size() - 1);
  };
  auto read_array = [&](unfused_step& s, dtype t, unfused_step::source from) {
    s.input_types.push_back(t);
    s.inputs.push_back(from);
    return leaf(s, detail::op_id::input, t, static_cast<std::uint16_t>(s.inputs.size() - 1));
  };
  auto finish = [&](unfused_step& s, unsigned stores, dtype out) {
    s.out_node[0] = static_cast<std::uint16_t>(s.nodes.size() - 1);
    s.out_type[0] = out;
    s.stores = stores;
    steps.push_back(std::move(s));
  };
  for (unsigned i = 0; i < d.node_count; ++i) {
    const detail::node& n = d.nodes[i];
    if (n.op == detail::op_id::scalar) continue;  // a kernel argument of the steps that use it
    unfused_step s;
    if (n.op == detail::op_id::input) {
      read_array(s, n.type, {true, n.arg[0]});
    } else {
      detail::node op = n;
      for (int k = 0; k < n.arity; ++k) {
        const detail::node& a = d.nodes[n.arg[k]];
        if (a.op == detail::op_id::scalar) {
          s.scalar_slots.push_back(a.arg[0]);
          op.arg[k] = leaf(s, detail::op_id::scalar, a.type, static_cast<std::uint16_t>(s.scalar_slots.size() - 1));
        } else {
          op.arg[k] = read_array(s, a.type, {false, n.arg[k]});
        }
      }
      s.nodes.push_back(op);
    }
    finish(s, i, n.type);
  }
  const unsigned root = d.out_nodes[0];
  if (d.nodes[root].type != d.out_types[0]) {  // stored into another dtype: one more conversion
    unfused_step s;
    read_array(s, d.nodes[root].type, {false, root});
    finish(s, root, d.out_types[0]);
  }
  return steps;
}

/// Where an unfused step stored its node's value.
struct unfused_array {
  void* data;
  detail::layout layout;
};

/// Evaluates description d one node at a time, from its operands (pointers and layouts per input
/// slot) and scalars: allocate(bytes) gives the memory of each step's result, evaluate(evaluation)
/// runs each step. Returns where the last step stored the output.
template <class Allocate, class Evaluate>
unfused_array evaluate_unfused(const detail::kernel_desc& d, const void* const* inputs,
                               const detail::layout* const* layouts, const detail::scalar_value* scalars,
                               Allocate&& allocate, Evaluate&& evaluate) {
  std::vector<unfused_array> array_of_node(d.node_count);  // the first step that stored each node
  std::vector<bool> stored(d.node_count, false);
  unfused_array last{};
  for (const unfused_step& step : unfused_steps(d)) {
    const detail::kernel_desc sd = step.desc();
    std::vector<const void*> step_inputs;
    std::vector<const detail::layout*> step_layouts;
    for (const auto& from : step.inputs) {
      step_inputs.push_back(from.original_slot ? inputs[from.index] : array_of_node[from.index].data);
      step_layouts.push_back(from.original_slot ? layouts[from.index] : &array_of_node[from.index].layout);
    }
    std::vector<detail::scalar_value> step_scalars;
    for (unsigned slot : step.scalar_slots) step_scalars.push_back(scalars[slot]);
    const jet::shape shape = detail::broadcast_shape(sd, step_layouts.data());
    last = {allocate(std::max<std::size_t>(shape.size(), 1) * size_of(step.out_type[0])),
            detail::layout::contiguous(shape)};
    if (!stored[step.stores]) array_of_node[step.stores] = last, stored[step.stores] = true;
    detail::kernel_slot slot;
    evaluate(detail::evaluation{sd, slot, &last.data, &last.layout, step_inputs.data(), step_layouts.data(),
                                step_scalars.data()});
  }
  return last;
}

}  // namespace jet::test
