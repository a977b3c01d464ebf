// jet against hand-written CUDA, Thrust and an unfused baseline, on the expressions of
// expressions.hpp, float32 and float64, 2^10..2^28 elements; plus host time per call at 1024
// elements against a raw cuLaunchKernel, per expression of a ten-expression step on a stream and
// as a CUDA graph, and time to a first result for a new expression; Black-Scholes
// (black_scholes_bench.cpp); complex values and FFTs (complex_bench.cpp); the interpreter
// (interpreter_bench.cpp); large formulas (large_formulas.hpp).
// Prints RESULT / OVERHEAD / STEP / FIRST / BLACKSCHOLES / LARGE lines that report.py turns into tables.
//   jet_bench [--quick] [--jet-only] [--interpreter-bandwidth] [--reductions] [--black-scholes] [--large]
//             [--first-results] [--tag TAG]   (--disk-hit DIR: the child process of the first-result test)
//     --quick     sizes 2^20 and 2^28 only;  --jet-only  skip every peer and the overhead/first tests
//     --interpreter-bandwidth, --reductions, --black-scholes, --large, --complex   that part alone;
//     --first-results   the interpreter's first results, then the compiled ones
//     --tag TAG   print TUNE lines tagged TAG instead of RESULT lines (kernel-shape tuning runs)
//   INTERP lines: the interpreter (interpreter_bench.hpp).
#include "black_scholes_bench.hpp"
#include "complex_bench.hpp"
#include "host_data.hpp"
#include "interpreter_bench.hpp"
#include "expressions.hpp"
#include "large_formulas.hpp"
#include "ten_step.hpp"
#include "timing.hpp"
#ifdef JET_BENCH_NATIVE
#include "native_peers.hpp"
#endif

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "compile/compiler.hpp"
#include "driver/driver.hpp"
#include "driver/stream.hpp"
#include "kernel_cache.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <stdlib.h>  // mkdtemp

using bench::back_to_back_ms;
using bench::check;
using bench::expr;
using bench::gpu_time_ms;
using bench::median_ms;
using bench::random_normal;
using bench::report;
using clock_type = std::chrono::steady_clock;

