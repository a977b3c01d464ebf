// On the GPU: the activations (include/jet/activations.hpp) against PyTorch's formulas evaluated
// on the host in long double, written here from torch.nn.functional's documentation rather than
// from jet's compositions, on fresh random values, the special values and both ends of their
// thresholds, in float32 and float64; each one launch into a poisoned output.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using real = long double;

template <class T> std::vector<T> activation_inputs() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0),
                      T(-0.0),
                      L::infinity(),
                      -L::infinity(),
                      L::quiet_NaN(),
                      L::denorm_min(),
                      -L::denorm_min(),
                      L::min(),
                      T(1e-30),
                      T(-1e-30),
                      T(3),
                      T(-3),
                      T(6),
                      T(-6),
                      T(20),
                      T(20.0001),
                      T(7.5),
                      T(7.4999),
                      T(-40),
                      T(40),
                      T(100),
                      T(-100),
                      L::max(),
                      L::lowest()};
  std::mt19937_64 random(jet::test::fresh_seed());
  std::uniform_real_distribution<double> uniform(-8, 8);
  while (v.size() < 4096) v.push_back(static_cast<T>(uniform(random)));
  return v;
}

real softplus_ref(real x, real beta, real threshold) {
  return x * beta > threshold ? x : std::log1p(std::exp(beta * x)) / beta;
}
real elu_ref(real x, real alpha) { return x > 0 ? x : alpha * std::expm1(x); }

struct activation {
  const char* name;
  std::function<real(real)> reference;
  bool cancels = false;  // a difference of nearly equal values near some x: allow ulps of x there
};

const activation references[] = {
    {"gelu", [](real x) { return x / 2 * std::erfc(-x / std::sqrt(real(2))); }},
    {"gelu_tanh",
     [](real x) {
       return x / 2 * (1 + std::tanh(std::sqrt(2 / std::acos(real(-1))) * (x + real(0.044715) * x * x * x)));
     },
     true},
    {"silu", [](real x) { return x / (1 + std::exp(-x)); }},
    {"softplus", [](real x) { return softplus_ref(x, 1, 20); }},
    {"softplus(x, 2, 15)", [](real x) { return softplus_ref(x, 2, 15); }},
    {"mish", [](real x) { return x * std::tanh(softplus_ref(x, 1, 20)); }},
    {"elu", [](real x) { return elu_ref(x, 1); }},
    {"selu",
     [](real x) {
       return real(1.0507009873554804934193349852946) * elu_ref(x, real(1.6732632423543772848170429916717));
     }},
    {"celu(x, 0.5)",
     [](real x) {
       return std::isnan(x) ? x : std::fmax(real(0), x) + std::fmin(real(0), real(0.5) * std::expm1(x / 0.5));
     }},
    {"leaky_relu", [](real x) { return x > 0 ? x : real(0.01) * x; }},
    {"relu6", [](real x) { return std::isnan(x) ? x : std::fmin(std::fmax(x, real(0)), real(6)); }},
    {"hardtanh", [](real x) { return std::isnan(x) ? x : std::fmin(std::fmax(x, real(-1)), real(1)); }},
    {"hardsigmoid", [](real x) { return std::isnan(x) ? x : std::fmin(std::fmax(x + 3, real(0)), real(6)) / 6; }},
    {"hardswish", [](real x) { return std::isnan(x) ? x : x * std::fmin(std::fmax(x + 3, real(0)), real(6)) / 6; }},
    {"logsigmoid", [](real x) { return x < 0 ? x - std::log1p(std::exp(x)) : -std::log1p(std::exp(-x)); }},
    {"softsign", [](real x) { return x / (1 + std::fabs(x)); }},
    {"tanhshrink", [](real x) { return x - std::tanh(x); }, true},
};

// out = the activation named `name` of x: one evaluation into out's memory.
template <class T> void evaluate(const std::string& name, const jet::array<T>& x, jet::array<T>& out) {
  if (name == "gelu") out = jet::gelu(x);
  if (name == "gelu_tanh") out = jet::gelu_tanh(x);
  if (name == "silu") out = jet::silu(x);
  if (name == "softplus") out = jet::softplus(x);
  if (name == "softplus(x, 2, 15)") out = jet::softplus(x, 2, 15);
  if (name == "mish") out = jet::mish(x);
  if (name == "elu") out = jet::elu(x);
  if (name == "selu") out = jet::selu(x);
  if (name == "celu(x, 0.5)") out = jet::celu(x, 0.5);
  if (name == "leaky_relu") out = jet::leaky_relu(x);
  if (name == "relu6") out = jet::relu6(x);
  if (name == "hardtanh") out = jet::hardtanh(x);
  if (name == "hardsigmoid") out = jet::hardsigmoid(x);
  if (name == "hardswish") out = jet::hardswish(x);
  if (name == "logsigmoid") out = jet::logsigmoid(x);
  if (name == "softsign") out = jet::softsign(x);
  if (name == "tanhshrink") out = jet::tanhshrink(x);
}

// Within a few ulps of the result and of the smallest normal, plus a few of the operand where a
// difference of nearly equal values cancels (tanhshrink near 0, gelu_tanh's 1 + tanh far below 0).
template <class T> void check_activations() {
  using L = std::numeric_limits<T>;
  const std::vector<T> inputs = activation_inputs<T>();
  const jet::array<T> x = jet::from_host(inputs);
  const real eps = L::epsilon();
  for (const activation& a : references) {
    INFO(a.name << " in " << jet::name(jet::dtype_of<T>()));
    jet::array<T> out = jet::from_host(std::vector<T>(inputs.size(), T(-7.77e30)));
    const auto launches = jet::stats().launches;
    evaluate<T>(a.name, x, out);
    CHECK(jet::stats().launches - launches == 1);
    const std::vector<T> got = out.to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const real want = static_cast<T>(a.reference(inputs[i]));  // as T holds it: overflow to inf
      const real tolerance =
          16 * eps * (std::fabs(want) + (a.cancels ? std::fabs(real(inputs[i])) : 0)) + 4 * real(L::min());
      const bool ok = std::isnan(want)   ? std::isnan(got[i])
                      : std::isinf(want) ? got[i] == want
                                         : std::fabs(got[i] - want) <= tolerance;
      if (!ok && bad++ < 5)
        std::printf("  %s(%.9Lg): got %.17Lg, want %.17Lg\n", a.name, real(inputs[i]), real(got[i]), want);
    }
    CHECK(bad == 0);
  }
}

}  // namespace

TEST_CASE("activations match PyTorch's formulas, special values included", "[gpu][activations]") {
  check_activations<float>();
  check_activations<double>();
}
