// Which nodes of a description take another node's value in one evaluation: inside each repeat
// that holds (launch variant's `shared`), the earlier subtree's. The fused kernels and the
// interpreter both compute each such value once.
#pragma once

#include <jet/detail/kernel_desc.hpp>

#include <cstdint>
#include <vector>

namespace jet::detail {

/// Per node of `d`, the node whose value it takes: itself, or, inside a repeat whose bit is set
/// in `shared`, the matching node of the earlier subtree (followed to the first one computed).
std::vector<std::uint16_t> value_sources(const kernel_desc& d, std::uint64_t shared);

}  // namespace jet::detail
