// Must not compile: 67,583 nodes in one kernel, past max_nodes (65,535: nodes refer to each other
// by 16-bit indices). 1,024 appearances of one chain of 64 ops: few types, so that g++ gets to the
// static_assert quickly. The test expects the static_assert, first and alone.
#include <jet/jet.hpp>

namespace {

// N negations of e, by a recursion log2(N) deep.
template <int N, class E> auto chain(const E& e) {
  if constexpr (N == 1)
    return -e;
  else
    return chain<N / 2>(chain<N / 2>(e));
}

// Copies of e summed, by doubling (Copies a power of 2): 2 Copies - 1 times e's nodes.
template <int Copies, class E> auto sum_of_copies(const E& e) {
  if constexpr (Copies == 1) {
    return e;
  } else {
    const auto half = sum_of_copies<Copies / 2>(e);
    return half + half;
  }
}

}  // namespace

int main() {
  jet::view<float> x(nullptr, 0);
  const jet::array<float> a = sum_of_copies<1024>(chain<64>(x));  // 1024 * 65 + 1023 nodes
  return static_cast<int>(a.size());
}
