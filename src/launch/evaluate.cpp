// One evaluation: check shapes, plan the launch from the operands' layouts and addresses (which
// inputs are the same memory, how each is indexed, whether vectors fit), find the kernel, launch it
// once.
#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "compile/cached_compile.hpp"
#include "driver/driver.hpp"
#include "driver/stream.hpp"
#include "driver/workspace.hpp"
#include "interpreter/encoder.hpp"
#include "interpreter/launcher.hpp"
#include "interpreter/source.hpp"
#include "kernel_cache.hpp"
#include "settings.hpp"
#include "stats.hpp"
#include "launch/plan.hpp"

#include <jet/detail/rules.hpp>
#include <jet/error.hpp>
#include <jet/runtime.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace jet::detail {
namespace {

unsigned max_reduction_blocks() { return static_cast<unsigned>(properties().multiprocessors) * reduction_blocks_per_sm; }

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
  std::uint8_t distinct_slot[max_inputs];  // a slot of each distinct input
  unsigned distinct_count = 0;
  bool output_needs_temporary[max_outputs]{};
};

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

// Strides of a layout over the output's rank: missing leading and size-1 dimensions repeat.
void align_strides(const layout& l, const jet::shape& s, std::int64_t* strides) {
  const int shift = s.rank() - l.extents.rank();
  for (int d = 0; d < s.rank(); ++d)
    strides[d] = d < shift || l.extents[d - shift] == 1 ? 0 : l.strides[d - shift];
}

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
    if (from < to) std::rotate(a + from, a + from + 1, a + to + 1);
    else std::rotate(a + to, a + from, a + from + 1);
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

// Whether every operand is contiguous and of the output's shape (the common case): then the whole
// evaluation is one linear dimension, and no strides need aligning or merging.
bool all_contiguous(const evaluation& e, const jet::shape& s) {
  for (unsigned k = 0; k < e.desc.out_count; ++k)
    if (!(e.output_layouts[k].extents == s) || !e.output_layouts[k].is_contiguous()) return false;
  for (unsigned k = 0; k < e.desc.input_count; ++k)
    if (!(e.input_layouts[k].extents == s) || !e.input_layouts[k].is_contiguous()) return false;
  return true;
}

// Whether an operand of elements of `size` bytes at `data`, with these strides over `rank`
// dimensions, starts every row (the inner dimension's run) on a boundary of `vec` elements.
bool rows_aligned_for(unsigned vec, const void* data, const std::int64_t* strides, int rank, int size) {
  if (reinterpret_cast<std::uintptr_t>(data) % (vec * static_cast<unsigned>(size)) != 0) return false;
  for (int dim = 0; dim + 1 < rank; ++dim)
    if (strides[dim] % vec != 0) return false;
  return true;
}

plan make_plan(const evaluation& e, const jet::shape& output_shape) {
  const kernel_desc& d = e.desc;
  plan p;
  p.n = output_shape.size();
  const bool linear = all_contiguous(e, output_shape);
  const jet::shape s = linear ? jet::shape::of_size(p.n) : output_shape;
  const int rank = s.rank();
  auto strides_over_s = [&](const layout& l, std::int64_t* strides) {
    if (linear) strides[0] = 1;
    else align_strides(l, s, strides);
  };

  // Every operand's strides over the output's dimensions; distinct inputs found by memory,
  // dtype and strides.
  std::int64_t slot_strides[max_inputs][max_rank];
  for (unsigned k = 0; k < d.input_count; ++k) {
    strides_over_s(e.input_layouts[k], slot_strides[k]);
    unsigned same = p.distinct_count;
    for (unsigned j = 0; j < p.distinct_count && same == p.distinct_count; ++j) {
      const unsigned slot = p.distinct_slot[j];
      if (e.inputs[slot] == e.inputs[k] && d.input_types[slot] == d.input_types[k] &&
          std::equal(slot_strides[slot], slot_strides[slot] + rank, slot_strides[k]))
        same = j;
    }
    if (same == p.distinct_count) {
      p.distinct[same] = e.inputs[k];
      p.distinct_slot[same] = static_cast<std::uint8_t>(k);
      ++p.distinct_count;
    }
    p.variant.unique_of[k] = static_cast<std::uint8_t>(same);
  }
  std::int64_t out_strides[max_outputs][max_rank];
  for (unsigned k = 0; k < d.out_count; ++k) strides_over_s(e.output_layouts[k], out_strides[k]);

  // Merge each dimension into the next inner one where every operand steps through both as one:
  // contiguous operands then need no index arithmetic at all.
  auto strides_of = [&](unsigned operand) -> const std::int64_t* {
    return operand < p.distinct_count ? slot_strides[p.distinct_slot[operand]] : out_strides[operand - p.distinct_count];
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

  // A transposed operand makes the kernel tiled, over its contiguous dimension moved next to the
  // inner one.
  const int tile_dim = tile_dimension(p, d, merged);
  if (tile_dim >= 0) move_dimension(p, d, tile_dim, merged - 2);
  p.variant.tiled = tile_dim >= 0;
  // Rows at least a block's threads long otherwise: a block per chunk of a row, so that no element
  // unravels its multi-index (a division per dimension) or recomputes its operands' offsets.
  const std::int64_t inner = p.extents[merged - 1];
  p.variant.rows = merged > 1 && !p.variant.tiled && d.reduction == reduction_id::none &&
                   inner >= static_cast<std::int64_t>(shape_of(p.variant).threads);

  // Access per operand, then the widest vector every access allows.
  unsigned vec = max_vector_width(d);
  if (merged > 1 && !p.variant.rows && inner % vec) vec = 1;  // a vector must not cross a row
  auto allow = [&](access a, const void* ptr, const std::int64_t* st, int size) {
    if (a == access::gather || ((a == access::linear || a == access::unit) && !rows_aligned_for(vec, ptr, st, merged, size)))
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

  // Outputs against inputs (and each other): the very same elements are safe in place, since each
  // element is read and then written by one thread; any other overlap needs a temporary.
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
      if (same_elements) p.variant.out_aliases_input = true;
      else if (overlaps(out, range_of(p.distinct[j], e.input_layouts[slot], in_size))) p.output_needs_temporary[k] = true;
    }
  }
  return p;
}

