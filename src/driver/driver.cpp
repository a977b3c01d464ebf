#include "driver/driver.hpp"
#include "settings.hpp"

#include <jet/error.hpp>
#include <jet/runtime.hpp>

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace jet::detail {
namespace {

// The library to load: JET_CUDA_DRIVER overrides it (tests load a null driver this way).
const char* driver_library() { return cuda_driver_setting().c_str(); }

struct loaded_driver {
  driver_api api;
  device_properties props{};
  CUcontext context = nullptr;
  std::string failure;  // empty when usable
};

std::string error_text(const driver_api& api, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName) api.cuGetErrorName(r, &name);
  if (api.cuGetErrorString) api.cuGetErrorString(r, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(r)) + " (" + (text ? text : "no description") + ")";
}

// The device's default memory pool, set to keep freed memory for reuse rather than return it to
// the system at each synchronization; null when the driver or device has no pools, or when
// JET_MEMORY_POOL=off asks for plain cuMemAlloc.
CUmemoryPool default_pool(const driver_api& api, CUdevice device) {
  if (!memory_pool_setting()) return nullptr;
  int supported = 0;
  if (!api.cuMemAllocAsync || !api.cuMemFreeAsync || !api.cuDeviceGetDefaultMemPool || !api.cuMemPoolSetAttribute ||
      !api.cuMemPoolTrimTo ||
      api.cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device) != CUDA_SUCCESS ||
      !supported)
    return nullptr;
  CUmemoryPool pool = nullptr;
  cuuint64_t keep_everything = ~cuuint64_t{0};
  if (api.cuDeviceGetDefaultMemPool(&pool, device) != CUDA_SUCCESS ||
      api.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_everything) != CUDA_SUCCESS)
    return nullptr;
  return pool;
}

loaded_driver load() {
  loaded_driver d;
  void* lib = dlopen(driver_library(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    d.failure = std::string("no CUDA driver: cannot load ") + driver_library() + " (" + (why ? why : "unknown") + ")";
    return d;
  }
#define JET_DRIVER_LOAD(name, symbol)                                                           \
  d.api.name = reinterpret_cast<decltype(d.api.name)>(dlsym(lib, symbol));                      \
  if (!d.api.name) {                                                                            \
    d.failure = std::string("no usable CUDA driver: ") + driver_library() + " lacks " + symbol; \
    return d;                                                                                   \
  }
  JET_DRIVER_FUNCTIONS(JET_DRIVER_LOAD)
#undef JET_DRIVER_LOAD
#define JET_DRIVER_LOAD_OPTIONAL(name, symbol) d.api.name = reinterpret_cast<decltype(d.api.name)>(dlsym(lib, symbol));
  JET_DRIVER_POOL_FUNCTIONS(JET_DRIVER_LOAD_OPTIONAL)
#undef JET_DRIVER_LOAD_OPTIONAL
  if (CUresult r = d.api.cuInit(0); r != CUDA_SUCCESS) {
    d.failure = "no CUDA device: cuInit failed: " + error_text(d.api, r);
    return d;
  }
  int count = 0;
  if (CUresult r = d.api.cuDeviceGetCount(&count); r != CUDA_SUCCESS || count == 0) {
    d.failure = "no CUDA device: the driver reports " + std::to_string(count) + " devices";
    return d;
  }
  auto& p = d.props;
  p.ordinal = device_ordinal;
  int major = 0, minor = 0;
  char name[256] = {};
  const CUresult steps[] = {
      d.api.cuDeviceGet(&p.device, p.ordinal),
      d.api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, p.device),
      d.api.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, p.device),
      d.api.cuDeviceGetAttribute(&p.multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, p.device),
      d.api.cuDeviceGetName(name, sizeof name, p.device),
      d.api.cuDevicePrimaryCtxRetain(&d.context, p.device),
  };
  for (CUresult r : steps) {
    if (r != CUDA_SUCCESS) {
      d.failure = "no usable CUDA device: " + error_text(d.api, r);
      return d;
    }
  }
  p.arch = major * 10 + minor;
  p.name = name;
  p.pool = default_pool(d.api, p.device);
  return d;
}

const loaded_driver& loaded() {
  static const loaded_driver d = load();
  return d;
}

}  // namespace

const driver_api& driver() {
  const loaded_driver& d = loaded();
  if (!d.failure.empty()) throw no_device("jet: " + d.failure);
  // A context is current per thread: make the primary context current once on each thread.
  thread_local bool current = false;
  if (!current) {
    check(d.api.cuCtxSetCurrent(d.context), "cuCtxSetCurrent");
    current = true;
  }
  return d.api;
}

const device_properties& properties() {
  driver();
  return loaded().props;
}

void check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const std::string message = std::string("jet: ") + call + " failed: " + error_text(loaded().api, r);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) throw out_of_memory(message, 0);
  throw cuda_error(call, static_cast<int>(r), message);
}

unsigned grid_extent(unsigned long long blocks) {
  if (blocks == 0 || blocks > 0x7fffffffull)
    throw invalid_argument("jet: a launch of " + std::to_string(blocks) +
                           " blocks; a grid has 1 to 2^31 - 1 (the index space is empty or too large)");
  return static_cast<unsigned>(blocks);
}

}  // namespace jet::detail

namespace jet {

device_info current_device() {
  const auto& p = detail::properties();
  return {p.ordinal, p.name, arch{p.arch}, p.multiprocessors};
}

bool device_available(std::string* reason) {
  try {
    detail::driver();
    return true;
  } catch (const no_device& e) {
    if (reason) *reason = e.what();
    return false;
  }
}

void synchronize() { detail::check(detail::driver().cuCtxSynchronize(), "cuCtxSynchronize"); }

}  // namespace jet
