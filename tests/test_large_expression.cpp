// Expressions of 1,000 nodes: a chain 667 nodes deep and a balanced tree of 512 leaves. Both
// compile in g++ at its default limits (jet nests nothing per level of the tree) and their kernels
// in NVRTC. In a file of their own: the chain's types cost g++ seconds.
#include "support/catch.hpp"
#include "support/cubin.hpp"
#include "support/operands.hpp"

#include <jet/jet.hpp>

namespace {

using jet::test::hopper;
using jet::test::is_cubin;

// N steps of -e * 0.5 over e (cheap for NVRTC; 2 levels and 3 nodes each), built by a recursion
// log2(N) deep: a recursion N deep would meet g++'s limit on nested instantiations itself.
template <int N, class E> auto chain(const E& e) {
  if constexpr (N == 1)
    return -e * 0.5f;
  else
    return chain<N - N / 2>(chain<N / 2>(e));
}

// Leaves products and sums of x and y, alternating by level: 2 Leaves - 1 nodes.
template <int Leaves, class A, class B> auto balanced(const A& x, const B& y) {
  if constexpr (Leaves == 1)
    return x;
  else if constexpr (Leaves % 4 == 0)
    return balanced<Leaves / 2>(x, y) * balanced<Leaves / 2>(y, x);
  else
    return balanced<Leaves / 2>(x, y) + balanced<Leaves - Leaves / 2>(y, x);
}

}  // namespace

TEST_CASE("a chain of 1,000 nodes, 667 deep, compiles in g++ and in NVRTC", "[cpu][compile][large]") {
  const auto x = jet::test::fake_view<float>();
  const auto deep = chain<333>(x);
  static_assert(decltype(deep)::node_count == 1000 && decltype(deep)::depth == 667);
  CHECK(is_cubin(jet::compile(deep, hopper)));
}

TEST_CASE("a balanced tree of 1,023 nodes compiles in g++ and in NVRTC", "[cpu][compile][large]") {
  const auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>(8, 0x20000);
  const auto wide = balanced<512>(x, y);
  static_assert(decltype(wide)::node_count == 1023);
  CHECK(is_cubin(jet::compile(wide, hopper)));
}