// Why the interpreter cannot run this evaluation as planned (empty when it can): it reads
// operands one way only, contiguous (a strided or broadcast operand compiles instead).
std::string interpreter_refusal(const evaluation& e, const plan& p, encoding& code) {
  const variant_key& v = p.variant;
  if (uses_index_space(e.desc, v)) return "an operand is strided or broadcast";
  code = encode_for_interpreter(e.desc, e.scalars, v.unique_of);
  return code.family ? std::string() : code.reason;
}

// The compiled kernel to launch, or null when the interpreter runs the evaluation (`code`), as
// the jit policy decides. Under async, a kernel the disk cache holds is loaded at once, and while
// the interpreter itself is not ready (compiling in the background, once per machine) the
// expression compiles here: neither waits for the interpreter's much longer compile.
CUfunction choose_kernel(const evaluation& e, const plan& p, encoding& code) {
  const kernel_desc& d = e.desc;
  const variant_key& v = p.variant;
  const jit_policy policy = current_jit_policy();
  if (policy == jit_policy::sync) return find_kernel(d, e.slot, v);
  if (policy == jit_policy::async) {
    if (CUfunction f = find_in_slot(e.slot, v)) return f;
    if (CUfunction f = find_stored_kernel(d, e.slot, v)) return f;
  }
  std::string refusal = interpreter_refusal(e, p, code);
  if (refusal.empty() && policy == jit_policy::async && !interpreter_ready(*code.family))
    refusal = "the interpreter is still compiling";
  if (!refusal.empty()) {
    log_info("compiling `" + describe(d) + "` rather than interpreting it: " + refusal);
    return find_kernel(d, e.slot, v);
  }
  return policy == jit_policy::async ? find_ready_kernel(d, e.slot, v) : nullptr;
}

// The kernel parameters after the outputs, in the generated order: distinct inputs, their strides,
// scalars, n, the index space's extents. `pointers` holds the input pointers that params point to.
struct parameters {
  void* params[2 * max_outputs + 2 * max_inputs + max_scalars + 6];
  unsigned count = 0;
  const void* inputs[max_inputs];
  unsigned long long n;
};
void pack_inputs(const evaluation& e, const plan& p, std::size_t n, parameters& a) {
  const kernel_desc& d = e.desc;
  const variant_key& v = p.variant;
  for (unsigned k = 0; k < p.distinct_count; ++k) {
    a.inputs[k] = p.distinct[k];
    if (!is_counter(d, p.distinct_slot[k])) a.params[a.count++] = &a.inputs[k];
    if (v.input_access[k] != access::linear) a.params[a.count++] = const_cast<std::int64_t*>(p.input_strides[k]);
  }
  for (unsigned k = 0; k < d.scalar_count; ++k) a.params[a.count++] = const_cast<scalar_value*>(&e.scalars[k]);
  a.n = n;
  a.params[a.count++] = &a.n;
  if (uses_index_space(d, v)) a.params[a.count++] = const_cast<std::int64_t*>(p.extents);
}

