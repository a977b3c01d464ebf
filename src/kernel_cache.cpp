#include "kernel_cache.hpp"

#include "codegen.hpp"
#include "disk_cache.hpp"
#include "driver.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace jet::detail {
namespace {

// What identifies a compiled kernel: its content, not the C++ type it came from, so two
// expression types with the same tree share one kernel.
struct kernel_identity {
  std::vector<node> nodes;
  std::vector<dtype> input_types;
  std::uint32_t scalar_count;
  std::vector<std::uint16_t> out_nodes;
  std::vector<dtype> out_types;
  std::vector<std::string> functions;  // each user function's name, signature and body
  reduction_id reduction;
  variant_key variant;
  int device;

  static std::vector<std::string> functions_of(const kernel_desc& d) {
    std::vector<std::string> texts;
    for (unsigned k = 0; k < d.function_count; ++k)
      texts.push_back(std::string(d.functions[k]->name) + '\0' + d.functions[k]->signature + '\0' + d.functions[k]->body);
    return texts;
  }

  bool matches(const kernel_desc& d, const variant_key& v, int dev) const {
    return device == dev && scalar_count == d.scalar_count && reduction == d.reduction && variant == v &&
           std::equal(nodes.begin(), nodes.end(), d.nodes, d.nodes + d.node_count) &&
           std::equal(input_types.begin(), input_types.end(), d.input_types, d.input_types + d.input_count) &&
           std::equal(out_nodes.begin(), out_nodes.end(), d.out_nodes, d.out_nodes + d.out_count) &&
           std::equal(out_types.begin(), out_types.end(), d.out_types, d.out_types + d.out_count) &&
           functions == functions_of(d);
  }
};

struct compiled_entry {
  kernel_identity identity;
  std::once_flag once;
  CUfunction function = nullptr;  // its module stays loaded for the life of the process
};

struct global_cache {
  std::mutex mutex;
  std::unordered_multimap<std::uint64_t, std::unique_ptr<compiled_entry>> entries;

  compiled_entry& entry_for(const kernel_desc& d, const variant_key& v, int device) {
    std::lock_guard lock(mutex);
    auto [first, last] = entries.equal_range(d.hash);
    for (auto it = first; it != last; ++it)
      if (it->second->identity.matches(d, v, device)) return *it->second;
    auto e = std::make_unique<compiled_entry>();
    e->identity = {std::vector<node>(d.nodes, d.nodes + d.node_count),
                   std::vector<dtype>(d.input_types, d.input_types + d.input_count),
                   d.scalar_count,
                   std::vector<std::uint16_t>(d.out_nodes, d.out_nodes + d.out_count),
                   std::vector<dtype>(d.out_types, d.out_types + d.out_count),
                   kernel_identity::functions_of(d),
                   d.reduction,
                   v,
                   device};
    return *entries.emplace(d.hash, std::move(e))->second;
  }
};
global_cache& cache() {
  static global_cache c;
  return c;
}

CUfunction compile_and_load(const kernel_desc& d, const variant_key& v) {
  const driver_api& api = driver();
  const cached_cubin binary = cached_compile(generate_source(d, v), properties().arch, describe(d));
  CUmodule module = nullptr;
  check(api.cuModuleLoadData(&module, binary.image.data()), "cuModuleLoadData");
  CUfunction function = nullptr;
  check(api.cuModuleGetFunction(&function, module, kernel_name), "cuModuleGetFunction");
  return function;
}

}  // namespace

counters& stats_counters() {
  static counters c;
  return c;
}

CUfunction find_kernel(const kernel_desc& desc, kernel_slot& slot, const variant_key& variant) {
  const int device = properties().ordinal;
  const int filled = slot.filled.load(std::memory_order_acquire);
  for (int i = 0; i < filled; ++i) {
    const kernel_slot::entry& e = slot.entries[i];
    if (e.device == device && e.key == variant) {
      stats_counters().memory_hits.fetch_add(1, std::memory_order_relaxed);
      return static_cast<CUfunction>(e.function);
    }
  }
  compiled_entry& entry = cache().entry_for(desc, variant, device);
  std::call_once(entry.once, [&] { entry.function = compile_and_load(desc, variant); });

  std::lock_guard lock(slot.fill_mutex);
  const int now = slot.filled.load(std::memory_order_relaxed);
  bool present = false;
  for (int i = 0; i < now; ++i) present |= slot.entries[i].device == device && slot.entries[i].key == variant;
  if (!present && now < kernel_slot::capacity) {
    slot.entries[now] = {variant, device, entry.function};
    slot.filled.store(now + 1, std::memory_order_release);
  }
  return entry.function;
}

void find_kernels_in_parallel(const kernel_request* kernels, std::size_t count) {
  properties();  // no device: no_device here, once, rather than from every worker
  const std::size_t workers = std::min<std::size_t>(count, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr first_failure;
  {  // the pool's threads join as it goes out of scope
    std::vector<std::jthread> pool;
    for (std::size_t w = 0; w < workers; ++w)
      pool.emplace_back([&] {
        for (std::size_t i; (i = next.fetch_add(1)) < count;) {
          try {
            find_kernel(*kernels[i].desc, *kernels[i].slot, kernels[i].variant);
          } catch (...) {
            std::lock_guard lock(failure_mutex);
            if (!first_failure) first_failure = std::current_exception();
          }
        }
      });
  }
  if (first_failure) std::rethrow_exception(first_failure);
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
          .compile_ms = c.compile_ms.load()};
}

}  // namespace jet
