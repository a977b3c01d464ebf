// Must not compile: a complex expression stored into a real array. The test expects jet's
// static_assert naming the way (real(), imag(), abs() or angle()).
#include <jet/jet.hpp>

#include <complex>

int main() {
  jet::view<std::complex<float>> z(nullptr, 0);
  const jet::array<float> a = z * z;
  return static_cast<int>(a.size());
}
