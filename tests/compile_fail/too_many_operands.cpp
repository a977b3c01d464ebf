// Must not compile: 1025 appearances of arrays in one expression, one more than max_input_slots
// (the test expects the static_assert, with the count in the compiler's message).
#include <jet/jet.hpp>

int main() {
  jet::view<float> x(nullptr, 0);
  auto a2 = x + x;
  auto a4 = a2 + a2;
  auto a8 = a4 + a4;
  auto a16 = a8 + a8;
  auto a32 = a16 + a16;
  auto a64 = a32 + a32;
  auto a128 = a64 + a64;
  auto a256 = a128 + a128;
  auto a512 = a256 + a256;
  auto a1024 = a512 + a512;
  const jet::array<float> a = a1024 + x;
  return static_cast<int>(a.size());
}
