// Must not compile: 33 array operands in one expression, one more than a kernel takes (the test
// expects the static_assert).
#include <jet/jet.hpp>

int main() {
  jet::view<float> x(nullptr, 0);
  const jet::array<float> a = x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x +
                              x + x + x + x + x + x + x + x + x + x + x;
  return static_cast<int>(a.size());
}
