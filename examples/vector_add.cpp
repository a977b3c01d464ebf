// The Triton tutorial's example, in jet: add two vectors of 2048 random floats on the GPU and
// compare with the host sum. Exits 77 (and says why) on a machine with no GPU.
#include <jet/jet.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::string reason;
  if (!jet::device_available(&reason)) {
    std::fprintf(stderr, "vector_add: cannot run: %s\n", reason.c_str());
    return 77;
  }
  const std::size_t n = 2048;
  std::mt19937 engine(std::random_device{}());
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  std::vector<float> hx(n), hy(n);
  for (std::size_t i = 0; i < n; ++i) hx[i] = uniform(engine), hy[i] = uniform(engine);

  jet::array<float> x = jet::from_host(hx), y = jet::from_host(hy);
  jet::array<float> z = x + y;  // one fused, masked kernel
  const std::vector<float> out = z.to_host();

  float max_difference = 0;
  for (std::size_t i = 0; i < n; ++i) max_difference = std::max(max_difference, std::fabs(out[i] - (hx[i] + hy[i])));
  std::printf("x + y on %s: [%.6f, %.6f, %.6f, ..., %.6f]\n", jet::current_device().name.c_str(), out[0], out[1],
              out[2], out[n - 1]);
  std::printf("The maximum difference between the host and jet is %g\n", max_difference);
  return max_difference == 0 ? 0 : 1;
}