namespace {

template <class T> const char* dtype_name() { return std::is_same_v<T, float> ? "float32" : "float64"; }

// Operands at the largest size; smaller sizes are views of their first n elements.
template <class T> struct operands {
  explicit operands(std::size_t max_n) {
    for (int k = 0; k < 4; ++k) in[k] = jet::from_host(random_normal<T>(max_n, 17 + k));
    out = jet::array<T>(max_n);
    for (auto& t : tmp) t = jet::array<T>(max_n);
  }
  jet::array<T> in[4], out, tmp[3];
};

template <class T> struct views {
  views(operands<T>& o, std::size_t n)
      : x(o.in[0].data(), n),
        y(o.in[1].data(), n),
        z(o.in[2].data(), n),
        w(o.in[3].data(), n),
        out(o.out.data(), n),
        t0(o.tmp[0].data(), n),
        t1(o.tmp[1].data(), n),
        t2(o.tmp[2].data(), n) {}
  jet::view<T> x, y, z, w, out, t0, t1, t2;
};

template <class T> void fused(expr e, views<T>& v) {
  const T a = T(bench::a), b = T(bench::b), c = T(bench::c);
  switch (e) {
    case expr::add: v.out = v.x + v.y; break;
    case expr::relu_add: v.out = jet::relu(v.x + v.y); break;
    case expr::axpbypc: v.out = a * v.x + b * v.y + c; break;
    case expr::chain: v.out = jet::tanh(T(1.5) * v.x + v.y) * jet::sigmoid(v.x - v.y) + v.x * v.y; break;
    case expr::four: v.out = v.x * v.y + v.z * v.w; break;
  }
}

// One jet kernel per op, through temporaries: what an array library without fusion does.
template <class T> void unfused(expr e, views<T>& v) {
  const T a = T(bench::a), b = T(bench::b), c = T(bench::c);
  switch (e) {
    case expr::add: v.out = v.x + v.y; break;
    case expr::relu_add:
      v.t0 = v.x + v.y;
      v.out = jet::relu(v.t0);
      break;
    case expr::axpbypc:
      v.t0 = a * v.x;
      v.t1 = b * v.y;
      v.t0 = v.t0 + v.t1;
      v.out = v.t0 + c;
      break;
    case expr::chain:
      v.t0 = T(1.5) * v.x;
      v.t0 = v.t0 + v.y;
      v.t0 = jet::tanh(v.t0);
      v.t1 = v.x - v.y;
      v.t1 = jet::sigmoid(v.t1);
      v.t0 = v.t0 * v.t1;
      v.t2 = v.x * v.y;
      v.out = v.t0 + v.t2;
      break;
    case expr::four:
      v.t0 = v.x * v.y;
      v.t1 = v.z * v.w;
      v.out = v.t0 + v.t1;
      break;
  }
}

std::vector<std::size_t> sizes(bool quick) {
  if (quick) return {std::size_t{1} << 20, std::size_t{1} << 28};
  std::vector<std::size_t> s;
  for (int k = 10; k <= 28; k += 2) s.push_back(std::size_t{1} << k);
  return s;
}

#ifdef JET_BENCH_NATIVE
// The peers and jet must compute the same function: compare a prefix of their outputs.
template <class T> void agree(expr e, views<T>& v, std::size_t n) {
  const void* in[4] = {v.x.data(), v.y.data(), v.z.data(), v.w.data()};
  bench::run_native(bench::native::cuda_float4, e, sizeof(T) == 8, in, v.t2.data(), n);
  fused(e, v);
  const std::size_t m = std::min<std::size_t>(n, 1 << 16);
  std::vector<T> mine(m), theirs(m);
  jet::detail::copy_to_host(mine.data(), v.out.data(), m * sizeof(T));
  jet::detail::copy_to_host(theirs.data(), v.t2.data(), m * sizeof(T));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i) bad += !(std::fabs(mine[i] - theirs[i]) <= 1e-5 * (1 + std::fabs(theirs[i])));
  if (bad)
    std::printf("MISMATCH expr=%s dtype=%s: %zu of %zu elements differ from cuda_float4\n",
                bench::expr_names[static_cast<int>(e)], dtype_name<T>(), bad, m);
}
#endif

template <class T> void bandwidth(bool quick, bool jet_only) {
  const auto ns = sizes(quick);
  operands<T> o(ns.back());
  for (expr e : bench::all_exprs) {
    const char* name = bench::expr_names[static_cast<int>(e)];
    for (std::size_t n : ns) {
      views<T> v(o, n);
      const int reps = n <= (1 << 20) ? 50 : 20;
      const double bytes = bench::bytes_moved(e, n, sizeof(T));
      report("jet", name, dtype_name<T>(), n, median_ms([&] { fused(e, v); }, reps), bytes);
      if (jet_only) continue;
      report("jet_unfused", name, dtype_name<T>(), n, median_ms([&] { unfused(e, v); }, reps), bytes);
#ifdef JET_BENCH_NATIVE
      const void* in[4] = {v.x.data(), v.y.data(), v.z.data(), v.w.data()};
      for (auto impl : {bench::native::cuda_masked, bench::native::cuda_float4, bench::native::thrust}) {
        const double ms = median_ms([&] { bench::run_native(impl, e, sizeof(T) == 8, in, v.out.data(), n); }, reps);
        if (const char* err = bench::native_error(); *err)
          std::printf("SKIP impl=%s reason=%s\n", bench::native_names[static_cast<int>(impl)], err);
        report(bench::native_names[static_cast<int>(impl)], name, dtype_name<T>(), n, ms, bytes);
      }
      if (n == ns.back()) agree(e, v, n);
#endif
    }
  }
}

void copy_ceiling() {
  const std::size_t n = std::size_t{1} << 28;
  jet::array<float> src = jet::from_host(random_normal<float>(n, 5)), dst(n);
#ifdef JET_BENCH_NATIVE
  const double ms = median_ms([&] { bench::run_memcpy(dst.data(), src.data(), n * 4); }, 20);
#else
  const double ms = median_ms([&] { jet::detail::copy_on_device(dst.data(), src.data(), n * 4); }, 20);
#endif
  report("memcpy", "copy", "float32", n, ms, 2.0 * n * 4);
}

