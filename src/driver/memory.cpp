// Device memory and copies, in order on the calling thread's current stream. Memory comes from
// the device's default pool (stream-ordered, cached: freed memory is reused without a system
// call and allocating is legal during graph capture), else from cuMemAlloc. Small blocks (a
// reduction's result, a scalar) are kept by jet itself, per stream, on top of the pool.
#include "driver/memory.hpp"

#include "driver/driver.hpp"
#include "driver/stream.hpp"

#include <jet/error.hpp>
#include <jet/detail/core.hpp>

#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace jet::detail {
namespace {

CUresult allocate(CUdeviceptr& p, std::size_t bytes, CUstream s) {
  const CUmemoryPool pool = properties().pool;
  return pool ? driver().cuMemAllocAsync(&p, bytes, s) : driver().cuMemAlloc(&p, bytes);
}

// Small blocks freed on a stream wait in a short list for the next small allocation on the same
// stream, which stream order makes safe (as it does for the pool's own reuse); a reduction's
// result then costs no driver call for its memory (the pool's allocation and free take ~1.3 us of
// the ~10 us of a small reduction). Only blocks allocated outside a capture (a graph's own memory
// must stay the graph's), freed outside one, on streams whose end jet sees: the legacy stream and
// jet's own (another library's stream may be destroyed and its handle reused, unordered).
class small_blocks {
 public:
  static constexpr std::size_t block_bytes = 256;

  static small_blocks& instance() {
    static small_blocks* blocks = new small_blocks;  // never destroyed: arrays freed at exit use it
    return *blocks;
  }
  // A block for an allocation on s, or 0 where the pool must allocate.
  CUdeviceptr take(CUstream s) {
    std::lock_guard lock(mutex_);
    const auto found = waiting_.find(s);
    if (found == waiting_.end() || captures_into_graph(s)) return 0;
    if (found->second.empty()) {  // a new block, to come back here when freed
      CUdeviceptr p = 0;
      if (allocate(p, block_bytes, s) != CUDA_SUCCESS) return 0;  // the usual path reports the error
      ours_.insert(p);
      return p;
    }
    const CUdeviceptr p = found->second.back();
    found->second.pop_back();
    return p;
  }
  // Whether jet keeps the block freed on s.
  bool keep(CUstream s, CUdeviceptr p) {
    std::lock_guard lock(mutex_);
    if (!ours_.count(p)) return false;
    const auto found = waiting_.find(s);
    if (found == waiting_.end() || found->second.size() >= most_per_stream || captures_into_graph(s)) {
      ours_.erase(p);
      return false;
    }
    found->second.push_back(p);
    return true;
  }
  void add_stream(CUstream s) {
    std::lock_guard lock(mutex_);
    waiting_[s];
  }
  // Gives the waiting blocks back to the pool, in order on their streams.
  void release_all() {
    std::lock_guard lock(mutex_);
    for (auto& [s, blocks] : waiting_) release(s, blocks);
  }
  void forget_stream(CUstream s) {
    std::lock_guard lock(mutex_);
    if (const auto found = waiting_.find(s); found != waiting_.end()) {
      release(s, found->second);
      waiting_.erase(found);
    }
  }

 private:
  static constexpr std::size_t most_per_stream = 64;
  small_blocks() { waiting_[nullptr]; }
  void release(CUstream s, std::vector<CUdeviceptr>& blocks) {
    for (const CUdeviceptr p : blocks) {
      driver().cuMemFreeAsync(p, s);
      ours_.erase(p);
    }
    blocks.clear();
  }
  std::mutex mutex_;
  std::unordered_map<CUstream, std::vector<CUdeviceptr>> waiting_;
  std::unordered_set<CUdeviceptr> ours_;
};

bool small(std::size_t bytes) { return bytes <= small_blocks::block_bytes && properties().pool; }

}  // namespace

void cache_small_blocks_on(CUstream s) { small_blocks::instance().add_stream(s); }
void stop_caching_small_blocks_on(CUstream s) { small_blocks::instance().forget_stream(s); }

void* device_alloc(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const CUstream s = current_stream_handle();
  if (small(bytes))
    if (const CUdeviceptr p = small_blocks::instance().take(s)) return reinterpret_cast<void*>(p);
  const bool pool = properties().pool != nullptr;
  if (!pool && is_capturing(s))
    throw invalid_argument("jet: cannot allocate " + std::to_string(bytes) +
                           " bytes during stream capture: the CUDA driver has no stream-ordered memory pool");
  CUdeviceptr p = 0;
  CUresult r = allocate(p, bytes, s);
  if (r == CUDA_ERROR_OUT_OF_MEMORY && pool && !is_capturing(s)) {
    // Memory freed on other streams may still be pending, and the pool keeps freed memory that
    // other allocators in the process may hold on to: wait for the frees, give it back, retry.
    release_cached_memory();
    r = allocate(p, bytes, s);
  }
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    throw out_of_memory("jet: out of device memory allocating " + std::to_string(bytes) + " bytes", bytes);
  check(r, pool ? "cuMemAllocAsync" : "cuMemAlloc");
  return reinterpret_cast<void*>(p);
}

void device_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  try {  // a failure here has nowhere to go
    const auto address = reinterpret_cast<CUdeviceptr>(p);
    const CUstream s = current_stream_handle();
    if (small(bytes) && small_blocks::instance().keep(s, address)) return;
    if (properties().pool)
      driver().cuMemFreeAsync(address, s);
    else
      driver().cuMemFree(address);
  } catch (const error&) {}
}

namespace {

// Host memory is copied in order on the current stream, and the call returns when the copy is
// done: the caller may reuse the host memory at once, even page-locked memory (from which the
// copy itself would return early).
CUstream host_copy_stream(std::size_t bytes, const char* direction) {
  const CUstream s = current_stream_handle();
  if (is_capturing(s))
    throw invalid_argument("jet: cannot copy " + std::to_string(bytes) + " bytes " + direction +
                           " during stream capture: a graph would copy from host memory that is gone by then");
  return s;
}

}  // namespace

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (!bytes) return;
  const CUstream s = host_copy_stream(bytes, "from the host");
  check(driver().cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), src, bytes, s), "cuMemcpyHtoDAsync");
  check(driver().cuStreamSynchronize(s), "cuStreamSynchronize");
}

void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (!bytes) return;
  const CUstream s = host_copy_stream(bytes, "to the host");
  check(driver().cuMemcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src), bytes, s), "cuMemcpyDtoHAsync");
  check(driver().cuStreamSynchronize(s), "cuStreamSynchronize");
}

void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes)
    check(driver().cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes,
                                     current_stream_handle()),
          "cuMemcpyDtoDAsync");
}

}  // namespace jet::detail

namespace jet {

void release_cached_memory() {
  if (detail::properties().pool) detail::small_blocks::instance().release_all();
  synchronize();
  if (const CUmemoryPool pool = detail::properties().pool)
    detail::check(detail::driver().cuMemPoolTrimTo(pool, 0), "cuMemPoolTrimTo");
}

}  // namespace jet
