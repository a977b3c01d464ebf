#include "interpreter/launcher.hpp"

#include "compile/cached_compile.hpp"
#include "driver/driver.hpp"
#include "driver/stream.hpp"
#include "interpreter/source.hpp"
#include "kernel_cache.hpp"
#include "settings.hpp"
#include "stats.hpp"

#include <jet/error.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <string>

namespace jet::detail {
namespace {

std::atomic<jit_policy>& policy_in_force() {
  static std::atomic<jit_policy> policy = jit_policy_setting();
  return policy;
}

// The interpreter kernel of each family on the device: loaded from the disk cache, or compiled
// (seconds, once per machine) on the caller's thread or on a background one.
struct interpreter_loader {
  std::mutex mutex;
  std::atomic<CUfunction> function{nullptr};
  std::future<cached_cubin> compiling;  // the background compile, when one was started

  CUfunction load(const cached_cubin& binary, const interpreter_family& family) {
    const CUfunction f = load_function(binary.image, interpreter_kernel_name);
    // Past 48 KiB a block's dynamic shared memory must be asked for.
    check(driver().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(register_bytes(family) * interpreter_registers)),
          "cuFuncSetAttribute");
    function.store(f, std::memory_order_release);
    return f;
  }
};

interpreter_loader& loader_of(const interpreter_family& f) {
  // The background compiles use the disk cache's process-wide state: make it first, so that it
  // outlives these (whose destructors wait for a compile still running at exit).
  static interpreter_loader* loaders = [] {
    prepare_compiles();
    static interpreter_loader l[std::size(interpreter_families)];
    return l;
  }();
  return loaders[&f - interpreter_families];
}

// A math family compiles for compile time: its long functions (float64 math, NVRTC's longest)
// run only until the expression's own kernel replaces the interpreter.
kernel_origin interpreter_origin(const interpreter_family& f) { return {0, 0, f.math}; }

std::string interpreter_description(const interpreter_family& f) {
  return "the " + std::string(f.name) + " interpreter";
}

CUfunction interpreter_function(const interpreter_family& f) {
  interpreter_loader& l = loader_of(f);
  if (const CUfunction function = l.function.load(std::memory_order_acquire)) return function;
  std::lock_guard lock(l.mutex);
  if (const CUfunction function = l.function.load(std::memory_order_acquire)) return function;
  return l.load(l.compiling.valid() ? l.compiling.get()
                                    : cached_compile(interpreter_source(f), properties().arch,
                                                     interpreter_description(f), interpreter_origin(f)),
                f);
}

}  // namespace

bool interpreter_ready(const interpreter_family& f) {
  interpreter_loader& l = loader_of(f);
  if (l.function.load(std::memory_order_acquire)) return true;
  std::lock_guard lock(l.mutex);
  if (l.function.load(std::memory_order_acquire)) return true;
  if (l.compiling.valid()) {
    if (l.compiling.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
    return l.load(l.compiling.get(), f);  // a failed compile throws its compile_error here
  }
  const std::string source = interpreter_source(f);
  if (const std::optional<cached_cubin> stored =
          cached_on_disk(source, properties().arch, interpreter_description(f), interpreter_origin(f).fast_compile))
    return l.load(*stored, f);
  const int arch = properties().arch;
  wait_for_compiles_at_exit();
  l.compiling = std::async(std::launch::async, [source, arch, description = interpreter_description(f), &f] {
    return cached_compile(source, arch, description, interpreter_origin(f));
  });
  return false;
}

jit_policy current_jit_policy() { return policy_in_force().load(std::memory_order_relaxed); }

void launch_interpreter(encoding& e, void* const* outputs, const void* const* inputs, std::uint64_t n) {
  const interpreter_family& f = *e.family;
  program& p = e.code;
  p.n = n;
  // Vector loads and stores of `group` elements need each pointer aligned to their width.
  bool aligned = true;
  auto check_alignment = [&](const void* pointer, dtype t) {
    const std::uintptr_t width = f.group * size_of(t);
    aligned = aligned && reinterpret_cast<std::uintptr_t>(pointer) % width == 0;
  };
  for (unsigned i = 0; i < p.count; ++i) {
    const instruction& in = p.code[i];
    if (in.op == static_cast<std::uint8_t>(op_id::input))
      for (std::uint8_t slot : {in.a, in.b}) {
        check_alignment(inputs[slot], dtype(in.type));
        p.input_size[slot] = static_cast<std::uint8_t>(size_of(dtype(in.type)));
      }
    if (in.op == store_op) check_alignment(outputs[in.dst], dtype(in.type));
  }
  std::copy(inputs, inputs + e.input_count, p.inputs);
  std::copy(outputs, outputs + e.output_count, p.outputs);
  p.aligned = aligned;
  // A block prefetches one wave of blocks ahead (about 4 on an SM), so that the prefetch has a
  // block's whole run to arrive; but at most 16 MiB of inputs, which L2 (50 MB on an H100 or H200)
  // keeps until they are read.
  const std::uint64_t tile = std::uint64_t{interpreter_threads} * interpreter_elements(f);
  std::uint64_t tile_bytes = 0;
  for (unsigned k = 0; k < e.input_count; ++k) tile_bytes += tile * p.input_size[k];
  const std::uint64_t wave = 4 * static_cast<std::uint64_t>(properties().multiprocessors);
  p.prefetch_distance =
      static_cast<std::uint32_t>(std::min(wave, (std::uint64_t{16} << 20) / std::max<std::uint64_t>(tile_bytes, 1)));
  const CUfunction function = interpreter_function(f);
  void* params[] = {&p};
  launch_kernel(function, (n + tile - 1) / tile, interpreter_threads, params, 1, register_bytes(f) * e.registers);
  counters& c = stats_counters();
  c.launches.fetch_add(1, std::memory_order_relaxed);
  c.interpreted.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace jet::detail

namespace jet {

void set_jit_policy(jit_policy policy) { detail::policy_in_force().store(policy, std::memory_order_relaxed); }
jit_policy get_jit_policy() { return detail::current_jit_policy(); }

}  // namespace jet
