#include "driver/workspace.hpp"

#include "driver/driver.hpp"
#include "driver/stream.hpp"

#include <jet/error.hpp>

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace jet::detail {
namespace {

workspace make_workspace(std::size_t partial_bytes) {
  const driver_api& api = driver();
  static const CUstream zeroing = [&] {
    CUstream s = nullptr;
    check(api.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    return s;
  }();
  const capture_exemption outside_the_stream;
  CUdeviceptr p = 0;
  const CUresult r = api.cuMemAlloc(&p, partial_bytes + 8);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    throw out_of_memory("jet: out of device memory allocating a reduction's workspace of " +
                            std::to_string(partial_bytes + 8) + " bytes",
                        partial_bytes + 8);
  check(r, "cuMemAlloc");
  check(api.cuMemsetD32Async(p + partial_bytes, 0, 1, zeroing), "cuMemsetD32Async");
  check(api.cuStreamSynchronize(zeroing), "cuStreamSynchronize");
  return {reinterpret_cast<void*>(p), reinterpret_cast<void*>(p + partial_bytes)};
}
class workspaces {
 public:
  static workspaces& instance() {
    static workspaces* w = new workspaces;  // never destroyed: streams also end during exit
    return *w;
  }
  workspace for_stream(CUstream s, std::size_t partial_bytes) {
    std::lock_guard lock(mutex_);
    const bool capturing = captures_into_graph(s);
    auto found = by_stream_.find(s);
    if (found == by_stream_.end())
      found = by_stream_.emplace(s, capturing || spare_.empty() ? make_workspace(partial_bytes) : reuse(s)).first;
    found->second.in_graph |= capturing;
    return found->second;
  }
  void stream_ends(CUstream s) {
    std::lock_guard lock(mutex_);
    const auto found = by_stream_.find(s);
    if (found == by_stream_.end()) return;
    const driver_api& api = driver();
    CUevent ended = nullptr;
    if (!found->second.in_graph && api.cuEventCreate(&ended, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS) {
      if (api.cuEventRecord(ended, s) == CUDA_SUCCESS)
        spare_.push_back({found->second, ended});
      else
        api.cuEventDestroy(ended);
    }
    by_stream_.erase(found);
  }

 private:
  struct ended_stream_workspace {
    workspace w;
    CUevent ended;  // recorded on its stream as the stream ended
  };
  workspace reuse(CUstream s) {
    const ended_stream_workspace spare = spare_.back();
    spare_.pop_back();
    check(driver().cuStreamWaitEvent(s, spare.ended, 0), "cuStreamWaitEvent");
    driver().cuEventDestroy(spare.ended);
    return spare.w;
  }
  std::mutex mutex_;
  std::unordered_map<CUstream, workspace> by_stream_;
  std::vector<ended_stream_workspace> spare_;
};

}  // namespace

workspace reduction_workspace(CUstream s, std::size_t partial_bytes) {
  return workspaces::instance().for_stream(s, partial_bytes);
}

void reduction_stream_ends(CUstream s) { workspaces::instance().stream_ends(s); }

}  // namespace jet::detail
