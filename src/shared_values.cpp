#include "shared_values.hpp"

#include <jet/detail/sharing.hpp>

namespace jet::detail {

std::vector<std::uint16_t> value_sources(const kernel_desc& d, std::uint64_t shared) {
  std::vector<std::uint16_t> source(d.node_count);
  for (unsigned i = 0; i < d.node_count; ++i) source[i] = static_cast<std::uint16_t>(i);
  for (unsigned r = 0; r < d.repeat_count; ++r) {  // largest first: a repeat inside one that holds is moot
    const repeat& x = d.repeats[r];
    if (!(shared >> r & 1) || source[x.node] != x.node) continue;
    for (unsigned k = 0; k < x.size; ++k)
      source[x.node + 1 - x.size + k] = static_cast<std::uint16_t>(x.same + 1 - x.size + k);
  }
  for (unsigned i = 0; i < d.node_count; ++i)  // an earlier subtree may itself repeat one before it
    while (source[source[i]] != source[i]) source[i] = source[source[i]];
  return source;
}

}  // namespace jet::detail
