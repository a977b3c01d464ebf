// The launch planner's reductions: a reduction's result shape, and its plan and grid over all
// elements or along one axis (the axis moved last, one result per row).
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "launch/planner.hpp"
#include "layout.hpp"

#include <jet/error.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace jet::detail {

namespace {

// The plan of a reduction along `axis` of s into `results` results, `axis` of extent at least 1
// or 0: the index space is s with that axis moved last (extent `length`), and one result per row.
// The output is a stand-in that repeats along the axis, so that make_plan never merges the axis
// with another dimension.
plan axis_plan(const evaluation& e, const jet::shape& s, int axis, std::size_t results) {
  const kernel_desc& d = e.desc;
  const std::int64_t length = s[axis];
  jet::shape rows_then_axis;
  for (int dim = 0; dim < s.rank(); ++dim)
    if (dim != axis) rows_then_axis.push_back(s[dim]);
  rows_then_axis.push_back(std::max<std::int64_t>(length, 1));
  const int rank = s.rank();
  // Per input slot; most expressions have few, and a large one pays for its own allocation.
  layout few[32];
  const layout* few_pointers[32];
  std::vector<layout> many(d.input_count > 32 ? d.input_count : 0);
  std::vector<const layout*> many_pointers(many.size());
  layout* inputs = many.empty() ? few : many.data();
  const layout** input_pointers = many.empty() ? few_pointers : many_pointers.data();
  for (unsigned k = 0; k < d.input_count; ++k) {
    std::int64_t strides[max_rank];
    align_strides(*e.input_layouts[k], s, strides);
    inputs[k] = {rows_then_axis, {}};
    for (int dim = 0, to = 0; dim < rank; ++dim)
      if (dim != axis) inputs[k].strides[to++] = strides[dim];
    inputs[k].strides[rank - 1] = strides[axis];
    input_pointers[k] = &inputs[k];
  }
  layout out = layout::contiguous(rows_then_axis);
  for (int dim = 0; dim + 1 < rank; ++dim) out.strides[dim] /= rows_then_axis[rank - 1];
  out.strides[rank - 1] = 0;
  void* no_output[] = {nullptr};
  plan p = make_plan({d, e.slot, no_output, &out, e.inputs, input_pointers, e.scalars}, rows_then_axis);

  variant_key& v = p.variant;
  if (length <= 1) {  // a dimension of extent 1 was dropped: the axis comes back as the last
    for (unsigned k = 0; k < p.distinct_count; ++k) p.input_strides[k][v.rank] = 0;
    p.extents[v.rank++] = 1;
  }
  p.extents[v.rank - 1] = length;  // 0: each result is the reduction's identity, from no elements
  p.n = results;
  // Rows whose elements are neighbours in memory go to neighbouring threads of one row group;
  // otherwise neighbouring threads take neighbouring rows.
  bool contiguous_rows = false;
  for (unsigned k = 0; k < p.distinct_count; ++k) {
    v.input_access[k] = access::gather;
    const std::int64_t step = p.input_strides[k][v.rank - 1];
    contiguous_rows |= !is_counter(d, p.distinct_slot[k]) && (step == 1 || step == -1);
  }
  v.axis = contiguous_rows ? reduce_axis::inner : reduce_axis::outer;
  v.output_access[0] = access::linear;
  // Rows of whole vectors, each starting aligned in every input (all read forwards), are read a
  // vector at a time.
  int widest = 1;  // the widest input's element: the results are written one at a time
  for (unsigned k = 0; k < d.input_count; ++k) widest = std::max(widest, size_of(d.input_types[k]));
  const unsigned vec = 16 / static_cast<unsigned>(widest);
  bool vectors = v.axis == reduce_axis::inner && length >= vec && length % vec == 0;
  for (unsigned k = 0; k < p.distinct_count && vectors; ++k) {
    const unsigned slot = p.distinct_slot[k];
    vectors = !is_counter(d, slot) && p.input_strides[k][v.rank - 1] == 1 &&
              rows_aligned_for(vec, p.distinct[k], p.input_strides[k], v.rank, size_of(d.input_types[slot]));
  }
  v.vec = static_cast<std::uint8_t>(vectors ? vec : 1);
  v.index32 = s.size() < (std::size_t{1} << 32);
  return p;
}

// The dimension of s that a reduction's `axis` names (the error names the reduction).
int dimension_of(const kernel_desc& d, const jet::shape& s, int axis) {
  return axis_dimension("jet: " + describe(d), s, axis);
}

// How a reduction is launched: its plan and grid. No blocks when there are no results: nothing

}  // namespace

