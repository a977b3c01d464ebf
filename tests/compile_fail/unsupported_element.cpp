// Must not compile: long double is no element type of jet's (the test expects the static_assert).
#include <jet/jet.hpp>

int main() {
  jet::view<long double> v(nullptr, 0);
  return static_cast<int>(v.size());
}
