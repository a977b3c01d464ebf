#include "codegen/reduction.hpp"

#include "codegen/geometry.hpp"
#include "codegen/kernel_parts.hpp"
#include "codegen/source_text.hpp"
#include "codegen/spelling.hpp"

#include <jet/detail/rules.hpp>

#include <string>

namespace jet::detail {
namespace {

// How the values of a warp and of a block combine: a fixed tree, the same order every run.
constexpr std::string_view combine_helpers = R"cuda(__device__ __forceinline__ T jet_warp_combine(T a) {
#pragma unroll
  for (int m = 16; m > 0; m /= 2) a = jet_combine(a, T(__shfl_xor_sync(0xffffffffu, a, m)));
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
std::string reduction_functions(const kernel_desc& d) {
  const reduction_spelling& r = reduction_spellings[static_cast<int>(d.reduction)];
  const reduction_typing t = resolve_reduction(d.reduction, d.nodes[d.out_nodes[0]].type);
  const std::string result = storage_type(t.result), finished = std::string(r.finish);
  return std::string(reduction_helpers) + "typedef " + storage_type(t.accumulator) + " T;\n" +
         "__device__ __forceinline__ T jet_identity() { return " + std::string(r.identity) + "; }\n" +
         "__device__ __forceinline__ T jet_map(T a) { return " + std::string(r.map) + "; }\n" +
         "__device__ __forceinline__ T jet_combine(T a, T b) { return " + std::string(r.combine) + "; }\n" +
         "__device__ __forceinline__ " + result + " jet_finish(T a, double n) {\n  const auto f = " + finished +
         ";\n  return " +
         (stored_as_bits(t.result) ? rounded(t.result, "(float)f") : "jet_convert<" + result + ">(f)") + ";\n}\n" +
         std::string(combine_helpers);
}

// One tile of edge x edge elements of the two inner dimensions per block (rows along the outer of
// the two, columns along the inner), its batch dimensions unravelled from the block's number. A
// warp reads or writes a row of the tile for the direct (gather) operands, whose steps along the
// index space's inner dimension are short, and a column of it for the transposed ones, whose
// contiguous dimension is the outer one: both are coalesced, and a transposed operand's column

}  // namespace

namespace {

// What a reduction's kernels share: the expression's parts, its element type, the kernel's
// parameters before the reduction's own, and the index type's declaration.
struct reduction_context {
  const kernel_parts& parts;
  std::string element, params, index;

  // One element's contribution: jet_element into e, then mapped and combined into acc.
  std::string accumulate(const std::string& indent, const std::string& acc, const std::string& args) const {
    return indent + "{ " + element + " e; jet_element(e" + args + "); " + acc + " = jet_combine(" + acc +
           ", jet_map(T(e))); }\n";
  }
};

// The end of an all-elements kernel: each block's partial into `partials`, and the last block to
// take a ticket combines them in block order, then resets the ticket for the next launch.
// Thread 0 publishes the block's partial with a release and takes its ticket with an acquire
// in one atomic (acq_rel, at GPU scope): the last block's acquire sees every partial stored
// before an earlier ticket, and its barrier passes that on to the block's other threads. (A
// __threadfence() before and after a plain atomicAdd also orders them, 0.3 us slower at 2^20.)
constexpr std::string_view last_block_combines = R"cuda(  const T total = jet_block_combine<threads>(acc[0]);
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
  for (unsigned b = threadIdx.x; b < gridDim.x; b += threads) a = jet_combine(a, ((volatile T*)partials)[b]);
  a = jet_block_combine<threads>(a);
  if (threadIdx.x == 0) {
    out[0] = jet_finish(a, (double)n);
    *ticket = 0;  // ready for the next launch: no memset needed
  }
}
)cuda";

