// What every jet_bench case measures with: event-timed single calls on the default stream, their
// median, and the RESULT lines that report.py reads.
#pragma once

#include "driver/driver.hpp"

#include <jet/array.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace bench {

inline std::string tag;  // empty: RESULT lines

inline void check(CUresult r, const char* call) { jet::detail::check(r, call); }

// Elapsed time on the default stream between start() and stop_ms(), which waits for it.
class event_timer {
 public:
  event_timer() {
    check(driver().cuEventCreate(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
    check(driver().cuEventCreate(&stop_, CU_EVENT_DEFAULT), "cuEventCreate");
  }
  ~event_timer() {
    driver().cuEventDestroy(start_);
    driver().cuEventDestroy(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;
  void start() { check(driver().cuEventRecord(start_, nullptr), "cuEventRecord"); }
  float stop_ms() {
    check(driver().cuEventRecord(stop_, nullptr), "cuEventRecord");
    check(driver().cuEventSynchronize(stop_), "cuEventSynchronize");
    float ms = 0;
    check(driver().cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime");
    return ms;
  }

 private:
  static const jet::detail::driver_api& driver() { return jet::detail::driver(); }
  CUevent start_, stop_;
};

// Median of `reps` single calls, each timed on its own: the launch's latency included, unless
// `before_each` (untimed) keeps the GPU busy while the call is enqueued.
inline double median_ms(
    const std::function<void()>& f, int reps, const std::function<void()>& before_each = [] {}) {
  event_timer timer;
  for (int i = 0; i < 5; ++i) f();
  std::vector<float> ms(reps);
  for (auto& m : ms) {
    before_each();
    timer.start();
    f();
    m = timer.stop_ms();
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Per call, for `calls` calls back to back: what a loop of such calls sees, where each launch's
// latency overlaps the kernel before it.
inline double back_to_back_ms(const std::function<void()>& f, int calls) {
  event_timer timer;
  for (int i = 0; i < 5; ++i) f();
  timer.start();
  for (int i = 0; i < calls; ++i) f();
  return timer.stop_ms() / calls;
}

// Median of `reps` single calls, each timed on the GPU alone as Triton's do_bench times one: a
// 256 MiB memset before each clears L2 and keeps the GPU busy while the call is enqueued, so the
// launch's latency is hidden and the inputs come from memory.
inline double gpu_time_ms(const std::function<void()>& f, int reps) {
  static jet::array<float> scratch(std::size_t{64} << 20);
  const auto clear = reinterpret_cast<CUdeviceptr>(scratch.data());
  return median_ms(f, reps, [&] {
    check(jet::detail::driver().cuMemsetD32Async(clear, 0, scratch.size(), nullptr), "cuMemsetD32Async");
  });
}

/// One RESULT line (a TUNE line when `tag` is set): bytes / ms is its GB/s.
inline void report(const char* impl, const char* e, const char* dtype, std::size_t n, double ms, double bytes) {
  const double gbps = bytes / (ms * 1e-3) / 1e9;
  if (tag.empty())
    std::printf("RESULT impl=%s expr=%s dtype=%s n=%zu ms=%.5g gbps=%.1f\n", impl, e, dtype, n, ms, gbps);
  else
    std::printf("TUNE shape=%s expr=%s dtype=%s n=%zu ms=%.5g gbps=%.1f\n", tag.c_str(), e, dtype, n, ms, gbps);
  std::fflush(stdout);
}

}  // namespace bench
