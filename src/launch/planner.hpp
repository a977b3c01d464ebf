// The launch planner: from an evaluation's layouts and addresses, which kernel variant to launch
// over which index space (distinct inputs, merged dimensions, each operand's access, vectors,
// tiles, rows, reductions' grids). Pure: no driver, so CPU tests call it directly.
#pragma once

#include <jet/detail/core.hpp>
#include <jet/shape.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace jet::detail {

// What the kernel needs to know about the operands, beyond the variant: the index space after
// merging dimensions, each operand's strides in it, and the distinct input pointers.
// Only the first rank / distinct_count / out_count entries of the arrays are meaningful; they are
// left uninitialized because this is built on every evaluation.
struct plan {
  variant_key variant;
  std::size_t n = 0;
  std::int64_t extents[max_rank];
  std::int64_t input_strides[max_inputs][max_rank];  // per distinct input
  std::int64_t output_strides[max_outputs][max_rank];
  const void* distinct[max_inputs];
  std::uint16_t distinct_slot[max_inputs];  // a slot of each distinct input
  unsigned distinct_count = 0;
  bool output_needs_temporary[max_outputs]{};
};

/// The shape the kernel covers: the outputs' (all alike), to which the operands' broadcast shape
/// must broadcast, as NumPy's v[...] = expr does; shape_error when it does not.
jet::shape index_space(const evaluation& e);

/// invalid_argument when an operand or output of a non-empty evaluation is null.
void check_pointers(const evaluation& e, const jet::shape& s);

/// The strides of layout l over the index space s (of at least l's rank), as NumPy broadcasts: a
/// missing leading dimension or one of extent 1 has stride 0.
void align_strides(const layout& l, const jet::shape& s, std::int64_t* strides);

/// Whether an operand of elements of `size` bytes at `data`, with these strides over `rank`
/// dimensions, starts every row (the inner dimension's run) on a boundary of `vec` elements.
bool rows_aligned_for(unsigned vec, const void* data, const std::int64_t* strides, int rank, int size);

/// The plan of e over the index space `output_shape`. invalid_argument when an output repeats
/// elements or two outputs overlap.
plan make_plan(const evaluation& e, const jet::shape& output_shape);

/// How a reduction is launched: its plan and grid. No blocks when there are no results: nothing
/// to launch.
struct reduction_plan {
  plan p;
  std::size_t results = 0;
  unsigned long long blocks = 0;
  unsigned lanes = 32;  // threads per row of an inner-axis reduction (a multiple of 32)
};
reduction_plan plan_reduction(const evaluation& e, std::optional<int> axis, unsigned multiprocessors);

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