reduction_plan plan_reduction(const evaluation& e, std::optional<int> axis, unsigned multiprocessors) {
  const kernel_desc& d = e.desc;
  const jet::shape s = broadcast_shape(d, e.input_layouts);
  const std::size_t results = reduced_shape(d, e.input_layouts, axis).size();  // checks axis and emptiness
  reduction_plan r;
  r.results = results;
  if (results == 0) return r;
  if (results == 1) {  // every element into one result, in a grid of at most a few blocks per SM
    const layout stand_in = layout::contiguous(s);
    void* no_output[] = {nullptr};
    r.p = make_plan({d, e.slot, no_output, &stand_in, e.inputs, e.input_layouts, e.scalars}, s);
    r.p.variant.axis = reduce_axis::all;
    const std::size_t tile = std::size_t{reduction_threads} * reduction_ilp * r.p.variant.vec;
    r.blocks =
        std::clamp<std::size_t>((r.p.n + tile - 1) / tile, 1, std::size_t{multiprocessors} * reduction_blocks_per_sm);
    return r;
  }
  const int dim = dimension_of(d, s, *axis);  // more than one result: along an axis
  const auto length = static_cast<std::size_t>(s[dim]);
  r.p = axis_plan(e, s, dim, results);
  r.blocks = (results + 31) / 32;  // outer: 32 rows per block
  if (r.p.variant.axis == reduce_axis::inner) {
    // A warp per row, or more while that leaves the device short of warps and rows are long.
    const std::size_t warps_wanted = std::size_t{32} * multiprocessors;
    while (r.lanes < reduction_threads && results * (r.lanes / 32) < warps_wanted &&
           length >= std::size_t{16} * r.lanes * r.p.variant.vec)
      r.lanes *= 2;
    const unsigned rows_per_block = reduction_threads / r.lanes;
    r.blocks = (results + rows_per_block - 1) / rows_per_block;
  }
  if (r.blocks > 0x7fffffff)
    throw invalid_argument("jet: " + describe(d) + ": too many results (" + std::to_string(results) + ")");
  return r;
}

jet::shape reduced_shape(const kernel_desc& desc, const layout* const* inputs, std::optional<int> axis) {
  const jet::shape s = broadcast_shape(desc, inputs);
  jet::shape out;
  std::size_t length = s.size();
  if (axis) {
    const int dim = dimension_of(desc, s, *axis);
    for (int d = 0; d < s.rank(); ++d)
      if (d != dim) out.push_back(s[d]);
    length = static_cast<std::size_t>(s[dim]);
  }
  if (length == 0 && out.size() > 0 && !reduction_allows_empty[static_cast<int>(desc.reduction)])
    throw invalid_argument("jet: " + describe(desc) + " of no elements (shape " + s.to_string() +
                           (axis ? ", axis " + std::to_string(*axis) : "") + ") has no value");
  return out;
}

variant_key planned_variant(const evaluation& e) { return make_plan(e, index_space(e)).variant; }

reduction_launch planned_reduction(const evaluation& e, std::optional<int> axis, unsigned multiprocessors) {
  const reduction_plan r = plan_reduction(e, axis, multiprocessors);
  reduction_launch l{r.p.variant, r.results, r.blocks ? r.p.n : 0, {}, r.blocks, r.lanes};
  std::copy(r.p.extents, r.p.extents + (r.blocks ? r.p.variant.rank : 0), l.extents);
  return l;
}

}  // namespace jet::detail
