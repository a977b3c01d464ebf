#include "codegen/reduction.hpp"

#include "codegen/geometry.hpp"
#include "codegen/kernel_parts.hpp"
#include "codegen/source_text.hpp"
#include "codegen/spelling.hpp"

#include <jet/detail/rules.hpp>

#include <functional>
#include <string>

namespace jet::detail {
namespace {

// How the values of a warp and of a block combine: a fixed tree, the same order every run.
constexpr std::string_view combine_helpers = R"cuda(__device__ __forceinline__ T jet_warp_combine(T a) {
#pragma unroll
  for (int m = 16; m > 0; m /= 2) a = jet_combine(a, jet_shuffle_xor(a, m));
  return a;
}
// The block's values combined, in thread 0.
template <unsigned threads> __device__ __forceinline__ T jet_block_combine(T a) {
  __shared__ T warps[threads / 32];
  a = jet_warp_combine(a);
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = a;
  __syncthreads();
  if (threadIdx.x < 32) a = jet_warp_combine(threadIdx.x < threads / 32 ? warps[threadIdx.x] : jet_identity());
  __syncthreads();  // warps[] is free for the next call
  return a;
}
)cuda";

// The reduction's device functions over its accumulator type T: identity, map, combine, the
// result from the total, and the combination of a warp's and a block's values (a fixed tree: the
// same order every run).
void reduction_functions(source_writer& w, const kernel_desc& d) {
  const reduction_spelling& r = reduction_spellings[static_cast<int>(d.reduction)];
  const reduction_typing t = resolve_reduction(d.reduction, d.nodes[d.out_nodes[0]].type);
  const std::string result = storage_type(t.result);
  w.raw(reduction_helpers);
  if (reduction_rules[static_cast<int>(d.reduction)] == reduction_rule::index) {
    w.line("typedef ", storage_type(t.accumulator), " V;");
    w.line("typedef jet_indexed<V> T;");
  } else {
    w.line("typedef ", storage_type(t.accumulator), " T;");
  }
  w.line("__device__ __forceinline__ T jet_identity() { return ", r.identity, "; }");
  w.line("template <class E> __device__ __forceinline__ T jet_map(E e, long long i) { return ", r.map, "; }");
  w.line("__device__ __forceinline__ T jet_combine(T a, T b) { return ", r.combine, "; }");
  w.open("__device__ __forceinline__ ", result, " jet_finish(T a, double n) {");
  w.line("const auto f = ", r.finish, ";");
  w.line("return ", stored_as_bits(t.result) ? rounded(t.result, "(float)f") : "jet_convert<" + result + ">(f)", ";");
  w.close();
  w.raw(combine_helpers);
}

// What a reduction's kernels share: the expression's parts and its element type.
struct reduction_context {
  const kernel_parts& parts;
  std::string element;

  // The kernel's first lines, up to its body: the result's parameter, then open_kernel's, then `more`.
  void open_kernel(source_writer& w, std::string_view more) const {
    const reduction_typing t = resolve_reduction(parts.d.reduction, parts.d.nodes[parts.d.out_nodes[0]].type);
    parts.open_kernel(w, reduction_threads, storage_type(t.result) + "* __restrict__ out", more);
  }
  // One element's contribution: jet_element into e, then mapped (with its index, `index`) and
  // combined into acc.
  void accumulate(source_writer& w, const std::string& acc, const std::string& args, const std::string& index) const {
    w.line("{ ", element, " e; jet_element(e", args, "); ", acc, " = jet_combine(", acc, ", jet_map(e, (long long)(",
           index, "))); }");
  }
};

