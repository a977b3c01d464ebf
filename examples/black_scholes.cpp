// The CUDA samples' BlackScholes workload (Samples/5_Domain_Specific/BlackScholes): European call
// and put prices of 4,000,000 options at once, in plain jet expressions (black_scholes.hpp), both
// prices written by one kernel; checked as the sample checks its GPU results, by the L1 relative
// error sum |got - ref| / sum |ref| of calls and of puts against a float64 host version, which
// must not exceed 1e-6.
//
//   black_scholes [options [iterations]]     (default 4,000,000 options, 512 iterations; exits 77 with no GPU)
// Prints the time per evaluation; benchmarks/jet_bench.cpp times the same formula beside its peers.
#include "black_scholes.hpp"

#include <jet/jet.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

// The sample's host version (BlackScholes_gold.cpp), in float64 from the float inputs.
double cnd(double d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double rsqrt2pi = 0.39894228040143267793994605993438;
  const double k = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
  const double tail = rsqrt2pi * std::exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? 1.0 - tail : tail;
}

struct prices {
  double call, put;
};

prices reference(double s, double x, double t, double r, double v) {
  const double sqrt_t = std::sqrt(t);
  const double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t);
  const double d2 = d1 - v * sqrt_t;
  const double discounted_strike = x * std::exp(-r * t);
  return {s * cnd(d1) - discounted_strike * cnd(d2), discounted_strike * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1))};
}

std::vector<float> uniform(std::size_t n, float low, float high, std::mt19937& engine) {
  std::uniform_real_distribution<float> draw(low, high);
  std::vector<float> v(n);
  for (float& e : v) e = draw(engine);
  return v;
}

// sum |got - want| / sum |want|: the sample's L1 norm.
double l1_error(const std::vector<float>& got, const std::vector<double>& want) {
  double delta = 0, norm = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    delta += std::fabs(got[i] - want[i]);
    norm += std::fabs(want[i]);
  }
  return delta / norm;
}

}  // namespace

int main(int argc, char** argv) {
  std::string reason;
  if (!jet::device_available(&reason)) {
    std::fprintf(stderr, "black_scholes: cannot run: %s\n", reason.c_str());
    return 77;
  }
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4000000;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 512;

  std::mt19937 engine(5347);  // the sample's seed; the draws are the standard library's
  const std::vector<float> hs = uniform(n, 5.0f, 30.0f, engine), hx = uniform(n, 1.0f, 100.0f, engine),
                           ht = uniform(n, 0.25f, 10.0f, engine);
  const jet::array<float> s = jet::from_host(hs), x = jet::from_host(hx), t = jet::from_host(ht);
  jet::array<float> call(n), put(n);

  // The first evaluation compiles the kernel (or loads it from the disk cache), outside the clock.
  jet::tie(call, put) = black_scholes::prices(s, x, t);
  jet::synchronize();
  const std::uint64_t launches = jet::stats().launches;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) jet::tie(call, put) = black_scholes::prices(s, x, t);
  jet::synchronize();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / iterations;
  const double launches_per_evaluation = double(jet::stats().launches - launches) / iterations;

  std::vector<double> want_call(n), want_put(n);
  for (std::size_t i = 0; i < n; ++i) {
    const prices p = reference(hs[i], hx[i], ht[i], black_scholes::riskfree, black_scholes::volatility);
    want_call[i] = p.call;
    want_put[i] = p.put;
  }
  const double call_error = l1_error(call.to_host(), want_call), put_error = l1_error(put.to_host(), want_put);

  std::printf(
      "black_scholes: %zu options on %s: %.4f ms per evaluation, %.2f Goptions/s, %.0f GB/s, %g launches each\n", n,
      jet::current_device().name.c_str(), ms, n / (ms * 1e6), 5.0 * n * sizeof(float) / (ms * 1e6),
      launches_per_evaluation);
  std::printf("black_scholes: L1 relative error against float64: calls %.3e, puts %.3e (at most 1e-6)\n", call_error,
              put_error);
  const bool ok = call_error <= 1e-6 && put_error <= 1e-6;
  std::printf("black_scholes: %s\n", ok ? "passed" : "FAILED");
  return ok ? 0 : 1;
}
