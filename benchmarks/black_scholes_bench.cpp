// Black-Scholes (examples/black_scholes.hpp, the CUDA samples' workload) at the sample's 4,000,000
// options, 2^24 and 2^26: jet's one kernel for calls and puts (the formula's values as plain auto
// sub-expressions, and named with jet::let: impl=jet_let) against the hand-written CUDA kernel
// of the same maths (native_peers.cu), each the median of single event-timed calls, as every
// jet_bench case, and (impl=jet_gpu_time, cuda_hand_gpu_time, ..._back_to_back) with the launch
// hidden; bytes are the three inputs and the two outputs. Besides RESULT lines:
//   BLACKSCHOLES kind=compile impl=jet ms=<NVRTC> first_result_ms=<call to result>  (no disk cache)
//   BLACKSCHOLES kind=interpreted impl=jet first_result_ms=<call to result on the loaded interpreter>
//   BLACKSCHOLES kind=launches impl=jet n=<options> per_evaluation=<launches>
//   BLACKSCHOLES kind=calls impl=<jet|cuda_hand> log=<calls> exp=<calls> sqrt=<calls>  (per option)
#include "black_scholes_bench.hpp"

#include "black_scholes.hpp"
#include "native_peers.hpp"
#include "planned.hpp"
#include "text.hpp"
#include "timing.hpp"

#include <jet/jet.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {
namespace {

// n options in arrays of their own, as a user holds them (an expression refers to its arrays and
// copies its views: arrays make the formula cheapest to build).
struct options {
  explicit options(std::size_t n)
      : s(jet::eval(5.0f + 25.0f * jet::random_uniform(jet::shape{static_cast<std::int64_t>(n)}, 1))),
        x(jet::eval(1.0f + 99.0f * jet::random_uniform(jet::shape{static_cast<std::int64_t>(n)}, 2))),
        t(jet::eval(0.25f + 9.75f * jet::random_uniform(jet::shape{static_cast<std::int64_t>(n)}, 3))),
        call(n),
        put(n) {}
  jet::array<float> s, x, t, call, put;
};

// The first evaluation in the process, with the disk cache off: NVRTC compiles the kernel.
void cold_compile(options& o) {
  jet::set_disk_cache(false);
  const jet::statistics before = jet::stats();
  const auto t0 = std::chrono::steady_clock::now();
  jet::tie(o.call, o.put) = black_scholes::prices(o.s, o.x, o.t);
  jet::synchronize();
  const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const jet::statistics after = jet::stats();
  jet::set_disk_cache(true);
  if (after.compiles == before.compiles)
    std::printf("SKIP impl=jet_black_scholes_compile reason=the kernel did not compile (already in memory)\n");
  else
    std::printf("BLACKSCHOLES kind=compile impl=jet ms=%.1f first_result_ms=%.1f\n",
                after.compile_ms - before.compile_ms, first_ms);
}

// The first result of the never-seen evaluation on the interpreter, once it is loaded (as `async`
// gives it wherever the disk cache holds the interpreter), and whether its bits are the compiled
// kernel's (in o.call and o.put).
void interpreted_first_result(options& o) {
  const jet::jit_policy policy = jet::get_jit_policy();
  jet::set_jit_policy(jet::jit_policy::interpret);
  (void)jet::eval(o.s + o.x);  // loads the float32 interpreter
  jet::synchronize();
  jet::array<float> call(o.s.size()), put(o.s.size());
  const std::uint64_t interpreted = jet::stats().interpreted;
  const auto t0 = std::chrono::steady_clock::now();
  jet::tie(call, put) = black_scholes::prices(o.s, o.x, o.t);
  jet::synchronize();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  jet::set_jit_policy(policy);
  const std::vector<float> ic = call.to_host(), ip = put.to_host(), cc = o.call.to_host(), cp = o.put.to_host();
  std::size_t differ = 0;
  for (std::size_t i = 0; i < ic.size(); ++i)
    differ += std::memcmp(&ic[i], &cc[i], sizeof(float)) != 0 || std::memcmp(&ip[i], &cp[i], sizeof(float)) != 0;
  std::printf("BLACKSCHOLES kind=interpreted impl=jet first_result_ms=%.3f interpreted_launches=%llu\n", ms,
              static_cast<unsigned long long>(jet::stats().interpreted - interpreted));
  if (differ)
    std::printf("MISMATCH expr=black_scholes_interpreted: %zu options differ from the compiled kernel\n", differ);
}

void print_calls(const char* impl, const transcendental_calls& c) {
  std::printf("BLACKSCHOLES kind=calls impl=%s log=%zu exp=%zu sqrt=%zu\n", impl, c.log, c.exp, c.sqrt);
}

#ifdef JET_BENCH_NATIVE
// sum |a - b| / sum |b| over both outputs, the sample's L1 norm: jet against the hand kernel.
double l1_difference(const jet::view<float>& a, const jet::view<float>& b) {
  const std::vector<float> ha = a.to_host(), hb = b.to_host();
  double delta = 0, norm = 0;
  for (std::size_t i = 0; i < ha.size(); ++i) {
    delta += std::fabs(double(ha[i]) - hb[i]);
    norm += std::fabs(double(hb[i]));
  }
  return delta / norm;
}
#endif

}  // namespace

