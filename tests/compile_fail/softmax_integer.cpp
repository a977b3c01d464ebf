// Must not compile: the softmax of integers. The test expects jet's static_assert saying which
// operands the compositions take and how to convert.
#include <jet/jet.hpp>

#include <cstdint>

int main() {
  jet::view<std::int32_t> x(nullptr, 0);
  const jet::array<std::int32_t> y = jet::softmax(x, 0);
  return static_cast<int>(y.size());
}