// Layout-heavy expressions on 16384 x 16384 float32 (2^28 elements): a bias broadcast along rows,
// a transpose-add, whose x is read column by column, a slice-add of views a column apart (rows
// misaligned for vectors), and the heat equation's five-point step (examples/heat_equation.cpp)
// into the interior of another array, counting u in and out once.
void layouts() {
  const std::int64_t side = 16384;
  const std::size_t n = std::size_t(side) * side;
  jet::array<float> x = jet::from_host(random_normal<float>(n, 7), {side, side});
  jet::array<float> y = jet::from_host(random_normal<float>(n, 8), {side, side});
  jet::array<float> bias = jet::from_host(random_normal<float>(side, 9), {side});
  jet::array<float> out(jet::shape{side, side});
  report("jet", "bias_add", "float32", n, median_ms([&] { out = x + bias; }, 20), (2.0 * n + side) * 4);
  report("jet", "transpose_add", "float32", n, median_ms([&] { out = x.transpose() + y; }, 20), 3.0 * n * 4);
  const double columns = side - 1.0, interior = (side - 2.0) * (side - 2.0);
  report("jet", "slice_add", "float32", n,
         median_ms([&] { out.slice(1, 0, side - 1) = x.slice(1, 1, side) + y.slice(1, 0, side - 1); }, 20),
         3.0 * side * columns * 4);
  auto at = [&](jet::array<float>& a, std::int64_t di, std::int64_t dj) {
    return a.slice(0, 1 + di, side - 1 + di).slice(1, 1 + dj, side - 1 + dj);
  };
  const float rate = 0.2f;
  report("jet", "heat_step", "float32", n,
         median_ms(
             [&] {
               const jet::view<float> centre = at(x, 0, 0);
               at(out, 0, 0) =
                   centre + rate * (at(x, -1, 0) + at(x, 1, 0) + at(x, 0, -1) + at(x, 0, 1) - 4.0f * centre);
             },
             20),
         2.0 * interior * 4);
}

// A 3-D permutation, x.permute(2, 1, 0) + y on 1024 x 512 x 512 float32 (2^28 elements): x's
// contiguous dimension is the result's outer one.
void permute_add() {
  const std::size_t n = std::size_t{1} << 28;
  jet::array<float> x = jet::from_host(random_normal<float>(n, 12), {1024, 512, 512});
  jet::array<float> y = jet::from_host(random_normal<float>(n, 13), {512, 512, 1024});
  jet::array<float> out(jet::shape{512, 512, 1024});
  report("jet", "permute_add", "float32", n, median_ms([&] { out = x.permute({2, 1, 0}) + y; }, 20), 3.0 * n * 4);
}

// relu(x + y) in bfloat16 at 2^28 elements: 16-bit storage, float32 arithmetic.
void bfloat16_relu_add() {
  const std::size_t n = std::size_t{1} << 28;
  auto bf16 = [&](std::uint64_t seed) {
    const std::vector<float> values = random_normal<float>(n, seed);
    std::vector<jet::bfloat16> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = jet::bfloat16(values[i]);
    return jet::from_host(h);
  };
  jet::array<jet::bfloat16> x = bf16(10), y = bf16(11), out(n);
  report("jet", "relu_add", "bfloat16", n, median_ms([&] { out = jet::relu(x + y); }, 20), 3.0 * n * 2);
}