// All elements into one result.
std::string all_elements_kernel(const reduction_context& r) {
  const kernel_parts& parts = r.parts;
  const variant_key& v = parts.v;
  std::string src;
  // A grid of at most a few blocks per multiprocessor strides over the tiles; each block's
  // partial goes to `partials`, and the last block to take a ticket combines them in block
  // order (one launch, and no float atomics: the same result every run). It then resets the
  // ticket for the next launch.
  const kernel_shape shape{reduction_threads, reduction_ilp, v.vec};
  src += r.params + ", T* __restrict__ partials, unsigned* __restrict__ ticket) {\n";
  src += "  constexpr unsigned threads = " + number(shape.threads) + ", ilp = " + number(shape.ilp) +
         ", vec = " + number(shape.vec) + ", tile = threads * ilp * vec;\n";
  if (parts.indexed) src += r.index;
  src += "  T acc[ilp];\n#pragma unroll\n  for (unsigned k = 0; k < ilp; ++k) acc[k] = jet_identity();\n";
  src += "  const unsigned long long full = n / tile * tile;\n";
  src += "  for (unsigned long long base = (unsigned long long)blockIdx.x * tile; base < full;\n"
         "       base += (unsigned long long)gridDim.x * tile) {\n";
  src += parts.tile_loads(shape);
  src += "#pragma unroll\n    for (unsigned k = 0; k < ilp; ++k)\n#pragma unroll\n      for (unsigned j = 0; j < vec; ++j)\n";
  src += r.accumulate("        ", "acc[k]", parts.tile_args());
  src += "  }\n";
  src += "  // the elements after the last full tile, one per thread\n";
  src += "  for (unsigned long long i = full + (unsigned long long)blockIdx.x * threads + threadIdx.x; i < n;\n"
         "       i += (unsigned long long)gridDim.x * threads) {\n";
  src += parts.unravel("    ");
  src += r.accumulate("    ", "acc[0]", parts.element_args([&](unsigned k) { return parts.strided_offset(k); }));
  src += "  }\n";
  src += "#pragma unroll\n  for (unsigned k = 1; k < ilp; ++k) acc[0] = jet_combine(acc[0], acc[k]);\n";
  src += last_block_combines;
  return src;
}

// The loop of an axis kernel over its row's elements, into acc[].
std::string axis_loop(const reduction_context& r, bool inner) {
  const kernel_parts& parts = r.parts;
  const variant_key& v = parts.v;
  std::string src;
  // Element j of the row, read through input k's stride along the axis.
  const std::string stride_along_axis = ".s[" + number(v.rank - 1u) + "]";
  const auto element_at = [&](const std::string& j) {
    return parts.element_args([&](unsigned k) {
      const std::string kk = number(k);
      return "b" + kk + " + (long long)(" + j + ") * is" + kk + stride_along_axis;
    });
  };
  if (inner) {
    // Item c of the row is its element c, or its vector c (elements c * vec ...). While all of a
    // thread's `unroll` items are in the row, they are read unmasked, every load in flight before
    // the first use (masked loads, each a branch, were issued one use at a time: a row sum on the
    // H200 ran at 3.5 TB/s by vectors masked, 4.4 unmasked); then the rest, at most unroll - 1
    // items a thread.
    src += std::string("    const unsigned long long items = length") + (v.vec > 1 ? " / vec" : "") + ";\n";
    src += "    unsigned long long c = first;\n"
           "    for (; c + (unroll - 1) * step < items; c += unroll * step) {\n";
    std::string last = "    for (; c < items; c += step) {\n";
    if (v.vec > 1) {
      // The k-th vector of this thread's items into vK[k], then its elements into acc[k].
      std::string loads;
      for (unsigned k = 0; k < parts.inputs; ++k) {
        const std::string vt = kernel_parts::vec_type(parts.in_type(k));
        src += "      " + vt + " v" + number(k) + "[unroll];\n";
        loads += "        v" + number(k) + "[k] = *reinterpret_cast<const " + vt + "*>(in" + number(k) + " + b" +
                 number(k) + " + (c + k * step) * vec);\n";
      }
      const std::string use = "#pragma unroll\n        for (unsigned j = 0; j < vec; ++j)\n" +
                              r.accumulate("          ", "acc[k]", parts.tile_args());
      src += "#pragma unroll\n      for (unsigned k = 0; k < unroll; ++k) {\n" + loads +
             "      }\n#pragma unroll\n      for (unsigned k = 0; k < unroll; ++k) {\n" + use + "      }\n";
      for (unsigned k = 0; k < parts.inputs; ++k)
        last += "      " + kernel_parts::vec_type(parts.in_type(k)) + " v" + number(k) + "[1];\n";
      last += "      const unsigned k = 0;\n      {\n" + loads + "      }\n      {\n" + use + "      }\n";
    } else {
      src += "#pragma unroll\n      for (unsigned k = 0; k < unroll; ++k)\n" +
             r.accumulate("        ", "acc[k]", element_at("c + k * step"));
      last += r.accumulate("      ", "acc[0]", element_at("c"));
    }
    src += "    }\n" + last + "    }\n  }\n";
  } else {
    // An outer axis keeps its masked loop (8 warps of a block each read 128 bytes of a row of the
    // axis); its unmasked forms have not yet measured faster.
    src += "    for (unsigned long long j = first; j < length; j += unroll * step) {\n"
           "#pragma unroll\n      for (unsigned u = 0; u < unroll; ++u) {\n"
           "        const unsigned long long jj = j + u * step;\n"
           "        if (jj < length)\n";
    src += r.accumulate("          ", "acc[u]", element_at("jj"));
    src += "      }\n    }\n  }\n";
  }
  return src;
}