// acc[count], each the identity, `var` counting them.
void start_accumulators(source_writer& w, std::string_view count, std::string_view var) {
  w.line("T acc[", count, "];");
  w.line("#pragma unroll");
  w.line("for (unsigned ", var, " = 0; ", var, " < ", count, "; ++", var, ") acc[", var, "] = jet_identity();");
}
// acc[1] ... acc[count - 1] combined into acc[0].
void combine_accumulators(source_writer& w, std::string_view count, std::string_view var) {
  w.line("#pragma unroll");
  w.line("for (unsigned ", var, " = 1; ", var, " < ", count, "; ++", var, ") acc[0] = jet_combine(acc[0], acc[", var,
         "]);");
}

// The end of an all-elements kernel: each block's partial into `partials`, and the last block to
// take a ticket combines them in block order, then resets the ticket for the next launch.
// Thread 0 publishes the block's partial with a release and takes its ticket with an acquire
// in one atomic (acq_rel, at GPU scope): the last block's acquire sees every partial stored
// before an earlier ticket, and its barrier passes that on to the block's other threads. (A
// __threadfence() before and after a plain atomicAdd also orders them, 0.3 us slower at 2^20.)
constexpr std::string_view last_block_combines = R"cuda(const T total = jet_block_combine<threads>(acc[0]);
__shared__ bool last;
if (threadIdx.x == 0) {
  partials[blockIdx.x] = total;
  unsigned taken;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(taken) : "l"(ticket) : "memory");
  last = taken == gridDim.x - 1;
}
__syncthreads();
if (!last) return;
T a = jet_identity();
for (unsigned b = threadIdx.x; b < gridDim.x; b += threads) a = jet_combine(a, jet_read_volatile(partials + b));
a = jet_block_combine<threads>(a);
if (threadIdx.x == 0) {
  out[0] = jet_finish(a, (double)n);
  *ticket = 0;  // ready for the next launch: no memset needed
}
)cuda";

// All elements into one result. A grid of at most a few blocks per multiprocessor strides over
// the tiles; each block's partial goes to `partials`, and the last block to take a ticket combines
// them in block order (one launch, and no float atomics: the same result every run). It then
// resets the ticket for the next launch.
void all_elements_kernel(source_writer& w, const reduction_context& r) {
  const kernel_parts& parts = r.parts;
  const kernel_shape shape{reduction_threads, reduction_ilp, parts.v.vec};
  r.open_kernel(w, ", T* __restrict__ partials, unsigned* __restrict__ ticket");
  declare_shape(w, shape, "tile");
  if (parts.indexed) parts.declare_index(w);
  start_accumulators(w, "ilp", "k");
  w.line("const unsigned long long full = n / tile * tile;");
  w.line("for (unsigned long long base = (unsigned long long)blockIdx.x * tile; base < full;");
  w.open("     base += (unsigned long long)gridDim.x * tile) {");
  parts.tile_loads(w, shape);
  w.raw(R"cuda(#pragma unroll
for (unsigned k = 0; k < ilp; ++k)
#pragma unroll
  for (unsigned j = 0; j < vec; ++j)
)cuda");
  w.indent();
  w.indent();
  r.accumulate(w, "acc[k]", parts.tile_args(), "base + (k * threads + threadIdx.x) * vec + j");
  w.outdent();
  w.outdent();
  w.close();
  w.line("// the elements after the last full tile, one per thread");
  w.line("for (unsigned long long i = full + (unsigned long long)blockIdx.x * threads + threadIdx.x; i < n;");
  w.open("     i += (unsigned long long)gridDim.x * threads) {");
  parts.unravel(w);
  r.accumulate(w, "acc[0]", parts.element_args([&](unsigned k) { return parts.strided_offset(k); }), "i");
  w.close();
  combine_accumulators(w, "ilp", "k");
  w.raw(last_block_combines);
  w.close();
}

// jet_element's arguments for element j of the row, read through input k's stride along the axis.
std::string element_at(const kernel_parts& parts, const std::string& j) {
  const std::string stride_along_axis = ".s[" + number(parts.v.rank - 1u) + "]";
  return parts.element_args([&](unsigned k) {
    const std::string kk = number(k);
    return "b" + kk + " + (long long)(" + j + ") * is" + kk + stride_along_axis;
  });
}