void black_scholes(bool jet_only) {
  const std::size_t sizes[] = {4000000, std::size_t{1} << 24, std::size_t{1} << 26};
  for (std::size_t n : sizes) {
    // The sample's ranges: prices in [5, 30], strikes in [1, 100], years in [0.25, 10].
    options o(n);
    auto jet_prices = [&] { jet::tie(o.call, o.put) = black_scholes::prices(o.s, o.x, o.t); };
    if (n == sizes[0]) {
      cold_compile(o);
      interpreted_first_result(o);
      const std::string source = jet::test::planned_source_of(black_scholes::prices(o.s, o.x, o.t),
                                                              jet::view<float>(o.call), jet::view<float>(o.put));
      print_calls("jet", {jet::test::op_calls(source, "log"), jet::test::op_calls(source, "exp"),
                          jet::test::op_calls(source, "sqrt")});
    }
    const std::uint64_t launches = jet::stats().launches;
    jet_prices();
    std::printf("BLACKSCHOLES kind=launches impl=jet n=%zu per_evaluation=%llu\n", n,
                static_cast<unsigned long long>(jet::stats().launches - launches));
    const int reps = 20;
    const double bytes = 5.0 * double(n) * sizeof(float);
    report("jet", "black_scholes", "float32", n, median_ms(jet_prices, reps), bytes);
    // Where a gap to the hand kernel lies: in the kernel (GPU time, the launch hidden) or in the
    // host's path to the launch (single calls only).
    report("jet_gpu_time", "black_scholes", "float32", n, gpu_time_ms(jet_prices, reps), bytes);
    report("jet_back_to_back", "black_scholes", "float32", n, back_to_back_ms(jet_prices, 200), bytes);
    auto jet_let = [&] {
      jet::tie(o.call, o.put) = black_scholes::prices(o.s, o.x, o.t, black_scholes::riskfree, black_scholes::volatility,
                                                      black_scholes::let_values{});
    };
    jet_let();  // its own kernel (its repeats are listed in another order), compiled outside the clock
    report("jet_let", "black_scholes", "float32", n, median_ms(jet_let, reps), bytes);
#ifdef JET_BENCH_NATIVE
    if (jet_only) continue;
    jet::array<float> hc(n), hp(n);
    auto hand = [&] {
      run_black_scholes(o.s.data(), o.x.data(), o.t.data(), hc.data(), hp.data(), n, black_scholes::riskfree,
                        black_scholes::volatility);
    };
    report("cuda_hand", "black_scholes", "float32", n, median_ms(hand, reps), bytes);
    report("cuda_hand_gpu_time", "black_scholes", "float32", n, gpu_time_ms(hand, reps), bytes);
    report("cuda_hand_back_to_back", "black_scholes", "float32", n, back_to_back_ms(hand, 200), bytes);
    if (const char* err = native_error(); *err) std::printf("SKIP impl=cuda_hand reason=%s\n", err);
    if (n == sizes[0]) {
      print_calls("cuda_hand", black_scholes_hand_calls);
      const double calls = l1_difference(o.call, hc), puts = l1_difference(o.put, hp);
      if (!(calls <= 1e-6 && puts <= 1e-6))
        std::printf("MISMATCH expr=black_scholes n=%zu: L1 difference from cuda_hand calls %.3g, puts %.3g\n", n, calls,
                    puts);
    }
#endif
  }
  std::fflush(stdout);
}

}  // namespace bench