// Reductions: sum(x * y) over float32 (8 bytes read per element; against CUB's DeviceReduce::Sum
// over a transform iterator, in the same run), and row sums of a 16384 x 16384 float32 matrix.
// Each jet result is checked against the peer's.
void reductions(bool jet_only) {
  const std::size_t max_n = std::size_t{1} << 28;
  jet::array<float> x = jet::from_host(random_normal<float>(max_n, 12)),
                    y = jet::from_host(random_normal<float>(max_n, 13));
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 24, max_n}) {
    const jet::view<float> vx(x.data(), n), vy(y.data(), n);
    const double bytes = 8.0 * n;
    report("jet", "sum_mul", "float32", n, median_ms([&] { (void)jet::sum(vx * vy); }, 50), bytes);
    const bool small = n == std::size_t{1} << 20;
    if (small) {
      report("jet_back_to_back", "sum_mul", "float32", n, back_to_back_ms([&] { (void)jet::sum(vx * vy); }, 1000),
             bytes);
      report("jet_gpu_time", "sum_mul", "float32", n, gpu_time_ms([&] { (void)jet::sum(vx * vy); }, 100), bytes);
    }
    if (jet_only) continue;
#ifdef JET_BENCH_NATIVE
    jet::array<float> theirs(jet::shape{});
    const auto cub_sum = [&] { bench::run_cub_dot(vx.data(), vy.data(), theirs.data(), n); };
    report("cub", "sum_mul", "float32", n, median_ms(cub_sum, 50), bytes);
    if (small) {
      report("cub_back_to_back", "sum_mul", "float32", n, back_to_back_ms(cub_sum, 1000), bytes);
      report("cub_gpu_time", "sum_mul", "float32", n, gpu_time_ms(cub_sum, 100), bytes);
    }
    const float mine = jet::sum(vx * vy).item(), cub = theirs.item();
    if (!(std::fabs(mine - cub) <= 1e-4 * (1 + std::fabs(cub))))
      std::printf("MISMATCH expr=sum_mul n=%zu: jet %.9g, cub %.9g\n", n, mine, cub);
#endif
  }
  const std::int64_t side = 16384;
  const jet::view<float> m(x.data(), jet::shape{side, side});
  jet::array<float> rows;
  report("jet", "row_sum", "float32", max_n, median_ms([&] { rows = jet::sum(m, 1); }, 20), 4.0 * max_n + 4.0 * side);
  report("jet", "column_sum", "float32", max_n, median_ms([&] { rows = jet::sum(m, 0); }, 20),
         4.0 * max_n + 4.0 * side);
  jet::array<std::int64_t> where;
  report("jet", "row_argmax", "float32", max_n, median_ms([&] { where = jet::argmax(m, 1); }, 20),
         4.0 * max_n + 8.0 * side);
  jet::array<float> probabilities(jet::shape{side, side});
  report("jet", "softmax_rows", "float32", max_n, median_ms([&] { probabilities = jet::softmax(m, 1); }, 10),
         8.0 * max_n);
}

// Host time per evaluation at 1024 elements, back to back, one synchronization at the end; and the
// same for a raw cuLaunchKernel of the very kernel jet launches. Each the fastest of three rounds.
void overhead() {
  const std::size_t n = 1024;
  const int calls = 100000;
  jet::array<float> x = jet::from_host(random_normal<float>(n, 1)), y = jet::from_host(random_normal<float>(n, 2)),
                    z(n);
  auto time_us = [&](const std::function<void()>& f) {
    for (int i = 0; i < 1000; ++i) f();
    jet::synchronize();
    const auto t0 = clock_type::now();
    for (int i = 0; i < calls; ++i) f();
    jet::synchronize();
    return std::chrono::duration<double, std::micro>(clock_type::now() - t0).count() / calls;
  };

  z = x + y;  // compiled and loaded before its CUfunction is asked for
  using E = decltype(jet::detail::as_expr(x) + jet::detail::as_expr(y));
  using K = jet::detail::kernel_of<jet::detail::roots<E>, float>;
  const auto variant = jet::detail::default_variant(K::desc);
  CUfunction f = jet::detail::find_kernel(K::desc, K::slot, variant);
  void* out = z.data();
  const void *in0 = x.data(), *in1 = y.data();
  unsigned long long count = n;
  void* params[] = {&out, &in0, &in1, &count};
  const auto& cu = jet::detail::driver();
  const unsigned threads = jet::detail::shape_of(variant).threads;
  // Alternately, three times each, the fastest of each kept: neither loop gains from running
  // second (a GPU already at its clocks, a warm queue).
  double jet_us = 1e30, launch_us = 1e30;
  for (int round = 0; round < 3; ++round) {
    jet_us = std::min(jet_us, time_us([&] { z = x + y; }));
    launch_us = std::min(launch_us,
                         time_us([&] { cu.cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, nullptr, params, nullptr); }));
  }
  std::printf("OVERHEAD impl=jet us=%.2f\n", jet_us);
  std::printf("OVERHEAD impl=cuLaunchKernel us=%.2f\n", launch_us);
}

