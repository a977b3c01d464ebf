// Must not compile: jet has no unsigned element types yet (the test expects the static_assert).
#include <jet/jet.hpp>

int main() {
  jet::view<unsigned> v(nullptr, 0);
  return static_cast<int>(v.size());
}
