// Kernel geometry: how many threads and blocks a kernel of a launch variant takes, its tiles and
// vectors. Shared by the source generators and the launcher, which must agree on it.
#pragma once

#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/core.hpp>

#include <cstddef>
#include <cstdint>

namespace jet::detail {

/// How a kernel covers its elements: each block (a Triton "program") takes one tile of
/// threads × ilp × vec elements; each thread keeps ilp vector loads of vec elements in flight.
/// An elementwise kernel's last, partial tile takes a block per `threads` of its elements.
/// A rows kernel's tile is a chunk of one row.
struct kernel_shape {
  unsigned threads;
  unsigned ilp;
  unsigned vec;
  unsigned tile() const { return threads * ilp * vec; }
};
kernel_shape shape_of(const variant_key& v);
/// Whether d's formula is heavy: its ops cost more than heavy_formula_cost (op_cost's units, as
/// outlining counts them). A heavy elementwise kernel computes for longer than it loads, so it
/// runs 64 threads a block with one vector each in flight: more blocks of fewer registers fill the
/// last wave finer (benchmarks/RESULTS.md, Black-Scholes).
bool heavy_formula(const kernel_desc& d);
inline constexpr unsigned heavy_formula_cost = 128;

/// A tiled kernel's blocks: tile_threads threads cover a tile of tile_edge x tile_edge elements.
inline constexpr unsigned tile_edge = 32, tile_threads = 256;

/// The shared memory a tiled kernel declares for one transposed operand of this element size: a
/// tile padded by a column.
constexpr std::size_t tile_bytes(int element_size) { return std::size_t{tile_edge} * (tile_edge + 1) * element_size; }

/// The most shared memory a kernel may declare statically.
inline constexpr std::size_t shared_memory_limit = 48 * 1024;

/// A rows kernel's grid has at most this many blocks along y; each takes every max_grid_rows-th
/// row from its own.
inline constexpr unsigned max_grid_rows = 65535;

/// How many blocks of how many threads a kernel of variant v is launched with, for n elements
/// over an index space of these extents (v.rank of them): blocks along x, and for a rows kernel
/// (chunks of a row along x) rows of blocks along y.
struct launch_grid {
  unsigned long long blocks;
  unsigned threads;
  unsigned rows = 1;
};
launch_grid grid_of(const variant_key& v, std::size_t n, const std::int64_t* extents);

/// The widest vector (in elements) whose accesses stay within 16 bytes for every operand, or
/// JET_KERNEL_SHAPE's vec where that is narrower.
unsigned max_vector_width(const kernel_desc& d);

/// The variant for distinct, 16-byte aligned operands that the output does not alias.
variant_key default_variant(const kernel_desc& d);

/// Number of distinct array inputs (kernel parameters) under a variant.
unsigned distinct_inputs(const kernel_desc& d, const variant_key& v);

/// Which scalar slots a kernel of (d, v) takes as parameters (taken[k], for each of d's slots):
/// all but those inside the later copies of the repeats that hold (v.shared), whose values are the
/// earlier subtrees' and are computed from their scalars.
void scalar_parameters(const kernel_desc& d, const variant_key& v, bool* taken);

/// Whether input slot k is a counter (jet::counter), which reads no memory.
// Counters are among the first 32 slots (the flattening refuses others), which counter_slots covers.
inline bool is_counter(const kernel_desc& d, unsigned slot) { return slot < 32 && (d.counter_slots >> slot & 1); }

/// Whether any operand needs the multi-index, or the kernel is a rows kernel (then the kernel takes
/// the index space's extents).
bool uses_index_space(const kernel_desc& d, const variant_key& v);

/// Reduction kernels' blocks: threads, and (over all elements) vectors in flight per thread
/// and operand. An all-elements grid is at most this many blocks per multiprocessor (twice what
/// fits at once), so it depends only on n and the device.
inline constexpr unsigned reduction_threads = 256, reduction_ilp = 4, reduction_blocks_per_sm = 2 * 2048 / 256;

/// The bytes of a reduction's accumulator at most (complex128's), which each block of an
/// all-elements reduction leaves in its stream's workspace.
inline constexpr std::size_t max_accumulator_bytes = 16;

}  // namespace jet::detail
