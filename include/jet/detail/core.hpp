// The non-template core that the expression templates call into (implemented in src/): one
// evaluation's description, its launch variant, and the calls that evaluate, reduce, compile and
// move memory.
#pragma once

#include <jet/detail/kernel_desc.hpp>
#include <jet/runtime.hpp>
#include <jet/shape.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace jet::detail {

/// How a kernel finds an operand's elements in the (collapsed) index space.
enum class access : std::uint8_t {
  linear,      // element i is at offset i: vector loads on the fast path
  unit,        // strided outer dimensions, innermost stride 1: vector loads per row
  broadcast,   // strided outer dimensions, innermost stride 0: one load per vector
  gather,      // any strides: one load per element
  transposed,  // in a tiled kernel, stride ±1 in the tile's outer dimension: through shared memory
};

/// Which elements a reduction kernel combines into each result: all of them, or those along one
/// axis, which is the innermost (each row is contiguous in the index space: a group of threads per
/// row) or an outer one (neighbouring threads take neighbouring results).
enum class reduce_axis : std::uint8_t { none, all, inner, outer };

/// Per evaluation, which launch variant a kernel needs: how many elements each vector access
/// covers, the rank of the index space after merging contiguous dimensions, how each operand is
/// accessed, which array operands are the same memory (each distinct input is a kernel parameter
/// loaded once), and whether an output is one of the inputs (then nothing is __restrict__).
/// A tiled kernel covers 2-D tiles of the index space's two innermost dimensions, one per block:
/// its transposed operands are read and written along their own contiguous dimension through
/// shared memory, every other one (gather) along the index space's inner dimension.
/// A rows kernel covers a chunk of one row of the inner dimension per block: each operand's
/// offset is found once per row, and its elements follow along the row with no index arithmetic.
struct variant_key {
  std::uint8_t vec = 1;
  std::uint8_t rank = 1;
  bool tiled = false;
  bool rows = false;
  bool index32 = true;  // the multi-index of every element fits 32-bit arithmetic
  bool out_aliases_input = false;
  std::uint16_t input_slots = 0;      // the entries of unique_of in use: the expression's input slots
  access input_access[max_inputs]{};  // per distinct input
  access output_access[max_outputs]{};
  reduce_axis axis = reduce_axis::none;       // none for an elementwise kernel
  bool heavy = false;                         // a long formula: smaller blocks, one vector per thread
  std::uint64_t shared = 0;                   // bit r: the description's repeat r holds, and is computed once
  std::uint8_t unique_of[max_input_slots]{};  // input slot -> distinct-input index

  // Field by field, and unique_of only as far as it is in use: the warm path compares keys on
  // every evaluation, and most expressions have a few input slots of the thousand.
  friend bool operator==(const variant_key& a, const variant_key& b) {
    return a.vec == b.vec && a.rank == b.rank && a.tiled == b.tiled && a.rows == b.rows && a.index32 == b.index32 &&
           a.out_aliases_input == b.out_aliases_input && a.input_slots == b.input_slots && a.axis == b.axis &&
           a.heavy == b.heavy && a.shared == b.shared &&
           std::equal(a.input_access, a.input_access + max_inputs, b.input_access) &&
           std::equal(a.output_access, a.output_access + max_outputs, b.output_access) &&
           std::equal(a.unique_of, a.unique_of + a.input_slots, b.unique_of);
  }
};
// A field added to variant_key must join its operator== above; this fails until the size is updated.
static_assert(sizeof(variant_key) == 160 + max_input_slots,
              "variant_key changed: compare the new field in operator== and update this size");

struct launch_memo;  // src/launch/launch_memo.cpp

/// The per-(expression type, output type) cache slot: a few (variant, device) → kernel entries
/// read without locking; the global cache behind it is consulted on a miss. `memo` is the last
/// compiled launch, which the same operands launch again without planning.
struct kernel_slot {
  static constexpr int capacity = 4;
  struct entry {
    variant_key key;
    int device;
    void* function;
  };
  std::atomic<int> filled{0};
  entry entries[capacity];
  std::mutex fill_mutex;
  std::atomic<launch_memo*> memo{nullptr};
};

/// A scalar kernel argument: its value's bytes, of which cuLaunchKernel reads as many as the
/// parameter's type has.
struct scalar_value {
  alignas(16) unsigned char bytes[16];  // a complex128 is the widest
};

/// One evaluation as the core sees it: the outputs, and the pointers, layouts and scalars of the
/// expression's leaves in slot order.
struct evaluation {
  const kernel_desc& desc;
  kernel_slot& slot;
  void* const* outputs;
  const layout* output_layouts;
  const void* const* inputs;
  const layout* const* input_layouts;  // per input slot: the array's or view's own, so a slot repeats a pointer
  const scalar_value* scalars;
};

void evaluate(const evaluation& e);

/// `axis` of reduce and reduced_shape for a reduction over every element: no int, so that no
/// axis a user writes can mean it.
inline constexpr std::optional<int> all_axes = std::nullopt;

/// The shape of e.desc's reduction of the inputs over `axis` (all_axes, or a dimension of their
/// broadcast shape, negative counting from the end): the broadcast shape without that dimension,
/// or () for all_axes. invalid_argument naming the axis, the shape and its rank when there is no
/// such axis, or when a result would combine no elements and the reduction has no value for that
/// (max, min).
jet::shape reduced_shape(const kernel_desc& desc, const layout* const* inputs, std::optional<int> axis);

/// Reduces the inputs over `axis` into e.outputs[0], a contiguous array of reduced_shape; one
/// launch.
void reduce(const evaluation& e, std::optional<int> axis);

/// The NumPy broadcast of the inputs' shapes; shape_error naming both shapes (and the expression)
/// when two cannot be broadcast together.
jet::shape broadcast_shape(const kernel_desc& desc, const layout* const* inputs);
/// The same, answered from the slot's last launch when the inputs are its layout objects,
/// holding the same layouts.
jet::shape broadcast_shape(const kernel_desc& desc, kernel_slot& slot, const layout* const* inputs);

/// Compiles, in parallel threads, the kernels these evaluations will launch. Their outputs may be
/// null: an aligned, contiguous output of the expressions' shape is assumed.
void precompile(const evaluation* evaluations, std::size_t count);

/// The source of e's kernel, and that kernel compiled for `target`, as e stored into a fresh
/// contiguous array would launch it (its own operands: which are the same memory, which shared
/// subexpressions hold, their alignment).
std::string source_of(const evaluation& e);
compiled_kernel compile_for(const evaluation& e, arch target);
/// desc's kernel for aligned, distinct operands compiled for `target`.
compiled_kernel compile_for(const kernel_desc& desc, arch target);
std::string expression_text(const kernel_desc& desc);

void* device_alloc(std::size_t bytes);
void device_free(void* p, std::size_t bytes) noexcept;
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void copy_on_device(void* dst, const void* src, std::size_t bytes);

}  // namespace jet::detail
