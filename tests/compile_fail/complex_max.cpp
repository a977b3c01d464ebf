// Must not compile: the max (or min) of complex values, which have no order. The test expects
// jet's static_assert saying so and naming what to reduce instead.
#include <jet/jet.hpp>

#include <complex>

int main() {
  jet::view<std::complex<double>> z(nullptr, 0);
  const jet::array<std::complex<double>> m = jet::max(z, jet::axis{0});
  return static_cast<int>(m.size());
}