// Along an axis: the index space is (results..., axis); result `row` combines the elements
// row * length + j. A group of `step` threads takes a row, thread `first` of it the elements j =
// first, first + step, ..., `unroll` loads in flight. Inner: a group of `lanes` threads (a
// multiple of 32) per row, combined by warp shuffles and then across its warps; outer: 32
// neighbouring rows per block, each split over the block's 8 warps and combined in shared memory.
std::string axis_kernel(const reduction_context& r) {
  const kernel_parts& parts = r.parts;
  const variant_key& v = parts.v;
  std::string src;
  const bool inner = v.axis == reduce_axis::inner;
  src += r.params + (inner ? ", const unsigned lanes" : "") + ") {\n";
  if (inner)
    // Rows read a vector at a time (every input contiguous along them, each row aligned) keep 4
    // vectors in flight a thread; rows read an element at a time, 8 elements.
    src += "  constexpr unsigned threads = " + number(reduction_threads) + ", unroll = " + (v.vec > 1 ? "4" : "8") +
           ", vec = " + number(v.vec) + ";\n" + r.index +
           "  const unsigned first = threadIdx.x & (lanes - 1), step = lanes;\n"
           "  const unsigned long long row = (unsigned long long)blockIdx.x * (threads / lanes) + threadIdx.x / lanes;\n";
  else
    src += "  constexpr unsigned threads = " + number(reduction_threads) + ", unroll = 8;\n" + r.index +
           "  constexpr unsigned columns = 32, step = threads / columns;\n"
           "  const unsigned first = threadIdx.x / columns;\n"
           "  const unsigned long long row = (unsigned long long)blockIdx.x * columns + threadIdx.x % columns;\n";
  src += "  const unsigned long long length = extents.e[" + number(v.rank - 1u) + "];\n";
  src += "  T acc[unroll];\n#pragma unroll\n  for (unsigned u = 0; u < unroll; ++u) acc[u] = jet_identity();\n";
  // A row of no elements (an axis of extent 0) reads nothing: its result is the identity's, and
  // unravelling its first element would divide by the extent.
  src += "  if (row < n && length != 0) {\n    const unsigned long long i = row * length;\n" + parts.unravel("    ");
  for (unsigned k = 0; k < parts.inputs; ++k)
    src += "    const long long b" + number(k) + " = " + parts.strided_offset(k) + ";\n";
  src += axis_loop(r, inner);
  src += "#pragma unroll\n  for (unsigned u = 1; u < unroll; ++u) acc[0] = jet_combine(acc[0], acc[u]);\n";
  if (inner)
    src += "  T a = jet_warp_combine(acc[0]);\n"
           "  __shared__ T warps[threads / 32];\n"
           "  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = a;\n"
           "  __syncthreads();\n"
           "  if (first == 0 && row < n) {\n"
           "    for (unsigned w = 1; w < lanes / 32; ++w) a = jet_combine(a, warps[threadIdx.x / 32 + w]);\n"
           "    out[row] = jet_finish(a, (double)length);\n"
           "  }\n}\n";
  else
    src += "  __shared__ T slices[threads];\n"
           "  slices[threadIdx.x] = acc[0];\n"
           "  __syncthreads();\n"
           "  if (first == 0 && row < n) {\n"
           "    T a = acc[0];\n"
           "    for (unsigned s = 1; s < step; ++s) a = jet_combine(a, slices[s * columns + threadIdx.x]);\n"
           "    out[row] = jet_finish(a, (double)length);\n"
           "  }\n}\n";
  return src;
}

}  // namespace

std::string generate_reduction_source(const kernel_desc& d, const variant_key& v) {
  const kernel_parts parts{d, v};
  const reduction_typing t = resolve_reduction(d.reduction, d.nodes[d.out_nodes[0]].type);
  const std::string& rank = parts.rank;
  constexpr const char* axis_names[] = {"", "all elements", "the inner axis", "an outer axis"};
  std::string src = parts.prelude(std::string(reduction_spellings[static_cast<int>(d.reduction)].tag) + " over " +
                                  axis_names[static_cast<int>(v.axis)] + ", " + std::string(name(t.result)));
  src += reduction_functions(d);
  const std::string index = std::string("  using index = ") + (v.index32 ? "unsigned" : "unsigned long long") + ";\n";
  std::string params = "extern \"C\" __global__ void __launch_bounds__(" + number(reduction_threads) + ")\n" +
                       kernel_name + "(" + storage_type(t.result) + "* __restrict__ out" + parts.input_params() +
                       ", const unsigned long long n";
  if (parts.indexed) params += ", const jet_extents<" + rank + "> extents";
  const reduction_context r{parts, parts.out_type(0), params, index};
  return src + (v.axis == reduce_axis::all ? all_elements_kernel(r) : axis_kernel(r));
}

}  // namespace jet::detail
