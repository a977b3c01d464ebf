// Uses the installed jet: generates and compiles a kernel (no GPU needed).
#include <jet/jet.hpp>

#include <cstdio>

int main() {
  jet::view<float> x(reinterpret_cast<float*>(0x10000), 4), y(reinterpret_cast<float*>(0x20000), 4);
  const jet::compiled_kernel k = jet::compile(jet::relu(x + y), jet::arch{90});
  std::printf("compiled %zu bytes of sm_90 cubin\n", k.cubin.size());
  return k.cubin.empty() ? 1 : 0;
}
