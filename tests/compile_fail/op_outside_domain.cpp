// Must not compile: bitwise & of float32 arrays, outside the op's domain (integers and bool). The
// test expects the static_assert, with the op and the dtypes named in the compiler's message.
#include <jet/jet.hpp>

int main() {
  jet::view<float> x(nullptr, 0);
  const jet::array<float> a = x & x;
  return static_cast<int>(a.size());
}
