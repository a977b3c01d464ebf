// Must not compile: an unsigned C++ scalar in an expression (the test expects the static_assert).
#include <jet/jet.hpp>

int main() {
  jet::view<int> x(nullptr, 0);
  auto e = x + 2u;
  return static_cast<int>(sizeof e);
}