// Host time per expression of a step of ten dependent expressions at 1024 elements on a stream
// (tests/support/ten_step.hpp, the step the graph tests check), back to back with one
// synchronization at the end: evaluated expression by expression, and replayed as the CUDA graph
// captured from one step.
void step_overhead() {
  const std::size_t n = 1024;
  const int steps = 20000;
  jet::test::device_state s;
  std::uint64_t seed = 20;
  for (jet::array<float>* a : {&s.x, &s.y, &s.u, &s.v, &s.w, &s.t})
    *a = jet::from_host(random_normal<float>(n, seed++));
  jet::stream stream;
  jet::stream_guard on(stream);
  auto us_per_expression = [&](const std::function<void()>& step) {
    for (int i = 0; i < 100; ++i) step();
    stream.synchronize();
    const auto t0 = clock_type::now();
    for (int i = 0; i < steps; ++i) step();
    stream.synchronize();
    return std::chrono::duration<double, std::micro>(clock_type::now() - t0).count() /
           (double(steps) * jet::test::ten_step_expressions);
  };
  std::printf("STEP impl=jet_stream us=%.3f\n", us_per_expression([&] { jet::test::ten_step(s); }));
  const jet::graph g = jet::capture([&] { jet::test::ten_step(s); });
  std::printf("STEP impl=jet_graph us=%.3f\n", us_per_expression([&] { g.launch(); }));
  std::fflush(stdout);
}

// Wall time from the call to the result for expressions this process has not compiled yet, with
// an empty disk cache: the first compile in the process (NVRTC's start-up included), a second
// new expression; then the first of them again in a fresh process, which finds it on disk.
double first_result_ms(std::size_t n,
                       const std::function<void(jet::array<float>&, jet::array<float>&, jet::array<float>&)>& f) {
  jet::array<float> x = jet::from_host(random_normal<float>(n, 3)), y = jet::from_host(random_normal<float>(n, 4)),
                    z(n);
  const auto t0 = clock_type::now();
  f(x, y, z);
  jet::synchronize();
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}
void first_expression(jet::array<float>& x, jet::array<float>& y, jet::array<float>& z) { z = jet::relu(x * 1.5f - y); }

void first_results(const char* self) {
  char directory[] = "/tmp/jet-bench-cache-XXXXXX";
  if (!mkdtemp(directory)) return;
  const std::string usual = jet::disk_cache_directory();
  jet::set_disk_cache_directory(directory);
  std::printf("FIRST impl=jet_first_in_process ms=%.1f\n", first_result_ms(1 << 20, first_expression));
  const double compiled_before = jet::stats().compile_ms;
  std::printf("FIRST impl=jet_new_expression ms=%.1f\n",
              first_result_ms(1 << 20, [](auto& x, auto& y, auto& z) { z = (x - y) * (x + 0.5f); }));
  // Where that time goes: NVRTC's part of it, and NVRTC's floor, an empty kernel never seen before
  // compiled with jet's options (what no code generator can go below).
  std::printf("FIRST impl=jet_new_expression_nvrtc_part ms=%.1f\n", jet::stats().compile_ms - compiled_before);
  // A complex expression compiled before its first result (this fresh cache holds no complex
  // interpreter, which starts compiling now): a mixer and a magnitude, complex division's and
  // exp's helpers included. Interpreted: INTERP kind=first_result_complex.
  std::printf("FIRST impl=jet_new_complex_expression ms=%.1f\n",
              first_result_ms(1 << 20, [](auto& x, auto& y, auto& z) {
                z = jet::abs(jet::make_complex(x, y) * jet::exp(jet::make_complex(0.f, y)) / (x + 2.f));
              }));
  const std::string empty_kernel = "// " + std::string(directory) + "\nextern \"C\" __global__ void jet_kernel() {}\n";
  std::printf("FIRST impl=nvrtc_empty_kernel ms=%.1f\n",
              jet::detail::compile_to_cubin(empty_kernel, jet::current_device().arch.value, "empty").compile_ms);
  std::fflush(stdout);
  const std::string child = std::string(self) + " --disk-hit " + directory;
  if (std::system(child.c_str()) != 0) std::printf("SKIP impl=jet_disk_hit reason=the child process failed\n");
  std::system((std::string("rm -rf ") + directory).c_str());
  if (usual.empty())
    jet::set_disk_cache(false);
  else
    jet::set_disk_cache_directory(usual);
}