void launch(CUfunction f, unsigned long long blocks, unsigned threads, parameters& a, unsigned rows = 1) {
  launch_kernel(f, blocks, threads, a.params, rows);
  stats_counters().launches.fetch_add(1, std::memory_order_relaxed);
}

void launch(const evaluation& e, const plan& p) {
  const kernel_desc& d = e.desc;
  const variant_key& v = p.variant;
  encoding code;
  CUfunction f = choose_kernel(e, p, code);
  if (!f) return launch_interpreter(code, e.outputs, p.distinct, p.n);

  // Kernel parameters in the generated order: outputs and their strides, then the inputs'.
  parameters a;
  void* outputs[max_outputs];
  for (unsigned k = 0; k < d.out_count; ++k) {
    outputs[k] = e.outputs[k];
    a.params[a.count++] = &outputs[k];
    if (v.output_access[k] != access::linear) a.params[a.count++] = const_cast<std::int64_t*>(p.output_strides[k]);
  }
  pack_inputs(e, p, p.n, a);
  const launch_grid grid = grid_of(v, p.n, p.extents);
  launch(f, grid.blocks, grid.threads, a, grid.rows);
}

// out = in, for any layouts: how a temporary reaches an output it could not be written to directly.
void copy(void* out, const layout& out_layout, const void* in, const layout& in_layout, dtype t) {
  struct copy_kernel {
    node nodes[1];
    dtype types[1];
    std::uint16_t roots[1] = {0};
    kernel_desc desc;
    kernel_slot slot;
  };
  static copy_kernel kernels[dtype_count];
  static std::once_flag made[dtype_count];
  copy_kernel& k = kernels[static_cast<int>(t)];
  std::call_once(made[static_cast<int>(t)], [&] {
    k.nodes[0] = node{op_id::input, t};
    k.types[0] = t;
    k.desc = {k.nodes, 1, 1, 0, k.types, 0, 1, k.roots, k.types, nullptr, 0,
              hash_desc(std::array<node, 1>{k.nodes[0]}, std::array<std::uint16_t, 1>{0}, std::array<dtype, 1>{t},
                        std::array<const user_function*, 0>{}, 0)};
  });
  void* outputs[] = {out};
  const void* inputs[] = {in};
  evaluate({k.desc, k.slot, outputs, &out_layout, inputs, &in_layout, nullptr});
}

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
  layout inputs[max_inputs];
  for (unsigned k = 0; k < d.input_count; ++k) {
    std::int64_t strides[max_rank];
    align_strides(e.input_layouts[k], s, strides);
    inputs[k] = {rows_then_axis, {}};
    for (int dim = 0, to = 0; dim < rank; ++dim)
      if (dim != axis) inputs[k].strides[to++] = strides[dim];
    inputs[k].strides[rank - 1] = strides[axis];
  }
  layout out = layout::contiguous(rows_then_axis);
  for (int dim = 0; dim + 1 < rank; ++dim) out.strides[dim] /= rows_then_axis[rank - 1];
  out.strides[rank - 1] = 0;
  void* no_output[] = {nullptr};
  plan p = make_plan({d, e.slot, no_output, &out, e.inputs, inputs, e.scalars}, rows_then_axis);

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

// The dimension of s that a reduction's `axis` names, negative counting from the end (no int
// overflows: the rank is at most 8); invalid_argument naming the axis and the rank when none.
int dimension_of(const kernel_desc& d, const jet::shape& s, int axis) {
  const int dim = axis < 0 ? axis + s.rank() : axis;
  if (dim < 0 || dim >= s.rank())
    throw invalid_argument("jet: " + describe(d) + ": axis " + std::to_string(axis) + " is out of range for shape " +
                           s.to_string() + " of rank " + std::to_string(s.rank()));
  return dim;
}

// How a reduction is launched: its plan and grid. No blocks when there are no results: nothing
// to launch.
struct reduction_plan {
  plan p;
  std::size_t results = 0;
  unsigned long long blocks = 0;
  unsigned lanes = 32;  // threads per row of an inner-axis reduction (a multiple of 32)
};

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
    r.blocks = std::clamp<std::size_t>((r.p.n + tile - 1) / tile, 1, std::size_t{multiprocessors} * reduction_blocks_per_sm);
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
  if (r.blocks > 0x7fffffff) throw invalid_argument("jet: " + describe(d) + ": too many results (" + std::to_string(results) + ")");
  return r;
}

}  // namespace

