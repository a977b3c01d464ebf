#include "stats.hpp"

#include <jet/runtime.hpp>

namespace jet::detail {

counters& stats_counters() {
  static counters c;
  return c;
}

}  // namespace jet::detail

namespace jet {

statistics stats() {
  auto& c = detail::stats_counters();
  return {.launches = c.launches.load(),
          .memory_hits = c.memory_hits.load(),
          .disk_hits = c.disk_hits.load(),
          .disk_writes = c.disk_writes.load(),
          .compiles = c.compiles.load(),
          .compile_ms = c.compile_ms.load(),
          .interpreted = c.interpreted.load(),
          .background_failures = c.background_failures.load()};
}

}  // namespace jet
