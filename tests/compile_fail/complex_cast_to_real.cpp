// Must not compile: a cast of a complex value to a real dtype (real(), imag(), abs() or angle()
// say which real value is meant). The test expects jet's static_assert naming the way.
#include <jet/jet.hpp>

#include <complex>

int main() {
  jet::view<std::complex<float>> z(nullptr, 0);
  const jet::array<float> a = jet::cast<float>(z);
  return static_cast<int>(a.size());
}
