// jet_bench --large: large formulas on the GPU (large_formulas.cpp).
#pragma once

#include <functional>

namespace bench {

/// The GPU's time for one call of f, in ms, the median of `reps`.
using time_ms_function = double (*)(const std::function<void()>& f, int reps);

/// LARGE lines: a 100-op transcendental chain over 2^24 elements and Black-Scholes over 4,000,000
/// options, each one kernel: NVRTC's ms, the kernel's ms and GB/s, and whether the formula was
/// compiled once (outlined) or inlined, which JET_OUTLINE_COST decides.
void large_formulas(time_ms_function time_ms);

}  // namespace bench