// The inner axis's loop over its row's elements, into acc[]. Item c of the row is its element c,
// or its vector c (elements c * vec ...). While all of a thread's `unroll` items are in the row,
// they are read unmasked, every load in flight before the first use (ptxas issues masked loads,
// each a branch, one use at a time: benchmarks/RESULTS.md); then the rest, at most unroll - 1
// items a thread.
void inner_axis_loop(source_writer& w, const reduction_context& r) {
  const kernel_parts& parts = r.parts;
  const bool vectors = parts.v.vec > 1;
  // The k-th vector of this thread's items into vK[k] (`count` of them), then its elements into acc[k].
  auto declare_vectors = [&](std::string_view count) {
    for (unsigned k = 0; k < parts.inputs; ++k)
      w.line(kernel_parts::vec_type(parts.in_type(k)), " v", k, "[", count, "];");
  };
  const std::function<void()> load = [&] {
    for (unsigned k = 0; k < parts.inputs; ++k)
      w.line("v", k, "[k] = *reinterpret_cast<const ", kernel_parts::vec_type(parts.in_type(k)), "*>(in", k, " + b", k,
             " + (c + k * step) * vec);");
  };
  const std::function<void()> use = [&] {
    w.line("#pragma unroll");
    w.line("for (unsigned j = 0; j < vec; ++j)");
    w.indent();
    r.accumulate(w, "acc[k]", parts.tile_args(), "(c + k * step) * vec + j");
    w.outdent();
  };
  w.line("const unsigned long long items = length", vectors ? " / vec" : "", ";");
  w.line("unsigned long long c = first;");
  w.open("for (; c + (unroll - 1) * step < items; c += unroll * step) {");
  if (vectors) {
    declare_vectors("unroll");
    for (const std::function<void()>& part : {load, use}) {
      w.line("#pragma unroll");
      w.open("for (unsigned k = 0; k < unroll; ++k) {");
      part();
      w.close();
    }
  } else {
    w.line("#pragma unroll");
    w.line("for (unsigned k = 0; k < unroll; ++k)");
    w.indent();
    r.accumulate(w, "acc[k]", element_at(parts, "c + k * step"), "c + k * step");
    w.outdent();
  }
  w.close();
  w.open("for (; c < items; c += step) {");
  if (vectors) {
    declare_vectors("1");
    w.line("const unsigned k = 0;");
    for (const std::function<void()>& part : {load, use}) {
      w.open("{");
      part();
      w.close();
    }
  } else {
    r.accumulate(w, "acc[0]", element_at(parts, "c"), "c");
  }
  w.close();
}

// An outer axis: 8 warps of a block each read 128 bytes of a row of the axis. While all of a
// thread's `unroll` rows are in the axis they are read unmasked, every load in flight before the
// first use (as inner_axis_loop's); then the rest, one at a time.
void outer_axis_loop(source_writer& w, const reduction_context& r) {
  w.line("unsigned long long j = first;");
  w.open("for (; j + (unroll - 1) * step < length; j += unroll * step) {");
  w.line("#pragma unroll");
  w.line("for (unsigned u = 0; u < unroll; ++u)");
  w.indent();
  r.accumulate(w, "acc[u]", element_at(r.parts, "j + u * step"), "j + u * step");
  w.outdent();
  w.close();
  w.line("for (; j < length; j += step)");
  w.indent();
  r.accumulate(w, "acc[0]", element_at(r.parts, "j"), "j");
  w.outdent();
}

