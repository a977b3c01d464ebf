// Host data for the benchmarks: random operands, made on every core.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace bench {

/// n values of a standard normal distribution, from `seed`.
template <class T> std::vector<T> random_normal(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      std::mt19937_64 engine(seed * 1000003 + w);
      std::normal_distribution<T> normal;
      for (std::size_t i = n * w / workers; i < n * (w + 1) / workers; ++i) v[i] = normal(engine);
    });
  for (auto& t : pool) t.join();
  return v;
}

}  // namespace bench
