#include "launch/planner.hpp"

#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"

#include <jet/detail/rules.hpp>
#include <jet/detail/sharing.hpp>
#include <jet/error.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

namespace jet::detail {

// The shape the kernel covers: the outputs' (all alike), to which the operands' broadcast shape
// must broadcast, as NumPy's v[...] = expr does (an array assigned an expression of another shape
// is reallocated to it before this).
jet::shape index_space(const evaluation& e) {
  const kernel_desc& d = e.desc;
  const jet::shape s = broadcast_shape(d, e.input_layouts);
  const jet::shape& out = e.output_layouts[0].extents;
  bool fits = s.rank() <= out.rank();
  for (int dim = 0; fits && dim < s.rank(); ++dim) {
    const std::int64_t from = s[dim], to = out[dim + out.rank() - s.rank()];
    fits = from == to || from == 1;
  }
  for (unsigned k = 1; k < d.out_count; ++k) fits = fits && e.output_layouts[k].extents == out;
  if (!fits)
    for (unsigned k = 0; k < d.out_count; ++k)
      if (!(e.output_layouts[k].extents == s))
        throw shape_error("jet: cannot assign `" + describe(d) + "` of shape " + s.to_string() +
                          " to an output of shape " + e.output_layouts[k].extents.to_string());
  return out;
}

void check_pointers(const evaluation& e, const jet::shape& s) {
  const kernel_desc& d = e.desc;
  if (s.size() == 0) return;
  for (unsigned k = 0; k < d.input_count; ++k)
    if (!e.inputs[k] && !is_counter(d, k))
      throw invalid_argument("jet: operand in" + std::to_string(k) + " of `" + describe(d) + "` is null");
  for (unsigned k = 0; k < d.out_count; ++k)
    if (!e.outputs[k]) throw invalid_argument("jet: an output of `" + describe(d) + "` is null");
}

void align_strides(const layout& l, const jet::shape& s, std::int64_t* strides) {
  const int shift = s.rank() - l.extents.rank();
  for (int d = 0; d < s.rank(); ++d) strides[d] = d < shift || l.extents[d - shift] == 1 ? 0 : l.strides[d - shift];
}

namespace {

// The byte range an operand touches, for overlap tests.
struct byte_range {
  std::uintptr_t lo, hi;  // [lo, hi)
};
byte_range range_of(const void* p, const layout& l, int element) {
  const layout::element_range r = l.reach(static_cast<std::size_t>(element));  // checks that its bytes fit int64
  const auto base = reinterpret_cast<std::uintptr_t>(p);
  const auto bytes = [&](std::int64_t elements) { return static_cast<std::uintptr_t>(elements * element); };
  return {base + bytes(r.lowest), base + bytes(r.highest + 1)};
}
bool overlaps(byte_range a, byte_range b) { return a.lo < b.hi && b.lo < a.hi; }

access access_of(const std::int64_t* strides, const std::int64_t* extents, int rank) {
  std::int64_t contiguous = 1;
  bool linear = true;
  for (int d = rank - 1; d >= 0; --d) {
    linear = linear && strides[d] == contiguous;
    linear = linear && multiply(contiguous, extents[d], contiguous);
  }
  if (linear) return access::linear;
  if (strides[rank - 1] == 1) return access::unit;
  if (strides[rank - 1] == 0) return access::broadcast;
  return access::gather;
}

// Whether an operand is contiguous along dimension `dim` of the index space but steps further than
// one element along the inner one: read along the inner dimension, a warp's loads would touch a
// sector per element.
bool transposed_along(const std::int64_t* strides, int dim, int rank) {
  const std::int64_t inner = strides[rank - 1];
  return dim + 1 < rank && (strides[dim] == 1 || strides[dim] == -1) && inner != 0 && inner != 1 && inner != -1;
}

// The array operands of a plan (distinct inputs, then outputs): their strides, element sizes and
// whether they read memory at all.
struct operand_view {
  std::int64_t* strides;
  int size;
  bool memory;
  access* how;
};
template <class F> void for_each_operand(plan& p, const kernel_desc& d, F f) {
  for (unsigned k = 0; k < p.distinct_count; ++k) {
    const unsigned slot = p.distinct_slot[k];
    f(operand_view{p.input_strides[k], size_of(d.input_types[slot]), !is_counter(d, slot), &p.variant.input_access[k]});
  }
  for (unsigned k = 0; k < d.out_count; ++k)
    f(operand_view{p.output_strides[k], size_of(d.out_types[k]), true, &p.variant.output_access[k]});
}

// The dimension a tiled kernel pairs with the inner one: where the most bytes of transposed
// operands are contiguous. -1 when no operand is transposed, or when a tile would be mostly idle
// (fewer than half a tile's edge of elements along either dimension), and for a reduction, whose
// kernels cover the index space in their own order.
int tile_dimension(plan& p, const kernel_desc& d, int rank) {
  if (d.reduction != reduction_id::none || rank < 2 || p.extents[rank - 1] < tile_edge / 2) return -1;
  std::int64_t bytes[max_rank] = {};
  for_each_operand(p, d, [&](const operand_view& o) {
    for (int dim = 0; o.memory && dim + 1 < rank; ++dim)
      if (transposed_along(o.strides, dim, rank)) bytes[dim] += o.size;
  });
  const int best = static_cast<int>(std::max_element(bytes, bytes + rank - 1) - bytes);
  return bytes[best] > 0 && p.extents[best] >= tile_edge / 2 ? best : -1;
}

// Moves dimension `from` of the index space to `to`, in the extents and every operand's strides.
void move_dimension(plan& p, const kernel_desc& d, int from, int to) {
  auto move = [&](std::int64_t* a) {
    if (from < to)
      std::rotate(a + from, a + from + 1, a + to + 1);
    else
      std::rotate(a + to, a + from, a + from + 1);
  };
  move(p.extents);
  for_each_operand(p, d, [&](const operand_view& o) { move(o.strides); });
}

// A tiled kernel's accesses: transposed operands through shared memory while it lasts, every
// other one gathered along the inner dimension.
void assign_tiled_accesses(plan& p, const kernel_desc& d, int rank) {
  std::size_t shared = 0;
  for_each_operand(p, d, [&](const operand_view& o) {
    const bool fits = shared + tile_bytes(o.size) <= shared_memory_limit;
    const bool transposed = o.memory && fits && transposed_along(o.strides, rank - 2, rank);
    if (transposed) shared += tile_bytes(o.size);
    *o.how = transposed ? access::transposed : access::gather;
  });
}

// Whether input slot k names the same array or view (the same layout object) as one of the few
// slots before it: per-slot checks skip it, so that a formula using its operands many times pays
// for each about once.
bool repeats_recent_layout(const layout* const* layouts, unsigned k) {
  for (unsigned j = k > 8 ? k - 8 : 0; j < k; ++j)
    if (layouts[j] == layouts[k]) return true;
  return false;
}

// Whether every operand is contiguous and of the output's shape (the common case): then the whole
// evaluation is one linear dimension, and no strides need aligning or merging.
bool all_contiguous(const evaluation& e, const jet::shape& s) {
  for (unsigned k = 0; k < e.desc.out_count; ++k)
    if (!(e.output_layouts[k].extents == s) || !e.output_layouts[k].is_contiguous()) return false;
  for (unsigned k = 0; k < e.desc.input_count; ++k) {
    const layout* l = e.input_layouts[k];
    if (repeats_recent_layout(e.input_layouts, k)) continue;
    if (!(l->extents == s) || !l->is_contiguous()) return false;
  }
  return true;
}

}  // namespace

bool rows_aligned_for(unsigned vec, const void* data, const std::int64_t* strides, int rank, int size) {
  if (reinterpret_cast<std::uintptr_t>(data) % (vec * static_cast<unsigned>(size)) != 0) return false;
  for (int dim = 0; dim + 1 < rank; ++dim)
    if (strides[dim] % vec != 0) return false;
  return true;
}

namespace {

using strides_per_operand = std::int64_t[max_rank];

// The distinct inputs, found by memory, dtype and strides over the index space's `rank`
// dimensions (`strides_of` writes a slot's), with their strides in `distinct_strides`. More than
// max_inputs is invalid_argument: each is a kernel parameter. A slot naming the same array or
// view as an earlier distinct one (the same pointer and layout object) is that one at once: a
// formula that uses its operands many times costs a comparison per appearance.
template <class StridesOf> void find_distinct_inputs(const evaluation& e, plan& p, const StridesOf& strides_of,
                                                     int rank, strides_per_operand* distinct_strides) {
  const kernel_desc& d = e.desc;
  for (unsigned k = 0; k < d.input_count; ++k) {
    unsigned same = p.distinct_count;
    for (unsigned j = 0; j < p.distinct_count && same == p.distinct_count; ++j) {
      const unsigned slot = p.distinct_slot[j];
      if (e.input_layouts[slot] == e.input_layouts[k] && e.inputs[slot] == e.inputs[k] &&
          d.input_types[slot] == d.input_types[k])
        same = j;
    }
    if (same < p.distinct_count) {
      p.variant.unique_of[k] = static_cast<std::uint8_t>(same);
      continue;
    }
    std::int64_t strides[max_rank];
    strides_of(*e.input_layouts[k], strides);
    for (unsigned j = 0; j < p.distinct_count && same == p.distinct_count; ++j) {
      const unsigned slot = p.distinct_slot[j];
      if (e.inputs[slot] == e.inputs[k] && d.input_types[slot] == d.input_types[k] &&
          std::equal(strides, strides + rank, distinct_strides[j]))
        same = j;
    }
    if (same == p.distinct_count) {
      if (same == max_inputs)
        throw invalid_argument("jet: `" + describe(d) + "` has more than " + std::to_string(max_inputs) +
                               " distinct array operands (jet::detail::max_inputs; each is a kernel parameter)");
      p.distinct[same] = e.inputs[k];
      p.distinct_slot[same] = static_cast<std::uint16_t>(k);
      std::copy(strides, strides + rank, distinct_strides[same]);
      ++p.distinct_count;
    }
    p.variant.unique_of[k] = static_cast<std::uint8_t>(same);
  }
  p.variant.input_slots = static_cast<std::uint16_t>(d.input_count);
}

// Whether repeat x lies inside the later copy of a repeat in `holding`: that copy is not computed,
// so neither is x, and its bit stays clear (one variant for both).
bool inside_holding(const kernel_desc& d, const repeat& x, std::uint64_t holding) {
  for (; holding; holding &= holding - 1) {
    const repeat& outer = d.repeats[std::countr_zero(holding)];
    if (outer.node + 1 - outer.size <= x.node && x.node <= outer.node) return true;
  }
  return false;
}

bool same_bytes(const scalar_value& a, const scalar_value& b) {
  return std::memcmp(a.bytes, b.bytes, sizeof a.bytes) == 0;
}

// The description's repeats that hold in this evaluation: each input slot of the repeat is the
// same distinct input as the earlier subtree's (the same memory, dtype and strides), each scalar
// the same bytes. The outer repeats come first, so a nested one inside a holding copy is skipped.
std::uint64_t holding_repeats(const evaluation& e, const variant_key& v) {
  std::uint64_t holding = 0;
  for (unsigned r = 0; r < e.desc.repeat_count; ++r) {
    const repeat& x = e.desc.repeats[r];
    if (inside_holding(e.desc, x, holding)) continue;
    bool same = true;
    for (unsigned k = 0; k < x.input_count && same; ++k)
      same = v.unique_of[x.input_first + k] == v.unique_of[x.same_input_first + k];
    for (unsigned k = 0; k < x.scalar_count && same; ++k)
      same = same_bytes(e.scalars[x.scalar_first + k], e.scalars[x.same_scalar_first + k]);
    if (same) holding |= std::uint64_t{1} << r;
  }
  return holding;
}

// Merges each dimension of s into the next inner one where every operand steps through both as
// one: contiguous operands then need no index arithmetic at all. Fills the plan's extents and
// strides; returns its rank.
int merge_dimensions(plan& p, const kernel_desc& d, const jet::shape& s, const strides_per_operand* distinct_strides,
                     const strides_per_operand* out_strides) {
  const int rank = s.rank();
  auto strides_of = [&](unsigned operand) -> const std::int64_t* {
    return operand < p.distinct_count ? distinct_strides[operand] : out_strides[operand - p.distinct_count];
  };
  const unsigned operands = p.distinct_count + d.out_count;
  int merged = 0;  // dimensions of the index space, innermost first while building
  std::int64_t extents[max_rank];
  std::int64_t strides[max_inputs + max_outputs][max_rank];
  for (int dim = rank - 1; dim >= 0; --dim) {
    if (s[dim] == 1) continue;
    bool joins = merged > 0;
    for (unsigned o = 0; joins && o < operands; ++o) {
      std::int64_t next = 0;  // the stride that would step over the merged dimension
      joins = multiply(strides[o][merged - 1], extents[merged - 1], next) && strides_of(o)[dim] == next;
    }
    if (joins) {
      extents[merged - 1] =
          checked_multiply(extents[merged - 1], s[dim], [&] { return "the index space of shape " + s.to_string(); });
      continue;
    }
    extents[merged] = s[dim];
    for (unsigned o = 0; o < operands; ++o) strides[o][merged] = strides_of(o)[dim];
    ++merged;
  }
  if (merged == 0) {  // a single element
    extents[0] = 1;
    for (unsigned o = 0; o < operands; ++o) strides[o][0] = 1;
    merged = 1;
  }
  p.variant.rank = static_cast<std::uint8_t>(merged);
  for (int dim = 0; dim < merged; ++dim) {
    p.extents[dim] = extents[merged - 1 - dim];
    for (unsigned o = 0; o < operands; ++o) {
      std::int64_t* target = o < p.distinct_count ? p.input_strides[o] : p.output_strides[o - p.distinct_count];
      target[dim] = strides[o][merged - 1 - dim];
    }
  }
  return merged;
}

// Each operand's access over the merged index space, then the widest vector every access allows.
void choose_accesses(const evaluation& e, plan& p, int merged) {
  const kernel_desc& d = e.desc;
  const std::int64_t inner = p.extents[merged - 1];
  unsigned vec = max_vector_width(d);
  if (merged > 1 && !p.variant.rows && inner % vec) vec = 1;  // a vector must not cross a row
  auto allow = [&](access a, const void* ptr, const std::int64_t* st, int size) {
    if (a == access::gather ||
        ((a == access::linear || a == access::unit) && !rows_aligned_for(vec, ptr, st, merged, size)))
      vec = 1;
  };
  for (unsigned k = 0; k < p.distinct_count; ++k) {
    p.variant.input_access[k] = access_of(p.input_strides[k], p.extents, merged);
    allow(p.variant.input_access[k], p.distinct[k], p.input_strides[k], size_of(d.input_types[p.distinct_slot[k]]));
  }
  for (unsigned k = 0; k < d.out_count; ++k) {
    const layout& l = e.output_layouts[k];
    for (int dim = 0; dim < l.extents.rank(); ++dim)
      if (e.outputs[k] && l.extents[dim] > 1 && l.strides[dim] == 0)  // a reduction's rows repeat it
        throw invalid_argument("jet: an output of `" + describe(d) + "` repeats elements (stride 0 in dimension " +
                               std::to_string(dim) + "); write to an array instead");
    const access a = access_of(p.output_strides[k], p.extents, merged);
    p.variant.output_access[k] = a;
    allow(a, e.outputs[k], p.output_strides[k], size_of(d.out_types[k]));
  }
  if (p.variant.tiled) {
    assign_tiled_accesses(p, d, merged);
    vec = 1;
  } else if (vec == 1 && !p.variant.rows) {  // one element at a time: every strided operand computes its offset alike
    for (unsigned k = 0; k < p.distinct_count; ++k)
      if (p.variant.input_access[k] != access::linear) p.variant.input_access[k] = access::gather;
    for (unsigned k = 0; k < d.out_count; ++k)
      if (p.variant.output_access[k] != access::linear) p.variant.output_access[k] = access::gather;
  }
  p.variant.vec = static_cast<std::uint8_t>(vec);
  p.variant.index32 = p.n < (std::size_t{1} << 32);
}

// Outputs against inputs (and each other): the very same elements are safe in place, since each
// element is read and then written by one thread; any other overlap needs a temporary.
void check_overlaps(const evaluation& e, plan& p, int merged) {
  const kernel_desc& d = e.desc;
  for (unsigned k = 0; k < d.out_count; ++k) {
    if (!e.outputs[k]) continue;  // jet::precompile's assumed output
    const int out_size = size_of(d.out_types[k]);
    const byte_range out = range_of(e.outputs[k], e.output_layouts[k], out_size);
    for (unsigned j = 0; j < k; ++j)
      if (overlaps(out, range_of(e.outputs[j], e.output_layouts[j], size_of(d.out_types[j]))))
        throw invalid_argument("jet: two outputs of `" + describe(d) + "` overlap in memory");
    for (unsigned j = 0; j < p.distinct_count; ++j) {
      const unsigned slot = p.distinct_slot[j];
      if (is_counter(d, slot)) continue;  // reads no memory
      const int in_size = size_of(d.input_types[slot]);
      const bool same_elements = p.distinct[j] == e.outputs[k] && in_size == out_size &&
                                 std::equal(p.input_strides[j], p.input_strides[j] + merged, p.output_strides[k]);
      if (same_elements)
        p.variant.out_aliases_input = true;
      else if (overlaps(out, range_of(p.distinct[j], *e.input_layouts[slot], in_size)))
        p.output_needs_temporary[k] = true;
    }
  }
}

}  // namespace

plan make_plan(const evaluation& e, const jet::shape& output_shape) {
  const kernel_desc& d = e.desc;
  plan p;
  p.n = output_shape.size();
  const bool linear = all_contiguous(e, output_shape);
  const jet::shape s = linear ? jet::shape::of_size(p.n) : output_shape;
  auto strides_over_s = [&](const layout& l, std::int64_t* strides) {
    if (linear)
      strides[0] = 1;
    else
      align_strides(l, s, strides);
  };
  std::int64_t distinct_strides[max_inputs][max_rank];  // each distinct input's over the output's dimensions
  find_distinct_inputs(e, p, strides_over_s, s.rank(), distinct_strides);
  p.variant.shared = holding_repeats(e, p.variant);
  std::int64_t out_strides[max_outputs][max_rank];
  for (unsigned k = 0; k < d.out_count; ++k) strides_over_s(e.output_layouts[k], out_strides[k]);
  const int merged = merge_dimensions(p, d, s, distinct_strides, out_strides);

  // A transposed operand makes the kernel tiled, over its contiguous dimension moved next to the
  // inner one.
  const int tile_dim = tile_dimension(p, d, merged);
  if (tile_dim >= 0) move_dimension(p, d, tile_dim, merged - 2);
  p.variant.tiled = tile_dim >= 0;
  p.variant.heavy = d.reduction == reduction_id::none && heavy_formula(d);
  // Rows at least a block's threads long otherwise: a block per chunk of a row, so that no element
  // unravels its multi-index (a division per dimension) or recomputes its operands' offsets.
  const std::int64_t inner = p.extents[merged - 1];
  p.variant.rows = merged > 1 && !p.variant.tiled && d.reduction == reduction_id::none &&
                   inner >= static_cast<std::int64_t>(shape_of(p.variant).threads);
  choose_accesses(e, p, merged);
  check_overlaps(e, p, merged);
  return p;
}
}  // namespace jet::detail
