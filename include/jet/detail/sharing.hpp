// Shared subexpressions. A kernel description is a tree in post-order, so a sub-expression that a
// formula uses several times (`d1` in Black-Scholes) is there several times. Which of those are
// one value is partly a fact of the type (the same ops over leaves of the same kinds and dtypes:
// found at compile time here) and partly a fact of the evaluation (the same arrays and the same
// scalar values: checked by the planner, which records the repeats that hold in the launch
// variant). The kernel computes each repeat that holds once.
#pragma once

#include <jet/detail/flatten.hpp>
#include <jet/detail/kernel_desc.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace jet::detail {

/// How many repeats one description may record: the launch variant holds a bit for each. A
/// repeat past it is computed again, as written.
inline constexpr std::size_t max_repeats = 64;

/// A subtree (root `node`) with the same ops and leaf dtypes as an earlier one (root `same`): it
/// is that value when its input slots and scalar slots hold what the earlier one's do.
struct repeat {
  std::uint16_t node, same, size;  // the roots, and the nodes of each subtree
  std::uint16_t input_first, same_input_first, input_count;
  std::uint16_t scalar_first, same_scalar_first, scalar_count;

  friend constexpr bool operator==(const repeat&, const repeat&) = default;
};

namespace sharing_detail {

/// Per node: its subtree's size, its first input and scalar slots and how many of each.
struct extent {
  std::uint16_t size = 1, input_first = 0, input_count = 0, scalar_first = 0, scalar_count = 0;
  std::uint64_t hash = 0;  // of the ops, dtypes and shape of the subtree, not of its slots
};

template <std::size_t N> constexpr std::array<extent, N> extents_of(const node* nodes, std::size_t count) {
  std::array<extent, N> e{};
  for (std::size_t i = 0; i < count; ++i) {
    const node& n = nodes[i];
    extent& x = e[i];
    x.hash = fnv1a(
        fnv1a(fnv1a(fnv1a(fnv1a_basis, static_cast<std::uint64_t>(n.op)), static_cast<std::uint64_t>(n.type)), n.arity),
        n.function);
    if (n.op == op_id::input || n.op == op_id::counter) x.input_first = n.arg[0], x.input_count = 1;
    if (n.op == op_id::scalar) x.scalar_first = n.arg[0], x.scalar_count = 1;
    if (is_leaf(n.op)) continue;
    x.input_first = x.scalar_first = 0xffff;
    for (int k = 0; k < n.arity; ++k) {
      const extent& a = e[n.arg[k]];
      x.size = static_cast<std::uint16_t>(x.size + a.size);
      if (a.input_count && a.input_first < x.input_first) x.input_first = a.input_first;
      if (a.scalar_count && a.scalar_first < x.scalar_first) x.scalar_first = a.scalar_first;
      x.input_count = static_cast<std::uint16_t>(x.input_count + a.input_count);
      x.scalar_count = static_cast<std::uint16_t>(x.scalar_count + a.scalar_count);
      x.hash = fnv1a(fnv1a(x.hash, static_cast<std::uint64_t>(n.arg_type[k])), a.hash);
    }
    if (!x.input_count) x.input_first = 0;
    if (!x.scalar_count) x.scalar_first = 0;
  }
  return e;
}

/// Per node, the first node whose subtree has the same nodes but for its leaves' slots (the node
/// itself where none before it has). Each node is looked up by its hash in a table of the first
/// nodes of each shape, and compared with a candidate by its own fields and its operands' first
/// nodes: a constant cost per node, where comparing subtrees node by node with every earlier one
/// cost constant evaluation the square of the nodes.
template <std::size_t N> constexpr std::array<std::uint16_t, N> first_of_shape(const node* nodes,
                                                                               const std::array<extent, N>& e,
                                                                               std::size_t count) {
  std::array<std::uint16_t, N> first{};
  constexpr std::size_t table_size = std::bit_ceil(2 * N);  // at most half full: short probes
  std::array<std::uint32_t, table_size> table{};            // a first node's index + 1; 0 is free
  const auto same_shape = [&](std::size_t a, std::size_t b) {
    const node &x = nodes[a], &y = nodes[b];
    if (e[a].hash != e[b].hash || x.op != y.op || x.type != y.type || x.arity != y.arity || x.function != y.function)
      return false;
    if (is_leaf(x.op)) return true;
    for (int k = 0; k < x.arity; ++k)
      if (x.arg_type[k] != y.arg_type[k] || first[x.arg[k]] != first[y.arg[k]]) return false;
    return true;
  };
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t slot = e[i].hash & (table_size - 1);
    while (table[slot] && !same_shape(table[slot] - 1, i)) slot = (slot + 1) & (table_size - 1);
    if (!table[slot]) table[slot] = static_cast<std::uint32_t>(i + 1);
    first[i] = static_cast<std::uint16_t>(table[slot] - 1);
  }
  return first;
}

}  // namespace sharing_detail

