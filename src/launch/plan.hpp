// The launch planner's choice, for white-box tests: evaluate() and reduce() plan every launch this
// way.
#pragma once

#include <jet/runtime.hpp>

#include <cstdint>
#include <optional>

namespace jet::detail {

/// The variant evaluate() would launch for e (its shapes checked as evaluate() checks them).
variant_key planned_variant(const evaluation& e);

/// How reduce() would launch e's reduction along `axis` (or all_axes) on a device of
/// `multiprocessors` SMs: the variant; the results (rows); the kernel's n (the results along an
/// axis, the elements over all); the index space, for an axis the rows then the axis
/// (`variant.rank` extents); and the grid. No results and no blocks: no launch.
struct reduction_launch {
  variant_key variant;
  std::uint64_t results, n;
  std::int64_t extents[max_rank];
  unsigned long long blocks;
  unsigned lanes;  // threads per row of an inner-axis reduction
};
reduction_launch planned_reduction(const evaluation& e, std::optional<int> axis, unsigned multiprocessors);

}  // namespace jet::detail
