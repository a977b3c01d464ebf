// Must not compile: an expression 129 nodes deep, one more than jet takes (deeper ones ended in
// a 62 KB "template instantiation depth exceeds maximum of 900"). The test expects the
// static_assert, first and alone.
#include <jet/jet.hpp>

int main() {
  jet::view<float> x(nullptr, 0);
  const jet::array<float> a = jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(jet::relu(x))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))));
  return static_cast<int>(a.size());
}
