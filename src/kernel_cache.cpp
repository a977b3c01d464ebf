#include "kernel_cache.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "compile/compiler.hpp"
#include "compile/cached_compile.hpp"
#include "driver/driver.hpp"
#include "driver/stream.hpp"
#include "stats.hpp"

#include <jet/detail/sharing.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
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
  std::vector<repeat> repeats;  // a function of the nodes, which a variant's `shared` bits index
  variant_key variant;
  int device;

  static std::vector<std::string> functions_of(const kernel_desc& d) {
    std::vector<std::string> texts;
    for (unsigned k = 0; k < d.function_count; ++k)
      texts.push_back(std::string(d.functions[k]->name) + '\0' + d.functions[k]->signature + '\0' +
                      d.functions[k]->body);
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
  std::atomic<CUfunction> function{nullptr};  // its module stays loaded for the life of the process
  std::atomic<bool> queued{false};            // for a background compile (jit_policy::async)
  std::atomic<bool> disk_probed{false};       // find_stored_kernel looked in the disk cache once
  std::atomic<bool> failed{false};            // the background compile failed: keep interpreting

  // The description the identity holds: for a background compile, which outlives the evaluation's
  // own description. Only expressions without user functions or counters are compiled there.
  kernel_desc owned_desc() const {
    return {.nodes = identity.nodes.data(),
            .node_count = static_cast<std::uint32_t>(identity.nodes.size()),
            .input_count = static_cast<std::uint32_t>(identity.input_types.size()),
            .scalar_count = identity.scalar_count,
            .input_types = identity.input_types.data(),
            .counter_slots = 0,
            .out_count = static_cast<std::uint32_t>(identity.out_nodes.size()),
            .out_nodes = identity.out_nodes.data(),
            .out_types = identity.out_types.data(),
            .functions = nullptr,
            .function_count = 0,
            .hash = 0,
            .repeats = identity.repeats.data(),
            .repeat_count = static_cast<std::uint32_t>(identity.repeats.size())};
  }
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
                   std::vector<repeat>(d.repeats, d.repeats + d.repeat_count),
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
  return load_function(
      cached_compile(generate_source(d, v), properties().arch, describe(d), {d.node_count, d.function_count}).image,
      kernel_name);
}

}  // namespace

CUfunction load_function(const std::string& cubin, const char* name) {
  const driver_api& api = driver();
  const capture_exemption loading;  // a kernel first seen during a capture is loaded then
  CUmodule module = nullptr;
  check(api.cuModuleLoadData(&module, cubin.data()), "cuModuleLoadData");
  CUfunction function = nullptr;
  check(api.cuModuleGetFunction(&function, module, name), "cuModuleGetFunction");
  return function;
}

CUfunction find_in_slot(kernel_slot& slot, const variant_key& variant) {
  const int device = properties().ordinal;
  const int filled = slot.filled.load(std::memory_order_acquire);
  for (int i = 0; i < filled; ++i) {
    const kernel_slot::entry& e = slot.entries[i];
    if (e.device == device && e.key == variant) {
      stats_counters().memory_hits.fetch_add(1, std::memory_order_relaxed);
      return static_cast<CUfunction>(e.function);
    }
  }
  return nullptr;
}

namespace {

CUfunction compiled(compiled_entry& entry, const kernel_desc& desc, const variant_key& variant) {
  std::call_once(entry.once, [&] {  // find_stored_kernel may have loaded it from the disk cache already
    if (!entry.function.load(std::memory_order_acquire))
      entry.function.store(compile_and_load(desc, variant), std::memory_order_release);
  });
  return entry.function.load(std::memory_order_acquire);
}

void fill_slot(kernel_slot& slot, const variant_key& variant, CUfunction function) {
  const int device = properties().ordinal;
  std::lock_guard lock(slot.fill_mutex);
  const int now = slot.filled.load(std::memory_order_relaxed);
  bool present = false;
  for (int i = 0; i < now; ++i) present |= slot.entries[i].device == device && slot.entries[i].key == variant;
  if (!present && now < kernel_slot::capacity) {
    slot.entries[now] = {variant, device, function};
    slot.filled.store(now + 1, std::memory_order_release);
  }
}

// Threads compiling fused kernels queued by async evaluations. Destroyed at exit before the state
// they use (prepare_compiles, cache(), the counters): it drops what is queued and joins its
// threads, each after the compile in hand (it loads no module once stopping).
class background_compiler {
 public:
  background_compiler() {
    prepare_compiles();
    stats_counters();
    cache();
  }
  ~background_compiler() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      queue_.clear();
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  void submit(compiled_entry& entry) {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    queue_.push_back(&entry);
    // As many threads as compiles waiting, up to half the cores (the other half launch and
    // interpret), at most 8.
    const std::size_t most = std::clamp<std::size_t>(std::thread::hardware_concurrency() / 2, 1, 8);
    if (idle_ == 0 && threads_.size() < most)
      threads_.emplace_back([this] { work(); });
    else
      wake_.notify_one();
  }
  void drop_queued() {
    std::lock_guard lock(mutex_);
    queue_.clear();
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_;
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      --idle_;
      if (stopping_) return;
      compiled_entry& entry = *queue_.front();
      queue_.pop_front();
      lock.unlock();
      compile(entry);
      lock.lock();
    }
  }
  void compile(compiled_entry& entry) {
    try {
      compiled(entry, entry.owned_desc(), entry.identity.variant);
    } catch (const std::exception& e) {
      // The interpreter keeps evaluating this expression; a synchronous evaluation of it compiles
      // again and throws the error to its caller.
      entry.failed.store(true, std::memory_order_release);
      if (process_exiting()) return;
      stats_counters().background_failures.fetch_add(1, std::memory_order_relaxed);
      std::fprintf(stderr,
                   "jet: warning: the background compile of `%s` failed; the interpreter keeps evaluating it: %s\n",
                   describe(entry.owned_desc()).c_str(), e.what());
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<compiled_entry*> queue_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};
background_compiler& background() {
  static background_compiler b;
  return b;
}

}  // namespace

CUfunction find_kernel(const kernel_desc& desc, kernel_slot& slot, const variant_key& variant) {
  if (CUfunction f = find_in_slot(slot, variant)) return f;
  compiled_entry& entry = cache().entry_for(desc, variant, properties().ordinal);
  const CUfunction function = compiled(entry, desc, variant);
  fill_slot(slot, variant, function);
  return function;
}

CUfunction find_ready_kernel(const kernel_desc& desc, kernel_slot& slot, const variant_key& variant) {
  compiled_entry& entry = cache().entry_for(desc, variant, properties().ordinal);
  if (const CUfunction function = entry.function.load(std::memory_order_acquire)) {
    fill_slot(slot, variant, function);
    return function;
  }
  if (!entry.queued.exchange(true)) {
    wait_for_compiles_at_exit();
    background().submit(entry);
  }
  return nullptr;
}

CUfunction find_stored_kernel(const kernel_desc& desc, kernel_slot& slot, const variant_key& variant) {
  compiled_entry& entry = cache().entry_for(desc, variant, properties().ordinal);
  CUfunction function = entry.function.load(std::memory_order_acquire);
  if (!function && !entry.disk_probed.exchange(true))
    if (const std::optional<cached_cubin> stored =
            cached_on_disk(generate_source(desc, variant), properties().arch, describe(desc))) {
      function = load_function(stored->image, kernel_name);
      entry.function.store(function, std::memory_order_release);  // a compile racing with this one loads its own copy
    }
  if (function) fill_slot(slot, variant, function);
  return function;
}

void drop_background_compiles() { background().drop_queued(); }

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
