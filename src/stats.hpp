// The counters behind jet::stats(), bumped wherever a launch, a cache hit or a compile happens.
#pragma once

#include <atomic>
#include <cstdint>

namespace jet::detail {

struct counters {
  std::atomic<std::uint64_t> launches{0}, memory_hits{0}, disk_hits{0}, disk_writes{0}, compiles{0};
  std::atomic<std::uint64_t> interpreted{0}, background_failures{0};
  std::atomic<double> compile_ms{0};
};
counters& stats_counters();

}  // namespace jet::detail
