// Evaluates a dozen new expressions under the async policy and returns from main at once, while
// their fused kernels are queued and compiling on background threads: the process must exit
// cleanly (status 0, no crash, no hang). Exits 77 with no GPU.
#include <jet/jet.hpp>

#include <cstdio>

namespace {

// A chain of `Ops` ops on x: a distinct expression, and so a distinct kernel, for each length.
template <int Ops> auto chain(const jet::array<float>& x) {
  if constexpr (Ops == 1) return jet::sin(x);
  else if constexpr (Ops % 2 == 0) return jet::tanh(chain<Ops - 1>(x)) * 1.5f;
  else return chain<Ops - 1>(x) - x;
}

template <int... Ops> void evaluate_all(jet::array<float>& z, const jet::array<float>& x, std::integer_sequence<int, Ops...>) {
  ((z = chain<Ops + 1>(x)), ...);
}

}  // namespace

int main() {
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