// The ends of the axis kernels: each row's values combined, across a group's warps (inner) or a
// block's slices (outer), and its result stored.
constexpr std::string_view inner_axis_end = R"cuda(T a = jet_warp_combine(acc[0]);
__shared__ T warps[threads / 32];
if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = a;
__syncthreads();
if (first == 0 && row < n) {
  for (unsigned w = 1; w < lanes / 32; ++w) a = jet_combine(a, warps[threadIdx.x / 32 + w]);
  out[row] = jet_finish(a, (double)length);
}
)cuda";
constexpr std::string_view outer_axis_end = R"cuda(__shared__ T slices[threads];
slices[threadIdx.x] = acc[0];
__syncthreads();
if (first == 0 && row < n) {
  T a = acc[0];
  for (unsigned s = 1; s < step; ++s) a = jet_combine(a, slices[s * columns + threadIdx.x]);
  out[row] = jet_finish(a, (double)length);
}
)cuda";

// Along an axis: the index space is (results..., axis); result `row` combines the elements
// row * length + j. A group of `step` threads takes a row, thread `first` of it the elements j =
// first, first + step, ..., `unroll` loads in flight. Inner: a group of `lanes` threads (a
// multiple of 32) per row, combined by warp shuffles and then across its warps; outer: 32
// neighbouring rows per block, each split over the block's 8 warps and combined in shared memory.
void axis_kernel(source_writer& w, const reduction_context& r) {
  const kernel_parts& parts = r.parts;
  const variant_key& v = parts.v;
  const bool inner = v.axis == reduce_axis::inner;
  r.open_kernel(w, inner ? ", const unsigned lanes" : "");
  if (inner) {
    // Rows read a vector at a time (every input contiguous along them, each row aligned) keep 4
    // vectors in flight a thread; rows read an element at a time, 8 elements.
    w.line("constexpr unsigned threads = ", reduction_threads, ", unroll = ", v.vec > 1 ? "4" : "8", ", vec = ", v.vec,
           ";");
    parts.declare_index(w);
    w.line("const unsigned first = threadIdx.x & (lanes - 1), step = lanes;");
    w.line("const unsigned long long row = (unsigned long long)blockIdx.x * (threads / lanes) + threadIdx.x / lanes;");
  } else {
    w.line("constexpr unsigned threads = ", reduction_threads, ", unroll = 8;");
    parts.declare_index(w);
    w.line("constexpr unsigned columns = 32, step = threads / columns;");
    w.line("const unsigned first = threadIdx.x / columns;");
    w.line("const unsigned long long row = (unsigned long long)blockIdx.x * columns + threadIdx.x % columns;");
  }
  w.line("const unsigned long long length = extents.e[", v.rank - 1u, "];");
  start_accumulators(w, "unroll", "u");
  // A row of no elements (an axis of extent 0) reads nothing: its result is the identity's, and
  // unravelling its first element would divide by the extent.
  w.open("if (row < n && length != 0) {");
  w.line("const unsigned long long i = row * length;");
  parts.unravel(w);
  for (unsigned k = 0; k < parts.inputs; ++k) w.line("const long long b", k, " = ", parts.strided_offset(k), ";");
  if (inner)
    inner_axis_loop(w, r);
  else
    outer_axis_loop(w, r);
  w.close();
  combine_accumulators(w, "unroll", "u");
  w.raw(inner ? inner_axis_end : outer_axis_end);
  w.close();
}

}  // namespace

std::string generate_reduction_source(const kernel_desc& d, const variant_key& v) {
  const kernel_parts parts{d, v};
  const reduction_typing t = resolve_reduction(d.reduction, d.nodes[d.out_nodes[0]].type);
  constexpr const char* axis_names[] = {"", "all elements", "the inner axis", "an outer axis"};
  source_writer w;
  parts.prelude(w, std::string(reduction_spellings[static_cast<int>(d.reduction)].tag) + " over " +
                       axis_names[static_cast<int>(v.axis)] + ", " + std::string(name(t.result)));
  reduction_functions(w, d);
  const reduction_context r{parts, parts.out_type(0)};
  if (v.axis == reduce_axis::all)
    all_elements_kernel(w, r);
  else
    axis_kernel(w, r);
  return w.take();
}

}  // namespace jet::detail
