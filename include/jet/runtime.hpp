// The non-template core that the expression templates call into (implemented in src/), and the
// public runtime queries: device, statistics, synchronization.
#pragma once

#include <jet/detail/kernel_desc.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace jet {

/// A GPU architecture as NVRTC names it: arch{90} is sm_90.
struct arch {
  int value;
};

/// What jet knows about the device it runs on.
struct device_info {
  int ordinal;
  std::string name;
  jet::arch arch;
  int multiprocessors;
};

/// The device jet evaluates on (device 0). Throws no_device when there is no driver or device.
device_info current_device();

/// Whether a CUDA driver and device are usable; on false, `reason` says why.
bool device_available(std::string* reason = nullptr);

/// Waits for all work jet has queued on the device.
void synchronize();

/// Counters over the life of the process.
struct statistics {
  std::uint64_t launches;      // kernels launched by evaluations
  std::uint64_t memory_hits;   // evaluations whose kernel came from the in-memory cache
  std::uint64_t compiles;      // kernels compiled by NVRTC
  double compile_ms;           // time spent in those compiles
};
statistics stats();

/// A kernel compiled without touching a device (jet::compile).
struct compiled_kernel {
  jet::arch arch;
  std::string source;
  std::string cubin;
  double compile_ms;
};

namespace detail {

/// Per evaluation, which launch variant a kernel needs: how many elements each vector access
/// covers, which array operands are the same memory (each distinct input is a kernel parameter
/// loaded once), and whether the output is one of the inputs (then nothing is __restrict__).
struct variant_key {
  std::uint8_t vec = 1;
  bool out_aliases_input = false;
  std::uint8_t unique_of[max_inputs]{};  // input slot -> distinct-input index

  friend bool operator==(const variant_key&, const variant_key&) = default;
};

/// The per-(expression type, output type) cache slot: a few (variant, device) → kernel entries
/// read without locking; the global cache behind it is consulted on a miss.
struct kernel_slot {
  static constexpr int capacity = 4;
  struct entry {
    variant_key key;
    int device;
    void* function;
  };
  std::atomic<int> filled{0};
  entry entries[capacity];
  std::mutex fill_mutex;
};

/// A scalar kernel argument: its value's bytes, of which cuLaunchKernel reads as many as the
/// parameter's type has.
struct scalar_value {
  alignas(8) unsigned char bytes[8];
};

/// One evaluation as the core sees it: all pointers, sizes and scalars of the expression's leaves
/// in slot order.
struct evaluation {
  const kernel_desc& desc;
  kernel_slot& slot;
  void* out;
  std::size_t out_size;
  const void* const* inputs;
  const std::size_t* input_sizes;
  const scalar_value* scalars;
};

void evaluate(const evaluation& e);
std::string source_of(const kernel_desc& desc);
std::string expression_text(const kernel_desc& desc);
compiled_kernel compile_for(const kernel_desc& desc, arch target);

void* device_alloc(std::size_t bytes);
void device_free(void* p) noexcept;
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void copy_on_device(void* dst, const void* src, std::size_t bytes);

}  // namespace detail
}  // namespace jet
