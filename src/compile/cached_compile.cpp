// The process's disk cache (chosen by the environment or by jet::set_disk_cache*), and
// cached_compile: a cubin loaded from it, or compiled once however many threads ask at once.
#include "compile/cached_compile.hpp"

#include "codegen/spelling.hpp"
#include "compile/compiler.hpp"
#include "stats.hpp"
#include "settings.hpp"

#include <jet/detail/core.hpp>

#include <chrono>
#include <cstdio>
#include <future>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace jet::detail {
namespace {

namespace fs = std::filesystem;

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", ms);
  return text;
}

std::shared_ptr<const disk_cache> open_cache(const fs::path& directory) {
  if (directory.empty()) return nullptr;
  return disk_cache::open(directory, cache_max_bytes_setting());
}

struct process_disk_cache {
  std::mutex mutex;
  bool chosen = false;  // by the environment on first use, or by a set_disk_cache* call
  std::shared_ptr<const disk_cache> cache;

  void choose(std::shared_ptr<const disk_cache> c) {
    std::lock_guard lock(mutex);
    cache = std::move(c);
    chosen = true;
  }
};
process_disk_cache& process_cache() {
  static process_disk_cache c;
  return c;
}

// Loads and compiles in progress in this process, by key text: a thread asking for a cubin that
// another thread is getting waits for it rather than compiling it again.
struct cubins_in_flight {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_future<cached_cubin>> by_key;

  // The future for key's cubin, and whether the caller is the one to fulfill `promise` for it.
  std::pair<std::shared_future<cached_cubin>, bool> join(const std::string& key, std::promise<cached_cubin>& promise) {
    std::lock_guard lock(mutex);
    const auto [it, first] = by_key.try_emplace(key, promise.get_future().share());
    return {it->second, first};
  }
  void leave(const std::string& key) {
    std::lock_guard lock(mutex);
    by_key.erase(key);
  }
};
cubins_in_flight& in_flight() {
  static cubins_in_flight f;
  return f;
}

std::optional<cached_cubin> load_from_disk(const std::shared_ptr<const disk_cache>& disk, const cache_key& key,
                                           int arch, const std::string& expression) {
  const auto start = std::chrono::steady_clock::now();
  if (!disk) return std::nullopt;
  std::optional<std::string> image = disk->load(key);
  if (!image) return std::nullopt;
  stats_counters().disk_hits.fetch_add(1, std::memory_order_relaxed);
  log_info("disk cache hit for `" + expression + "` (sm_" + std::to_string(arch) + ") in " +
           format_ms(ms_since(start)));
  return cached_cubin{std::move(*image), 0, true};
}

cached_cubin load_or_compile(const cache_key& key, const std::string& source, int arch, const std::string& expression,
                             kernel_origin origin) {
  counters& c = stats_counters();
  const std::string target = "sm_" + std::to_string(arch);
  const std::shared_ptr<const disk_cache> disk = active_disk_cache();
  if (std::optional<cached_cubin> hit = load_from_disk(disk, key, arch, expression)) return std::move(*hit);
  cubin binary = compile_to_cubin(source, arch, expression, origin);
  c.compiles.fetch_add(1, std::memory_order_relaxed);
  c.compile_ms.fetch_add(binary.compile_ms, std::memory_order_relaxed);
  const bool stored = disk && disk->store(key, binary.image);
  if (stored) c.disk_writes.fetch_add(1, std::memory_order_relaxed);
  log_info("compiled `" + expression + "` for " + target + " in " + format_ms(binary.compile_ms) +
           (stored ? ", stored in " + disk->directory().string() : ""));
  return {std::move(binary.image), binary.compile_ms, false};
}

}  // namespace

cache_key cache_key_for(const std::string& source, int arch, bool fast_compile) {
  std::string text = "jet code generator " + std::to_string(codegen_version) + "\nnvrtc " + nvrtc_version() +
                     "\narch sm_" + std::to_string(arch) + "\noptions";
  for (const std::string& option : compile_options(arch, fast_compile)) text += " " + option;
  text += "\nsource\n" + source;
  return cache_key_of(std::move(text));
}

void prepare_compiles() {
  active_disk_cache();
  in_flight();
}

std::shared_ptr<const disk_cache> active_disk_cache() {
  process_disk_cache& p = process_cache();
  std::lock_guard lock(p.mutex);
  if (!p.chosen) {
    p.cache = open_cache(cache_directory_setting());
    p.chosen = true;
  }
  return p.cache;
}

cached_cubin cached_compile(const std::string& source, int arch, const std::string& expression, kernel_origin origin) {
  const cache_key key = cache_key_for(source, arch, origin.fast_compile);
  std::promise<cached_cubin> promise;
  const auto [result, getting_it_here] = in_flight().join(key.text, promise);
  if (getting_it_here) {
    try {
      promise.set_value(load_or_compile(key, source, arch, expression, origin));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
    in_flight().leave(key.text);
  }
  return result.get();  // a compile_error reaches every thread that waited for it
}

std::optional<cached_cubin> cached_on_disk(const std::string& source, int arch, const std::string& expression,
                                           bool fast_compile) {
  return load_from_disk(active_disk_cache(), cache_key_for(source, arch, fast_compile), arch, expression);
}

}  // namespace jet::detail

namespace jet {

void set_disk_cache(bool enabled) {
  detail::process_cache().choose(enabled ? detail::open_cache(detail::cache_directory_setting()) : nullptr);
}

void set_disk_cache_directory(const std::string& directory) {
  detail::process_cache().choose(detail::open_cache(directory));
}

std::string disk_cache_directory() {
  const auto cache = detail::active_disk_cache();
  return cache && cache->trusted() ? cache->directory().string() : std::string();
}

}  // namespace jet