/// The repeats of a description's N (at least `count`) nodes, largest first, at most
/// max_repeats: every inner subtree with the shape of an earlier one, paired with the first one of
/// that shape. A repeat inside another is listed too: the outer one may not hold where it does.
template <std::size_t N> struct repeats_of_nodes {
  std::array<repeat, max_repeats> list{};
  std::uint32_t count = 0;

  constexpr repeats_of_nodes() = default;
  constexpr repeats_of_nodes(const node* nodes, std::size_t node_count)
      : repeats_of_nodes(nodes, node_count, sharing_detail::extents_of<N>(nodes, node_count)) {}
  constexpr repeats_of_nodes(const node* nodes, std::size_t node_count, const std::array<sharing_detail::extent, N>& e)
      : repeats_of_nodes(nodes, node_count, e, sharing_detail::first_of_shape<N>(nodes, e, node_count)) {}
  /// With the nodes' extents and first nodes of their shapes (sharing_detail's), computed once
  /// for these and the leaf skips.
  constexpr repeats_of_nodes(const node* nodes, std::size_t node_count, const std::array<sharing_detail::extent, N>& e,
                             const std::array<std::uint16_t, N>& first) {
    // Two subtrees of one shape do not overlap (one inside the other would be smaller), so the
    // first of a shape ends before any other starts.
    const auto repeats = [&](std::size_t i) { return !is_leaf(nodes[i].op) && first[i] != i; };
    // A repeat inside another's copy is moot wherever the outer one holds, so the nested ones
    // are taken while the table has room.
    std::array<int, N + 1> inside{};  // per node, how many repeats hold it below their root
    for (std::size_t i = 0; i < node_count; ++i)
      if (repeats(i)) ++inside[i + 1 - e[i].size], --inside[i];
    for (std::size_t i = 1; i < node_count; ++i) inside[i] += inside[i - 1];
    // Listed outermost first, and among those the jet::let values first (a value the user named
    // is computed once, whatever else fills the table), then the nested ones alike; within each,
    // larger first, then earlier (so that the list is a function of the description alone). A
    // counting sort by size, then a stable pass per tier: std::sort costs constant evaluation far
    // more.
    std::array<std::size_t, N + 2> start{};  // per N - size, where its repeats begin in `by_size`
    for (std::size_t i = 0; i < node_count; ++i)
      if (repeats(i)) ++start[N - e[i].size + 1];
    for (std::size_t r = 1; r < start.size(); ++r) start[r] += start[r - 1];
    const std::size_t found = start.back();
    std::array<std::uint16_t, N> by_size{}, order{};
    for (std::size_t i = 0; i < node_count; ++i)
      if (repeats(i)) by_size[start[N - e[i].size]++] = static_cast<std::uint16_t>(i);
    const auto tier = [&](std::size_t i) { return (inside[i] > 0 ? 2 : 0) + (nodes[i].named ? 0 : 1); };
    for (std::size_t t = 0, placed = 0; t < 4; ++t)
      for (std::size_t k = 0; k < found; ++k)
        if (tier(by_size[k]) == static_cast<int>(t)) order[placed++] = by_size[k];
    for (; count < max_repeats && count < found; ++count) {
      const std::size_t i = order[count], j = first[i];
      list[count] = {static_cast<std::uint16_t>(i),
                     static_cast<std::uint16_t>(j),
                     e[i].size,
                     e[i].input_first,
                     e[j].input_first,
                     e[i].input_count,
                     e[i].scalar_first,
                     e[j].scalar_first,
                     e[i].scalar_count};
    }
  }
};

/// The leaf skips of an expression's N (at least `count`) nodes, placed as `places` says: each
/// outermost subtree (not a leaf) that has an earlier one of its shape, where both are objects
/// without padding of one size in the roots' objects, in leaf order. A repeat nested in one of
/// these is copied with it where it holds, and read otherwise.
template <std::size_t N> constexpr leaf_skips<N> leaf_skips_of(const node* nodes, std::size_t count,
                                                               const node_place* places,
                                                               const std::array<sharing_detail::extent, N>& e,
                                                               const std::array<std::uint16_t, N>& first) {
  const auto skippable = [&](std::size_t i) {
    const node_place &copy = places[i], &same = places[first[i]];
    return first[i] != i && !is_leaf(nodes[i].op) && copy.bytes != 0 && copy.bytes == same.bytes;
  };
  std::array<int, N + 1> covered{};  // per node, how many skippable subtrees hold it
  for (std::size_t i = 0; i < count; ++i)
    if (skippable(i)) ++covered[i + 1 - e[i].size], --covered[i + 1];
  leaf_skips<N> skips;
  int held = 0;
  for (std::size_t i = 0; i < count; ++i) {
    held += covered[i];
    if (!skippable(i) || held != 1 || skips.count == skips.capacity) continue;
    const node_place &copy = places[i], &same = places[first[i]];
    const sharing_detail::extent &x = e[i], &y = e[first[i]];
    skips.list[skips.count++] = {copy.leaf_begin, copy.leaf_end,  copy.root,     copy.offset,   same.root,
                                 same.offset,     copy.bytes,     x.input_first, y.input_first, x.input_count,
                                 x.scalar_first,  y.scalar_first, x.scalar_count};
  }
  return skips;
}

}  // namespace jet::detail
