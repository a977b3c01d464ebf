// Must not compile: arrays of bool do not exist yet, so a comparison cannot be evaluated into one
// (the test expects the static_assert).
#include <jet/jet.hpp>

int main() {
  jet::view<float> x(nullptr, 0);
  auto a = jet::eval(x < 1.f);
  return static_cast<int>(a.size());
}
