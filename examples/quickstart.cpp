// README's first example: lazy expressions, one fused kernel each, and the source jet generates.
#include <jet/jet.hpp>

#include <cstdio>
#include <iostream>
#include <random>
#include <vector>

int main() {
  std::string reason;
  if (!jet::device_available(&reason)) {
    std::fprintf(stderr, "quickstart: cannot run: %s\n", reason.c_str());
    return 77;
  }
  std::mt19937 engine(42);
  std::normal_distribution<float> normal;
  std::vector<float> hx(1 << 20), hy(1 << 20);
  for (auto& v : hx) v = normal(engine);
  for (auto& v : hy) v = normal(engine);

  // README shows this block verbatim, its comments aligned:
  // clang-format off
  // [quickstart]
  jet::array<float> x = jet::from_host(hx), y = jet::from_host(hy);  // device arrays, RAII
  jet::array<float> z = x + y;                                         // one kernel
  z = jet::relu(x + y);                                                // one fused kernel, no temporary
  z = 2.0f * x - jet::exp(-y) / (1.0f + x * x);                        // still one kernel
  std::vector<float> back = z.to_host();
  std::cout << jet::source(jet::relu(x + y));                          // the generated CUDA source
  // [quickstart]
  // clang-format on

  std::printf("z[0] = %f, %llu kernels launched, %llu compiled\n", back[0],
              static_cast<unsigned long long>(jet::stats().launches),
              static_cast<unsigned long long>(jet::stats().compiles));
}
