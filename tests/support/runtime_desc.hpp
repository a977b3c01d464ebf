// A kernel description built at run time (the fuzzer's, its unfused steps', the source snapshot's)
// rather than flattened from an expression's type: one output, no counters, no user functions.
#pragma once

#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/sharing.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace jet::test {

/// The description over `nodes` (post-order) storing node out_node[0] as out_type[0], with the
/// repeats `repeats` lists (detail::repeats_of_nodes's; none by default). The vectors and arrays
/// must outlive it: it points into them.
inline detail::kernel_desc runtime_desc(const std::vector<detail::node>& nodes, const std::vector<dtype>& input_types,
                                        std::size_t scalar_count, const std::array<std::uint16_t, 1>& out_node,
                                        const std::array<dtype, 1>& out_type,
                                        const std::vector<detail::repeat>& repeats = {}) {
  return {.nodes = nodes.data(),
          .node_count = static_cast<std::uint32_t>(nodes.size()),
          .input_count = static_cast<std::uint32_t>(input_types.size()),
          .scalar_count = static_cast<std::uint32_t>(scalar_count),
          .input_types = input_types.data(),
          .counter_slots = 0,
          .out_count = 1,
          .out_nodes = out_node.data(),
          .out_types = out_type.data(),
          .functions = nullptr,
          .function_count = 0,
          .hash = detail::hash_desc(nodes, out_node, out_type, std::array<const detail::user_function*, 0>{}, 0),
          .repeats = repeats.data(),
          .repeat_count = static_cast<std::uint32_t>(repeats.size())};
}

}  // namespace jet::test
