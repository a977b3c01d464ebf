// The 2-D heat equation u_t = u_xx + u_yy on the unit square, zero on the boundary, by explicit
// finite differences on an N x N grid: each step is one jet expression over shifted views of the
// grid, and every `check_every` steps a norm tells how fast the solution is still changing.
//
// The start is the grid's slowest mode, u0 = sin(pi x) sin(pi y), which the discrete operator only
// scales: after k steps the exact discrete solution is g^k u0 with g = 1 - 8 r sin^2(pi h / 2).
// So the whole final grid is checked against a float64 host value, whatever N is.
//
//   heat_equation [N [steps]]     (default 4096 x 4096, 500 steps; exits 77 with no GPU)
// Prints the time per step; benchmarks/heat_torch.py runs the same program in PyTorch eager.
#include <jet/jet.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
  std::string reason;
  if (!jet::device_available(&reason)) {
    std::fprintf(stderr, "heat_equation: cannot run: %s\n", reason.c_str());
    return 77;
  }
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 500;
  const int check_every = 50;
  const double h = 1.0 / static_cast<double>(n - 1), r = 0.2;  // r = dt / h^2; explicit steps are stable for r <= 1/4
  const double pi = std::numbers::pi;

  std::vector<double> mode(n);  // sin(pi x) at the grid's points
  for (std::int64_t i = 0; i < n; ++i) mode[i] = std::sin(pi * static_cast<double>(i) * h);
  mode[n - 1] = 0;  // exactly zero on the boundary
  std::vector<float> start(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) start[i * n + j] = static_cast<float>(mode[i] * mode[j]);

  const jet::shape grid{n, n};
  jet::array<float> u = jet::from_host(start, grid), next = jet::from_host(start, grid);
  const float rate = static_cast<float>(r);

  // One step: next's interior from u's five-point stencil, one fused kernel.
  auto step = [&](jet::array<float>& from, jet::array<float>& to) {
    auto rows = [&](jet::array<float>& a, std::int64_t first) { return a.slice(0, first, first + n - 2); };
    auto at = [&](jet::array<float>& a, std::int64_t di, std::int64_t dj) {
      return rows(a, 1 + di).slice(1, 1 + dj, 1 + dj + n - 2);
    };
    const jet::view<float> centre = at(from, 0, 0);
    at(to, 0, 0) =
        centre + rate * (at(from, -1, 0) + at(from, 1, 0) + at(from, 0, -1) + at(from, 0, 1) - 4.0f * centre);
  };

  // One step and one norm before the clock starts, as the PyTorch version warms up: their kernels
  // compile (or load from the disk cache) here, not in the timed loop. The step writes only
  // `next`, which the first timed step writes again.
  step(u, next);
  double change = jet::norm2(next - u).item();
  jet::synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 1; k <= steps; ++k) {
    step(u, next);
    if (k % check_every == 0) change = jet::norm2(next - u).item();  // how much this step moved u
    std::swap(u, next);
  }
  jet::synchronize();
  const double ms_per_step =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / steps;

  // The exact discrete solution, in float64, against every point of the final grid.
  const double s = std::sin(pi * h / 2), g = std::pow(1 - 8 * r * s * s, steps);
  const std::vector<float> final_grid = u.to_host();
  double worst = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      worst = std::max(worst, std::fabs(final_grid[i * n + j] - g * mode[i] * mode[j]));
  double exact_norm = 0;
  for (std::int64_t i = 0; i < n; ++i) exact_norm += mode[i] * mode[i];
  exact_norm = g * exact_norm;  // ||g u0||_2 = g * (sum_i mode_i^2), the grid being an outer product
  const double norm = jet::norm2(u).item();

  std::printf("heat_equation: %lld x %lld grid, %d steps on %s: %.3f ms per step (%.0f GB/s moving u in and out)\n",
              static_cast<long long>(n), static_cast<long long>(n), steps, jet::current_device().name.c_str(),
              ms_per_step, 2.0 * static_cast<double>(n * n) * sizeof(float) / (ms_per_step * 1e6));
  std::printf("heat_equation: the last checked step changed u by %.3e (2-norm); ||u|| = %.6f, exact %.6f\n", change,
              norm, exact_norm);
  std::printf("heat_equation: largest difference from the exact discrete solution: %.3e\n", worst);
  // float32 rounding over `steps` steps of a stencil with weights summing to 1: far below 1e-4.
  const bool ok = worst < 1e-4 && std::fabs(norm - exact_norm) < 1e-4 * exact_norm;
  std::printf("HEAT impl=jet n=%lld ms=%.4f\n", static_cast<long long>(n), ms_per_step);
  return ok ? 0 : 1;
}
