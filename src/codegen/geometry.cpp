#include "codegen/geometry.hpp"

#include "codegen/spelling.hpp"
#include "settings.hpp"

#include <jet/detail/sharing.hpp>
#include <jet/error.hpp>

#include <algorithm>
#include <bit>
#include <string>

namespace jet::detail {

kernel_shape shape_of(const variant_key& v) {
  // 128 threads with two 16-byte vectors per operand in flight: the best shape measured
  // (benchmarks/RESULTS.md); a heavy formula's, 64 threads with one (heavy_formula).
  // JET_KERNEL_SHAPE=threads,ilp[,vec] replaces both for the whole process (vec in
  // max_vector_width): a tuning knob for benchmark runs, read once.
  static const std::optional<kernel_shape_choice> setting = kernel_shape_setting();
  const kernel_shape chosen = setting   ? kernel_shape{setting->threads, setting->ilp, 0}
                              : v.heavy ? kernel_shape{64, 1, 0}
                                        : kernel_shape{128, 2, 0};
  // A rows kernel whose operands are read one element at a time (some row is misaligned for
  // vectors) keeps as many elements per thread in flight as vectors would: memory-level
  // parallelism is what a bandwidth-bound kernel lives on.
  if (v.rows && v.vec == 1) return {chosen.threads, std::min(16u, chosen.ilp * 4), 1};
  return {chosen.threads, chosen.ilp, v.vec};
}

bool heavy_formula(const kernel_desc& d) {
  unsigned cost = 0;
  for (unsigned i = 0; i < d.node_count && cost <= heavy_formula_cost; ++i)
    if (!is_leaf(d.nodes[i].op)) cost += op_cost(d.nodes[i].op);
  return cost > heavy_formula_cost;
}

unsigned max_vector_width(const kernel_desc& d) {
  int widest = 1;
  for (unsigned k = 0; k < d.out_count; ++k) widest = std::max(widest, size_of(d.out_types[k]));
  for (unsigned k = 0; k < d.input_count; ++k) widest = std::max(widest, size_of(d.input_types[k]));
  const std::optional<kernel_shape_choice> setting = kernel_shape_setting();  // read once, there
  return setting && setting->vec ? std::min<unsigned>(setting->vec, 16 / widest) : 16 / widest;
}

variant_key default_variant(const kernel_desc& d) {
  variant_key v;
  v.vec = static_cast<std::uint8_t>(max_vector_width(d));
  if (d.input_count > max_inputs)
    throw invalid_argument("jet: `" + describe(d) + "` has " + std::to_string(d.input_count) +
                           " array operands, more than the " + std::to_string(max_inputs) +
                           " distinct ones a kernel takes (jet::detail::max_inputs): its variant needs its operands");
  for (unsigned k = 0; k < d.input_count; ++k) v.unique_of[k] = static_cast<std::uint8_t>(k);
  v.input_slots = static_cast<std::uint16_t>(d.input_count);
  if (d.reduction != reduction_id::none) v.axis = reduce_axis::all;
  return v;
}

void scalar_parameters(const kernel_desc& d, const variant_key& v, bool* taken) {
  std::fill(taken, taken + d.scalar_count, true);
  for (std::uint64_t shared = v.shared; shared; shared &= shared - 1) {
    const repeat& r = d.repeats[std::countr_zero(shared)];
    std::fill(taken + r.scalar_first, taken + r.scalar_first + r.scalar_count, false);
  }
}

unsigned distinct_inputs(const kernel_desc& d, const variant_key& v) {
  unsigned count = 0;
  for (unsigned k = 0; k < d.input_count; ++k) count = std::max(count, v.unique_of[k] + 1u);
  return count;
}

bool uses_index_space(const kernel_desc& d, const variant_key& v) {
  bool strided = v.rows;  // a rows kernel finds its rows' length and count in the extents
  const unsigned inputs = distinct_inputs(d, v);
  for (unsigned k = 0; k < inputs; ++k) strided |= v.input_access[k] != access::linear;
  for (unsigned k = 0; k < d.out_count; ++k) strided |= v.output_access[k] != access::linear;
  return strided;
}

launch_grid grid_of(const variant_key& v, std::size_t n, const std::int64_t* extents) {
  const kernel_shape shape = shape_of(v);
  if (v.rows) {  // chunks of a row along x, rows along y
    const auto columns = static_cast<unsigned long long>(extents[v.rank - 1]);
    const unsigned long long rows = n / std::max(columns, 1ull);
    return {(columns + shape.tile() - 1) / shape.tile(), shape.threads,
            static_cast<unsigned>(std::min<unsigned long long>(rows, max_grid_rows))};
  }
  // A block per full tile, then a block per `threads` elements of the last tile, one each.
  if (!v.tiled) return {n / shape.tile() + (n % shape.tile() + shape.threads - 1) / shape.threads, shape.threads};
  unsigned long long blocks = 1;
  for (int dim = 0; dim < v.rank; ++dim) {
    const auto extent = static_cast<unsigned long long>(extents[dim]);
    blocks *= dim + 2 < v.rank ? extent : (extent + tile_edge - 1) / tile_edge;
  }
  return {blocks, tile_threads};
}

}  // namespace jet::detail