jet::shape reduced_shape(const kernel_desc& desc, const layout* inputs, std::optional<int> axis) {
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

void reduce(const evaluation& e, std::optional<int> axis) {
  const reduction_plan r = plan_reduction(e, axis, static_cast<unsigned>(properties().multiprocessors));
  if (r.blocks == 0) return;  // no results
  check_pointers(e, broadcast_shape(e.desc, e.input_layouts));
  parameters a;
  void* out = e.outputs[0];
  a.params[a.count++] = &out;
  CUfunction f = find_kernel(e.desc, e.slot, r.p.variant);
  pack_inputs(e, r.p, r.p.n, a);
  workspace w{};
  unsigned lanes = r.lanes;
  if (r.p.variant.axis == reduce_axis::all) {
    w = reduction_workspace(current_stream_handle(), std::size_t{8} * max_reduction_blocks());
    a.params[a.count++] = &w.partials;
    a.params[a.count++] = &w.ticket;
  } else if (r.p.variant.axis == reduce_axis::inner) {
    a.params[a.count++] = &lanes;
  }
  launch(f, r.blocks, reduction_threads, a);
}

reduction_launch planned_reduction(const evaluation& e, std::optional<int> axis, unsigned multiprocessors) {
  const reduction_plan r = plan_reduction(e, axis, multiprocessors);
  reduction_launch l{r.p.variant, r.results, r.blocks ? r.p.n : 0, {}, r.blocks, r.lanes};
  std::copy(r.p.extents, r.p.extents + (r.blocks ? r.p.variant.rank : 0), l.extents);
  return l;
}

void evaluate(const evaluation& e) {
  const jet::shape s = index_space(e);
  check_pointers(e, s);
  if (s.size() == 0) return;
  const plan p = make_plan(e, s);
  const kernel_desc& d = e.desc;
  if (std::none_of(p.output_needs_temporary, p.output_needs_temporary + d.out_count, [](bool b) { return b; }))
    return launch(e, p);

  // An output overlaps an input at another place (x[1:] = x[:-1] + y): evaluate into a contiguous
  // temporary, then copy, so that no element is read after it was overwritten. The temporary is
  // allocated and freed in order on the stream (capturable, no synchronization).
  struct temporary {
    void* p = nullptr;
    std::size_t bytes = 0;
    ~temporary() { device_free(p, bytes); }
  } temporaries[max_outputs];
  void* outputs[max_outputs];
  layout layouts[max_outputs];
  for (unsigned k = 0; k < d.out_count; ++k) {
    outputs[k] = e.outputs[k];
    layouts[k] = e.output_layouts[k];
    if (p.output_needs_temporary[k]) {
      temporaries[k].bytes = bytes_of(s, size_of(d.out_types[k]));
      outputs[k] = temporaries[k].p = device_alloc(temporaries[k].bytes);
      layouts[k] = layout::contiguous(s);
    }
  }
  const evaluation into{d, e.slot, outputs, layouts, e.inputs, e.input_layouts, e.scalars};
  launch(into, make_plan(into, s));
  for (unsigned k = 0; k < d.out_count; ++k)
    if (p.output_needs_temporary[k]) copy(e.outputs[k], e.output_layouts[k], outputs[k], layouts[k], d.out_types[k]);
}

void precompile(const evaluation* evaluations, std::size_t count) {
  std::vector<kernel_request> requests;
  for (std::size_t i = 0; i < count; ++i) {
    const evaluation& e = evaluations[i];
    const jet::shape s = broadcast_shape(e.desc, e.input_layouts);
    void* outputs[max_outputs] = {};
    layout layouts[max_outputs];
    for (unsigned k = 0; k < e.desc.out_count; ++k) layouts[k] = layout::contiguous(s);
    const evaluation planned{e.desc, e.slot, outputs, layouts, e.inputs, e.input_layouts, e.scalars};
    requests.push_back({&e.desc, &e.slot, make_plan(planned, s).variant});
  }
  find_kernels_in_parallel(requests.data(), requests.size());
}

variant_key planned_variant(const evaluation& e) { return make_plan(e, index_space(e)).variant; }

std::string source_of(const kernel_desc& desc) { return generate_source(desc, default_variant(desc)); }

std::string expression_text(const kernel_desc& desc) { return describe(desc); }

compiled_kernel compile_for(const kernel_desc& desc, arch target) {
  std::string source = source_of(desc);
  cached_cubin binary = cached_compile(source, target.value, describe(desc), {desc.node_count, desc.function_count});
  return {target, std::move(source), std::move(binary.image), binary.compile_ms, binary.from_disk};
}

}  // namespace jet::detail
