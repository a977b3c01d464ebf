// Random views for the tiled kernels' tests: a random permutation of a stored array's dimensions,
// with a chance of one dimension stepped by 2 and one reversed (strides of every sign and size).
// The GPU test evaluates through them; a CPU test runs the same generator for many seeds and
// checks that every view has the shape it is meant to and stays inside its array.
#pragma once

#include <jet/jet.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace jet::test {

/// How an operand or output of shape s is viewed in an array of shape `stored`.
struct random_layout {
  jet::shape stored;
  std::vector<int> order;
  int stepped = -1, reversed = -1;  // dimensions of the view, or -1
  std::string what = "contiguous";

  /// The view of shape s into `whole`, an array of shape `stored`. Each step is a new view:
  /// assigning a view would copy elements.
  template <class T> jet::view<T> of(const jet::view<T>& whole) const {
    const jet::view<T> permuted(whole.data(), jet::detail::permute_layout(whole.layout(), order));
    const jet::view<T> stepped_view =
        stepped >= 0 ? permuted.slice(stepped, 1, 2 * permuted.shape()[stepped], 2) : permuted;
    return reversed >= 0 ? stepped_view.slice(reversed, -1, -stepped_view.shape()[reversed] - 1, -1) : stepped_view;
  }
};

inline random_layout make_layout(const jet::shape& s, std::mt19937_64& engine, bool permuted) {
  const int rank = s.rank();
  random_layout l{s, std::vector<int>(rank)};
  std::iota(l.order.begin(), l.order.end(), 0);
  if (!permuted) return l;
  std::shuffle(l.order.begin(), l.order.end(), engine);
  auto maybe_dimension = [&] {
    const int d = static_cast<int>(engine() % (2 * rank));
    return d < rank ? d : -1;
  };
  l.stepped = maybe_dimension(), l.reversed = maybe_dimension();
  for (int d = 0; d < rank; ++d) l.stored[l.order[d]] = s[d] * (d == l.stepped ? 2 : 1);
  std::string order;
  for (int o : l.order) order += (order.empty() ? "" : ",") + std::to_string(o);
  l.what = "permute(" + order + ")" + (l.stepped >= 0 ? " step 2 in " + std::to_string(l.stepped) : "") +
           (l.reversed >= 0 ? " reversed " + std::to_string(l.reversed) : "");
  return l;
}

/// A trial of out = a * b + c: a shape of rank 2 to 4 with extents below, at and above the tile's
/// 32 and single elements; a and c permuted views, b and out contiguous or permuted.
struct tiled_case {
  jet::shape s;
  random_layout a, b, c, out;
};
inline tiled_case make_tiled_case(std::mt19937_64& engine) {
  static constexpr std::int64_t extents[][8] = {{1, 3, 16, 31, 32, 33, 100, 257},  // per rank 2, 3, 4
                                                {1, 2, 16, 17, 32, 40, 64, 65},
                                                {1, 2, 5, 9, 16, 17, 24, 33}};
  const int rank = 2 + static_cast<int>(engine() % 3);
  jet::shape s;
  for (int d = 0; d < rank; ++d) s.push_back(extents[rank - 2][engine() % 8]);
  // Braced initializers are evaluated in order: the engine's draws are the same on every compiler.
  return {s, make_layout(s, engine, true), make_layout(s, engine, engine() % 2), make_layout(s, engine, true),
          make_layout(s, engine, engine() % 2)};
}

}  // namespace jet::test