// In a fresh process: the first evaluation of first_expression, whose kernel is on disk.
int disk_hit(const char* directory) {
  jet::set_disk_cache_directory(directory);
  jet::current_device();  // the driver and context start outside the timed call, as in every measurement
  const double ms = first_result_ms(1024, first_expression);
  const auto s = jet::stats();
  std::printf("FIRST impl=jet_disk_hit_fresh_process ms=%.2f\n", ms);
  if (s.disk_hits != 1 || s.compiles != 0)
    std::printf("SKIP impl=jet_disk_hit reason=expected one disk hit and no compile\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, jet_only = false, interpreter_only = false, reductions_only = false, black_scholes_only = false,
       large_only = false, first_only = false, complex_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--disk-hit") && i + 1 < argc) return disk_hit(argv[i + 1]);
    if (!std::strcmp(argv[i], "--quick"))
      quick = true;
    else if (!std::strcmp(argv[i], "--jet-only"))
      jet_only = true;
    else if (!std::strcmp(argv[i], "--interpreter-bandwidth"))
      interpreter_only = true;
    else if (!std::strcmp(argv[i], "--reductions"))
      reductions_only = true;
    else if (!std::strcmp(argv[i], "--black-scholes"))
      black_scholes_only = true;
    else if (!std::strcmp(argv[i], "--large"))
      large_only = true;
    else if (!std::strcmp(argv[i], "--first-results"))
      first_only = true;
    else if (!std::strcmp(argv[i], "--complex"))
      complex_only = true;
    else if (!std::strcmp(argv[i], "--tag") && i + 1 < argc)
      bench::tag = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--quick] [--jet-only] [--interpreter-bandwidth] [--reductions] [--black-scholes] "
                   "[--large] [--first-results] [--complex] [--tag TAG]\n",
                   argv[0]);
      return 2;
    }
  }
  std::string reason;
  if (!jet::device_available(&reason)) {
    std::printf("jet_bench: cannot run: %s\n", reason.c_str());
    return 77;
  }
  const jet::device_info d = jet::current_device();
  std::printf("# jet_bench on %s (sm_%d, %d SMs)\n", d.name.c_str(), d.arch.value, d.multiprocessors);
  // Every measurement but the interpreter's is of compiled kernels, compiled when first used.
  jet::set_jit_policy(jet::jit_policy::sync);
  if (interpreter_only) {  // e.g. under JET_INTERPRETER_ELEMENTS
    bench::interpreter_bandwidth();
    return 0;
  }
  if (reductions_only) {
    reductions(jet_only);
    return 0;
  }
  if (black_scholes_only) {
    bench::black_scholes(jet_only);
    return 0;
  }
  if (large_only) {
    bench::large_formulas(gpu_time_ms);
    return 0;
  }
  if (first_only) {
    bench::interpreter_first_results();
    first_results(argv[0]);
    return 0;
  }
  if (complex_only) {
    bench::complex_and_fft();
    return 0;
  }
  if (!jet_only) {
    bench::interpreter_first_results();
    bench::interpreter_bandwidth();
    first_results(argv[0]);
    overhead();
    step_overhead();
    copy_ceiling();
    layouts();
    permute_add();
    bfloat16_relu_add();
    bench::complex_and_fft();
  }
  bench::black_scholes(jet_only);
  reductions(jet_only);
  bandwidth<float>(quick, jet_only);
  bandwidth<double>(quick, jet_only);
}
