// Shared subexpressions. A kernel description is a tree in post-order, so a sub-expression that a
// formula uses several times (`d1` in Black-Scholes) is there several times. Which of those are
// one value is partly a fact of the type (the same ops over leaves of the same kinds and dtypes:
// found at compile time here) and partly a fact of the evaluation (the same arrays and the same
// scalar values: checked by the planner, which records the repeats that hold in the launch
// variant). The kernel computes each repeat that holds once.
#pragma once

#include <jet/detail/kernel_desc.hpp>

#include <array>
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

constexpr bool is_leaf(const node& n) {
  return n.op == op_id::input || n.op == op_id::scalar || n.op == op_id::counter;
}

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
    if (is_leaf(n)) continue;
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

/// Whether the subtrees rooted at a and b have the same nodes but for their leaves' slots.
template <class Extents> constexpr bool same_shape(const node* nodes, const Extents& e, std::size_t a, std::size_t b) {
  if (e[a].size != e[b].size || e[a].hash != e[b].hash) return false;
  const std::size_t first_a = a + 1 - e[a].size, first_b = b + 1 - e[b].size;
  for (std::size_t k = 0; k < e[a].size; ++k) {
    const node &x = nodes[first_a + k], &y = nodes[first_b + k];
    if (x.op != y.op || x.type != y.type || x.arity != y.arity || x.function != y.function) return false;
    if (is_leaf(x)) continue;
    for (int j = 0; j < x.arity; ++j)
      if (x.arg_type[j] != y.arg_type[j] || x.arg[j] - first_a != y.arg[j] - first_b) return false;
  }
  return true;
}

}  // namespace sharing_detail

/// The repeats of a description's N (at least `count`) nodes, largest first, at most
/// max_repeats: every inner subtree with the shape of an earlier one, paired with the first one of
/// that shape. A repeat inside another is listed too: the outer one may not hold where it does.
template <std::size_t N> struct repeats_of_nodes {
  std::array<repeat, max_repeats> list{};
  std::uint32_t count = 0;

  constexpr repeats_of_nodes(const node* nodes, std::size_t node_count) {
    const auto e = sharing_detail::extents_of<N>(nodes, node_count);
    std::array<repeat, N> found{};
    std::size_t found_count = 0;
    for (std::size_t i = 0; i < node_count; ++i) {
      if (sharing_detail::is_leaf(nodes[i])) continue;
      for (std::size_t j = 0; j + e[i].size <= i; ++j)  // j's subtree ends before i's starts
        if (sharing_detail::same_shape(nodes, e, j, i)) {
          found[found_count++] = {static_cast<std::uint16_t>(i),
                                  static_cast<std::uint16_t>(j),
                                  e[i].size,
                                  e[i].input_first,
                                  e[j].input_first,
                                  e[i].input_count,
                                  e[i].scalar_first,
                                  e[j].scalar_first,
                                  e[i].scalar_count};
          break;
        }
    }
    // A repeat inside another's copy is moot wherever the outer one holds: the outermost are taken
    // first, largest first, then the nested ones while the table has room.
    std::array<int, N + 1> inside{};  // per node, how many found copies hold it below their root
    for (std::size_t k = 0; k < found_count; ++k) {
      ++inside[found[k].node + 1 - found[k].size];
      --inside[found[k].node];
    }
    for (std::size_t i = 1; i < node_count; ++i) inside[i] += inside[i - 1];
    std::array<bool, N> taken{};
    for (const bool nested : {false, true})
      while (count < max_repeats) {
        std::size_t best = found_count;
        for (std::size_t k = 0; k < found_count; ++k)
          if (!taken[k] && (inside[found[k].node] > 0) == nested &&
              (best == found_count || found[k].size > found[best].size))
            best = k;
        if (best == found_count) break;
        taken[best] = true;
        list[count++] = found[best];
      }
  }
};

}  // namespace jet::detail
