// Writes the cubins of representative kernels (for the device's architecture, or sm_90 with no
// device) into a folder, so that `cuobjdump --dump-sass` can show their memory instructions.
#include "compile/compiler.hpp"
#include "interpreter/encoder.hpp"
#include "interpreter/launcher.hpp"
#include "interpreter/source.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

template <class T> jet::view<T> operand(std::uintptr_t address) {
  return jet::view<T>(reinterpret_cast<T*>(address), 1 << 20);
}

template <class E> void write(const std::string& folder, const std::string& name, const E& e, jet::arch target) {
  const jet::compiled_kernel k = jet::compile(e, target);
  std::ofstream(folder + "/" + name + ".cubin", std::ios::binary) << k.cubin;
  std::ofstream(folder + "/" + name + ".cu") << k.source;
  char compiled[48];
  std::snprintf(compiled, sizeof compiled, "compiled in %.1f ms", k.compile_ms);
  std::printf("%s: %zu bytes of sm_%d cubin, %s\n", name.c_str(), k.cubin.size(), target.value,
              k.from_disk_cache ? "from the disk cache" : compiled);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <folder>\n", argv[0]);
    return 2;
  }
  const std::string folder = argv[1];
  const jet::arch target = jet::device_available() ? jet::current_device().arch : jet::arch{90};
  auto x = operand<float>(0x10000), y = operand<float>(0x20000);
  auto dx = operand<double>(0x30000), dy = operand<double>(0x40000);
  write(folder, "add_f32", x + y, target);
  write(folder, "relu_add_f32", jet::relu(x + y), target);
  write(folder, "chain_f32", jet::tanh(1.5f * x + y) * jet::sigmoid(x - y) + x * y, target);
  write(folder, "add_f64", dx + dy, target);
  // Every interpreter family, compiled as jet compiles it the first time an expression needs it
  // (the goal: each at most 10 s). The float32 family's cubin goes to the SASS check:
  // 128-bit loads and stores on full tiles, and no local memory (LDL/STL) but sin's and cos's.
  for (const jet::detail::interpreter_family& family : jet::detail::interpreter_families) {
    const std::string source = jet::detail::interpreter_source(family);
    const std::string name = "interpreter_" + std::string(family.name);
    const jet::detail::cubin k = jet::detail::compile_to_cubin(source, target.value, name.c_str(), {0, 0, family.math});
    if (&family == &jet::detail::interpreter_families[0]) {
      std::ofstream(folder + "/interpreter_f32.cubin", std::ios::binary) << k.image;
      std::ofstream(folder + "/interpreter_f32.cu") << source;
    }
    std::printf("%s: %zu bytes of sm_%d cubin, compiled in %.1f ms\n", name.c_str(), k.image.size(), target.value,
                k.compile_ms);
  }
}
