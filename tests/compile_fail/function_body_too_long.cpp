// Must not compile: a JET_FUNCTION body one byte over 64 KiB (longer bodies failed in the body's
// compile-time hash with the compiler's constexpr loop limit). The test expects the static_assert.
#include <jet/jet.hpp>

#include <array>

constexpr std::array<char, 64 * 1024 + 2> long_body = [] {
  std::array<char, 64 * 1024 + 2> body{};
  for (char& c : body) c = ' ';
  const char statement[] = "return a;";
  for (std::size_t k = 0; k + 1 < sizeof statement; ++k) body[k] = statement[k];
  body.back() = '\0';
  return body;
}();

JET_FUNCTION(long_function, float(float a), long_body.data());

int main() {
  jet::view<float> x(nullptr, 0);
  const jet::array<float> y = long_function(x);
  return static_cast<int>(y.size());
}
