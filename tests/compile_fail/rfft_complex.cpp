// Must not compile: rfft of a complex operand, whose imaginary parts NumPy would discard. The test
// expects jet's static_assert saying so and naming what to write instead.
#include <jet/jet.hpp>

#include <complex>

int main() {
  jet::view<std::complex<float>> z(nullptr, 0);
  const auto spectrum = jet::rfft(z);
  return static_cast<int>(spectrum.size());
}
