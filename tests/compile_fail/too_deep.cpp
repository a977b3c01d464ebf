// Must not compile: an expression 801 nodes deep, one more than jet takes (deeper ones would end in
// a "template instantiation depth exceeds maximum of 900" pages long). The test expects the
// static_assert, first and alone.
#include <jet/jet.hpp>

namespace {

// N negations of e, by a recursion log2(N) deep.
template <int N, class E> auto chain(const E& e) {
  if constexpr (N == 1)
    return -e;
  else
    return chain<N - N / 2>(chain<N / 2>(e));
}

}  // namespace

int main() {
  jet::view<float> x(nullptr, 0);
  const jet::array<float> a = chain<800>(x);
  return static_cast<int>(a.size());
}
