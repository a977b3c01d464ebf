// A bug planted for compute-sanitizer's memcheck (benchmarks/device_run.sh): a view that claims
// 256 elements more than its memory holds. jet cannot see it (a view is a pointer and a shape), so
// the kernel reads past the end of the allocation; outside the sanitizer that read usually goes
// unnoticed, inside it memcheck must report an invalid global read. Exits 77 with no GPU.
#include <jet/jet.hpp>

#include <cstdio>
#include <string>

int main() {
  std::string reason;
  if (!jet::device_available(&reason)) {
    std::printf("SKIPPED: %s\n", reason.c_str());
    return 77;
  }
  const std::size_t n = 1000;
  jet::array<float> memory(n);
  const jet::view<float> too_long(memory.data(), n + 256);
  const jet::array<float> out = too_long + 1.0f;
  jet::synchronize();
  std::printf("read %zu elements from an allocation of %zu\n", out.size(), n);
  return 0;
}
