// Strided layouts: views' slice/permute/reshape/broadcast_to, and NumPy broadcasting of operands.
// Declared where the user API needs them (include/jet/array.hpp, include/jet/detail/core.hpp).
#include "layout.hpp"

#include "codegen/spelling.hpp"

#include <jet/array.hpp>
#include <jet/error.hpp>

#include <algorithm>
#include <iterator>
#include <string>

namespace jet::detail {
namespace {

void require_dim(const layout& l, int dim, const char* what) {
  if (dim < 0 || dim >= l.extents.rank())
    throw invalid_argument(std::string("jet::view::") + what + ": dimension " + std::to_string(dim) +
                           " out of range for shape " + l.extents.to_string());
}

}  // namespace

int axis_dimension(const std::string& who, const jet::shape& s, int axis) {
  const int dim = axis < 0 ? axis + s.rank() : axis;
  if (dim < 0 || dim >= s.rank())
    throw invalid_argument(who + ": axis " + std::to_string(axis) + " is out of range for shape " + s.to_string() +
                           " of rank " + std::to_string(s.rank()));
  return dim;
}

layout slice_layout(const layout& l, int dim, std::int64_t start, std::int64_t stop, std::int64_t step,
                    std::int64_t& first_element) {
  require_dim(l, dim, "slice");
  if (step == 0) throw invalid_argument("jet::view::slice: step 0");
  // Python's slice.indices: bounds clamp into the dimension, to -1 and extent - 1 walking
  // backwards. Adding the extent to a negative bound cannot overflow.
  const std::int64_t extent = l.extents[dim];
  auto normalize = [&](std::int64_t i, std::int64_t lo, std::int64_t hi) {
    if (i < 0) i += extent;
    return std::clamp(i, lo, hi);
  };
  const bool forwards = step > 0;
  start = forwards ? normalize(start, 0, extent) : normalize(start, -1, extent - 1);
  stop = forwards ? normalize(stop, 0, extent) : normalize(stop, -1, extent - 1);
  // The elements are 1 + (distance - 1) / |step| for a distance from start to stop of at least 1;
  // the distance is at most the extent and |step| is taken unsigned, so neither overflows (nor
  // negating INT64_MIN).
  const std::int64_t distance = forwards ? stop - start : start - stop;
  const std::uint64_t magnitude = forwards ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
  const auto count =
      distance > 0 ? static_cast<std::int64_t>(1 + static_cast<std::uint64_t>(distance - 1) / magnitude) : 0;
  layout r = l;
  r.extents[dim] = count;
  // A step is taken only between two elements, and then stays within the memory l spans: with
  // fewer the stride stays as it was (step may be any int64).
  const auto too_far = [&] {
    return "the offsets of a slice with step " + std::to_string(step) + " of " + l.to_string();
  };
  if (count > 1) r.strides[dim] = checked_multiply(l.strides[dim], step, too_far);
  first_element = count ? checked_multiply(start, l.strides[dim], too_far) : 0;
  return r;
}

layout permute_layout(const layout& l, std::span<const int> order) {
  const int rank = l.extents.rank();
  bool seen[max_rank] = {};
  bool valid = static_cast<int>(order.size()) == rank;
  for (int d : order) {
    valid = valid && d >= 0 && d < rank && !seen[d];
    if (d >= 0 && d < rank) seen[d] = true;
  }
  if (!valid) {
    std::string list;
    for (int d : order) list += (list.empty() ? "" : ", ") + std::to_string(d);
    throw invalid_argument("jet::view::permute: (" + list + ") is not a permutation of the dimensions of shape " +
                           l.extents.to_string());
  }
  layout r = l;
  for (int d = 0; d < rank; ++d) {
    r.extents[d] = l.extents[order[d]];
    r.strides[d] = l.strides[order[d]];
  }
  return r;
}

layout reshape_layout(const layout& l, const jet::shape& to) {
  if (to.size() != l.extents.size())
    throw shape_error("jet::view::reshape: cannot reshape " + l.extents.to_string() + " (" +
                      std::to_string(l.extents.size()) + " elements) to " + to.to_string());
  if (!l.is_contiguous())
    throw invalid_argument("jet::view::reshape: the view of shape " + l.extents.to_string() +
                           " is not contiguous; evaluate it into an array first");
  return layout::contiguous(to);
}

layout broadcast_layout(const layout& l, const jet::shape& to) {
  const int shift = to.rank() - l.extents.rank();
  layout r{to, {}};
  bool valid = shift >= 0;
  for (int d = 0; valid && d < to.rank(); ++d) {
    if (d < shift) continue;  // a new leading dimension repeats everything
    const std::int64_t from = l.extents[d - shift];
    valid = from == to[d] || from == 1;
    r.strides[d] = from == 1 ? 0 : l.strides[d - shift];
  }
  if (!valid)
    throw shape_error("jet::view::broadcast_to: cannot broadcast shape " + l.extents.to_string() + " to " +
                      to.to_string());
  return r;
}

jet::shape broadcast_shape(const kernel_desc& desc, const layout* const* inputs) {
  jet::shape result = inputs[0]->extents;
  // A layout broadcast once needs no second look (the result only grows): a formula that names
  // its arrays many times compares a pointer per appearance.
  const layout* recent[4] = {inputs[0]};
  unsigned next = 1;
  for (unsigned k = 1; k < desc.input_count; ++k) {
    if (std::find(std::begin(recent), std::end(recent), inputs[k]) != std::end(recent)) continue;
    recent[next++ % std::size(recent)] = inputs[k];
    const jet::shape& s = inputs[k]->extents;
    if (s == result) continue;  // the common case: nothing to broadcast
    jet::shape merged;
    const int rank = std::max(result.rank(), s.rank());
    for (int d = 0; d < rank; ++d) {
      const int a = d - (rank - result.rank()), b = d - (rank - s.rank());
      const std::int64_t ea = a >= 0 ? result[a] : 1, eb = b >= 0 ? s[b] : 1;
      if (ea != eb && ea != 1 && eb != 1)
        throw shape_error("jet: operands of `" + describe(desc) + "` cannot be broadcast together: shape " +
                          result.to_string() + " and shape " + s.to_string() + " (in" + std::to_string(k) + ")");
      merged.push_back(ea == 1 ? eb : ea);
    }
    result = merged;
  }
  std::int64_t count = 0;
  if (!element_count(result, count))
    exceeds_size_limit("the element count of shape " + result.to_string() + ", to which the operands of `" +
                       describe(desc) + "` broadcast,");
  return result;
}

}  // namespace jet::detail
