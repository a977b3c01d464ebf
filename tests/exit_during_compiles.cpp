// A process that returns from main while NVRTC compiles on other threads must exit cleanly (status
// 0, no crash, no hang): NVRTC's state is torn down at exit, so jet waits for the compiles in
// flight first. Three ways to get there:
//   (no argument)   a dozen new expressions under the async policy, their fused kernels queued and
//                   compiling in the background (exits 77 with no GPU);
//   --interpreter   the first expression of a process with no disk cache: the interpreter compiles
//                   in the background while the fused kernel compiles on the main thread (77 with
//                   no GPU);
//   --nvrtc         no GPU needed: a detached thread compiles a large source while the main thread
//                   compiles a small one and returns.
#include "compile/compiler.hpp"
#include "interpreter/encoder.hpp"
#include "interpreter/launcher.hpp"
#include "interpreter/source.hpp"

#include <jet/jet.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <string_view>
#include <thread>

namespace {

// A chain of `Ops` ops on x: a distinct expression, and so a distinct kernel, for each length.
template <int Ops> auto chain(const jet::array<float>& x) {
  if constexpr (Ops == 1)
    return jet::sin(x);
  else if constexpr (Ops % 2 == 0)
    return jet::tanh(chain<Ops - 1>(x)) * 1.5f;
  else
    return chain<Ops - 1>(x) - x;
}

template <int... Ops>
void evaluate_all(jet::array<float>& z, const jet::array<float>& x, std::integer_sequence<int, Ops...>) {
  ((z = chain<Ops + 1>(x)), ...);
}

int background_compiles() {
  if (!jet::device_available()) return 77;
  jet::array<float> x(1 << 16), z(1 << 16);
  x = jet::cast<float>(jet::counter_of(x.shape())) * 1e-4f;
  jet::set_jit_policy(jet::jit_policy::interpret);
  z = x * 2.f;  // loads the interpreter (async would compile while it is not ready)
  jet::set_jit_policy(jet::jit_policy::async);
  evaluate_all(z, x, std::make_integer_sequence<int, 12>{});
  jet::synchronize();
  std::printf("%llu interpreted launches; exiting with background compiles queued\n",
              static_cast<unsigned long long>(jet::stats().interpreted));
  return jet::stats().interpreted > 0 ? 0 : 1;
}

int interpreter_compiling() {
  if (!jet::device_available()) return 77;
  jet::set_jit_policy(jet::jit_policy::async);
  jet::array<float> x(1000), z(1000);
  x = jet::cast<float>(jet::counter_of(x.shape())) * 0.5f;
  z = x * 2.f + 1.f;
  const std::vector<float> host = z.to_host();
  for (std::size_t i = 0; i < host.size(); ++i)
    if (host[i] != static_cast<float>(i) + 1.f) {
      std::printf("element %zu: got %g, want %g\n", i, host[i], static_cast<float>(i) + 1.f);
      return 1;
    }
  std::printf("result right; exiting while the interpreter compiles\n");
  return 0;
}

// Set by the background thread once its compile returned; read by the exit handler that runs last.
std::atomic<bool> background_compile_returned{false};

int nvrtc_compiling() {
  // Registered first, so it runs after jet's own exit handlers: by then the background compile must
  // have returned (its thread sets the flag a moment after that; the 100 ms allowed for it is far
  // less than the seconds the compile takes, so exiting without the wait cannot pass).
  std::atexit([] {
    for (int i = 0; i < 100 && !background_compile_returned; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (background_compile_returned) std::printf("the background compile finished before exit\n");
    std::fflush(stdout);
  });
  const int arch = 90;
  std::thread([arch] {
    const auto& family = jet::detail::interpreter_families[0];
    jet::detail::compile_to_cubin(jet::detail::interpreter_source(family), arch, "the interpreter");
    background_compile_returned = true;
  }).detach();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the background compile is under way
  jet::detail::compile_to_cubin("extern \"C\" __global__ void small() {}", arch, "a small kernel");
  std::printf("exiting while a compile runs on another thread\n");
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (mode == "--interpreter") return interpreter_compiling();
  if (mode == "--nvrtc") return nvrtc_compiling();
  return background_compiles();
}
