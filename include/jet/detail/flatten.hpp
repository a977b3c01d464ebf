// Flattening: an expression's type to its kernel's nodes in post-order, and to where its leaves'
// run-time values are. Each node type holds a type_node, built with the type from its operands'
// (bottom up, as the user's code builds the expression), and the nodes come from one loop over
// those, from the root, that keeps its own stack. No template is instantiated, and no constexpr
// call made, per level of the tree: a deep expression meets none of the compilers' limits on
// nesting (g++: 900 instantiations, 512 constexpr calls).
#pragma once

#include <jet/detail/kernel_desc.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace jet::detail {

struct leaf_sink;  // expr.hpp

/// What copies a leaf's run-time values (an array's pointer and layout, a scalar's bytes), from
/// the leaf object at `leaf`, into the slots `at` points to: the leaf's own (a jet::let value's,
/// its first ones). Each leaf knows its slots, so reading one does not wait on the one before.
using leaf_reader = void (*)(const void* leaf, const leaf_sink& at);

/// A node as its C++ type knows it: the kernel's node but for its `arg`s (a leaf's slot and an
/// operand's index depend on where the node is in the whole), linked to its operands' type_nodes.
struct type_node {
  node shape;
  const type_node* operands[3]{};
  std::array<std::uint32_t, 3> offsets{};   // where each operand is in the node's object, in bytes
  const user_function* function = nullptr;  // what an op_id::user node calls
  leaf_reader read = nullptr;               // a leaf's
  leaf_reader read_named = nullptr;         // a jet::let value's: every leaf below it, through its holder
  // The size of the node's object when neither it nor any object in it has padding, else 0. Two
  // such objects with the same bytes hold the same arrays and scalar values, so reading the
  // leaves of the second can copy the first's (leaf_skip).
  std::uint32_t bytes = 0;
};

/// Zero bytes that round a leaf up to a size without padding after it (none where N is 0).
template <std::size_t N> struct zero_bytes { unsigned char zero[N]{}; };
template <> struct zero_bytes<0> {};

/// Where one leaf of a kernel's expressions is: in root expression `root`, `offset` bytes into its
/// object; `read` copies its values into input slot `input` or scalar slot `scalar` (a jet::let
/// value's, into the slots from those on).
struct leaf_ref {
  leaf_reader read;
  std::uint32_t root;
  std::uint32_t offset;
  std::uint16_t input, scalar;
};

/// Where a node's object is, in root expression `root`, `offset` bytes into its object (`bytes`
/// long when it has no padding and is not in a jet::let value's holder, else 0), and which leaf
/// refs, [leaf_begin, leaf_end), read its leaves.
struct node_place {
  std::uint32_t root = 0, offset = 0, bytes = 0, leaf_begin = 0, leaf_end = 0;
};

/// A subtree whose leaves reading may copy rather than read: when its object (leaf refs
/// [leaf_begin, leaf_end), at `root` and `offset`) has the same bytes as an earlier subtree of the
/// same shape (at `same_root` and `same_offset`), it holds the same arrays and scalar values, so its
/// input and scalar slots take what the earlier one's hold.
struct leaf_skip {
  std::uint32_t leaf_begin, leaf_end, root, offset, same_root, same_offset, bytes;
  std::uint16_t input_first, same_input_first, input_count;
  std::uint16_t scalar_first, same_scalar_first, scalar_count;
};

/// How many leaf_skips one expression's reading keeps: the outermost repeats, in leaf order.
inline constexpr std::size_t max_leaf_skips = 64;

/// The leaf_skips of an expression of N nodes: up to max_leaf_skips, and no more than it could
/// have (a repeat and its first take two nodes each at least), so that small expressions carry no
/// empty table.
template <std::size_t N> struct leaf_skips {
  static constexpr std::size_t capacity = N / 4 + 1 < max_leaf_skips ? N / 4 + 1 : max_leaf_skips;
  std::array<leaf_skip, capacity> list{};
  std::uint32_t count = 0;
};

/// Flattening state: nodes in post-order, the next input and scalar slot, the distinct user
/// functions called (at most one per node), and the readers of the leaves in slot order (input
/// and scalar slots interleaved, as the tree has them): one per leaf, or one per jet::let value
/// for all the leaves below it, which lie in its holder, not in the root's object.
template <std::size_t Capacity, std::size_t Leaves> struct flat_builder {
  std::array<node, Capacity> nodes{};
  std::array<const user_function*, Capacity> functions{};
  std::array<leaf_ref, Leaves> leaves{};
  std::array<node_place, Capacity> places{};
  std::uint16_t count = 0, inputs = 0, scalars = 0, function_count = 0;
  std::uint32_t counter_slots = 0, leaf_count = 0;

  /// Appends the nodes of the tree at `root`, root expression number `root_index`, operands left
  /// to right, and returns the index of the root's node.
  constexpr std::uint16_t append(const type_node& root, std::uint32_t root_index) {
    struct frame {
      const type_node* at;
      std::uint32_t offset;  // of the node's object in the root's
      bool held;             // below a jet::let value: read with it
      int next_operand;
      std::uint16_t operands[3];
      std::uint32_t leaf_begin;
    };
    std::array<frame, Capacity> stack{};
    std::size_t depth = 0;
    const auto enter = [&](const type_node* at, std::uint32_t offset, bool held) {
      const std::uint32_t leaf_begin = leaf_count;
      if (at->shape.named && !held) leaves[leaf_count++] = {at->read_named, root_index, offset, inputs, scalars};
      stack[depth++] = {at, offset, held, 0, {}, leaf_begin};
    };
    enter(&root, 0, false);
    for (;;) {
      frame& f = stack[depth - 1];
      if (f.next_operand < f.at->shape.arity) {
        const int k = f.next_operand;
        enter(f.at->operands[k], f.offset + f.at->offsets[k], f.held || f.at->shape.named);
        continue;
      }
      if (is_leaf(f.at->shape.op) && !f.held && !f.at->shape.named)
        leaves[leaf_count++] = {f.at->read, root_index, f.offset, inputs, scalars};
      const std::uint16_t index = push(*f.at, f.operands);
      places[index] = {root_index, f.offset, f.held ? 0 : f.at->bytes, f.leaf_begin, leaf_count};
      if (--depth == 0) return index;
      frame& parent = stack[depth - 1];
      parent.operands[parent.next_operand++] = index;
    }
  }

 private:
  constexpr std::uint16_t push(const type_node& t, const std::uint16_t (&operands)[3]) {
    node n = t.shape;
    for (int k = 0; k < n.arity; ++k) n.arg[k] = operands[k];
    if (n.op == op_id::counter) {
      // kernel_desc::counter_slots has a bit for each of the first 32 array operands; a counter
      // past them stops the compile here (README, "Limits").
      if (inputs >= 32)
        throw "jet: counters (random_uniform, random_normal, arange, linspace, full, zeros, ones, eye, iota) must be "
            "among the first 32 array operands of an expression";
      counter_slots |= 1u << inputs;
    }
    if (n.op == op_id::input || n.op == op_id::counter) n.arg[0] = inputs++;
    if (n.op == op_id::scalar) n.arg[0] = scalars++;
    if (n.op == op_id::user) n.function = function_index(t.function);
    nodes[count] = n;
    return count++;
  }
  constexpr std::uint16_t function_index(const user_function* f) {
    for (std::uint16_t k = 0; k < function_count; ++k)
      if (functions[k] == f) return k;
    functions[function_count] = f;
    return function_count++;
  }
};

}  // namespace jet::detail
