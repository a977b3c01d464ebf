// An expression 1,025 nodes deep, past g++'s and clang's limits of 900 and 1024 nested templates,
// compiles at those default limits and its kernel in NVRTC: neither the kernel's description nor
// the collection of the leaves' values nests per level of the tree (README, "Limits"). In a file
// of its own: its types cost g++ time growing with the square of the depth (README, "Compile
// time").
#include "support/catch.hpp"
#include "support/cubin.hpp"
#include "support/operands.hpp"

#include <jet/jet.hpp>

#include <cstring>

namespace {

using jet::test::hopper;
using jet::test::is_cubin;

// N steps of -(-(-(e * 0.5f))) over e: 4 levels, 5 nodes and one C++ scalar each, built by a
// recursion log2(N) deep.
template <int N, class E> auto chain(const E& e) {
  if constexpr (N == 1)
    return -(-(-(e * 0.5f)));
  else
    return chain<N - N / 2>(chain<N / 2>(e));
}

}  // namespace

TEST_CASE("a chain 1,025 nodes deep compiles in g++ and in NVRTC, its leaves collected in order",
          "[cpu][compile][large]") {
  const auto x = jet::test::fake_view<float>();
  const auto deep = chain<256>(x);
  using E = std::remove_cvref_t<decltype(deep)>;
  static_assert(E::depth == 1025 && E::node_count == 1281 && E::scalar_count == 256);
  const auto values = jet::detail::kernel_of<jet::detail::roots<E>, float>::values_of(deep);
  CHECK(values.input[0] == x.data());
  CHECK(values.layouts[0]->extents == x.shape());
  int halves = 0;
  for (const auto& s : values.scalar) {
    float v;
    std::memcpy(&v, s.bytes, sizeof v);
    halves += v == 0.5f;
  }
  CHECK(halves == 256);
  CHECK(is_cubin(jet::compile(deep, hopper)));
}
