// Must not compile: the argmax (or argmin) of complex values, which have no order. The test
// expects jet's static_assert saying so and naming what to reduce instead.
#include <jet/jet.hpp>

#include <complex>
#include <cstdint>

int main() {
  jet::view<std::complex<float>> z(nullptr, 0);
  const jet::array<std::int64_t> m = jet::argmax(z);
  return static_cast<int>(m.size());
}
