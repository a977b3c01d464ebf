#include "fft/cufft.hpp"

#include <jet/error.hpp>
#include <jet/fft.hpp>

#include <dlfcn.h>
#include <stdlib.h>

#include <string>
#include <vector>

namespace jet::detail {
namespace {

struct loaded_cufft {
  cufft_api api;
  std::string failure;  // empty when usable
};

// JET_CUFFT_LIBRARY names the one library to load (tests name a missing one); else cuFFT 12
// (CUDA 13), then cuFFT 11 (CUDA 12). A path variable, so read as the driver's is: not in setuid
// programs.
std::vector<std::string> candidates() {
  const char* chosen = ::secure_getenv("JET_CUFFT_LIBRARY");
  if (chosen && *chosen) return {chosen};
  return {"libcufft.so.12", "libcufft.so.11"};
}

// Fills d.api from lib; false, with d.failure naming the missing symbol, when one is missing.
bool resolve(void* lib, const std::string& name, loaded_cufft& d) {
#define JET_CUFFT_LOAD(function, type)                                 \
  d.api.function = reinterpret_cast<type>(dlsym(lib, #function));      \
  if (!d.api.function) {                                               \
    d.failure = "jet: no usable cuFFT: " + name + " lacks " #function; \
    return false;                                                      \
  }
  JET_CUFFT_FUNCTIONS(JET_CUFFT_LOAD)
#undef JET_CUFFT_LOAD
  return true;
}

loaded_cufft load() {
  loaded_cufft d;
  std::string tried;
  for (const std::string& name : candidates()) {
    // The library stays loaded for the life of the process: plans may outlive any scope.
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string("cannot load ") + name + " (" + (why ? why : "unknown") + ")";
      continue;
    }
    if (!resolve(lib, name, d)) return d;
    if (cufft_result r = d.api.cufftGetVersion(&d.api.version); r != cufft_success)
      d.failure = "jet: no usable cuFFT: cufftGetVersion of " + name + " failed: " + cufft_result_name(r);
    // cuFFT 11.3 and 11.4 (CUDA 12.6 to 12.9) export the entry point under a versioned name that
    // their header's inline cufftXtSetJITCallback forwards to; cuFFT 12 exports it as it is.
    const char* setter = d.api.version >= 12000   ? "cufftXtSetJITCallback"
                         : d.api.version >= 11300 ? "__cufftXtSetJITCallback_12_7"
                                                  : nullptr;
    if (setter) d.api.set_jit_callback = reinterpret_cast<cufft_api::set_jit_callback_type>(dlsym(lib, setter));
    return d;
  }
  d.failure = "jet: cuFFT is not available, so jet cannot compute FFTs: " + tried +
              " (cuFFT 12 ships with CUDA 13, cuFFT 11 with CUDA 12; JET_CUFFT_LIBRARY names another)";
  return d;
}

}  // namespace

const cufft_api& cufft() {
  static const loaded_cufft d = load();
  if (!d.failure.empty()) throw fft_unavailable(d.failure);
  return d.api;
}

std::string cufft_result_name(cufft_result r) {
  // cuFFT 11 and 12 agree on 0x0 to 0x10 except 0xA, 0xC and 0xF, which cuFFT 12 dropped;
  // 0x11 to 0x14 are new in cuFFT 12.
  static const char* const names[] = {"CUFFT_SUCCESS",
                                      "CUFFT_INVALID_PLAN",
                                      "CUFFT_ALLOC_FAILED",
                                      "CUFFT_INVALID_TYPE",
                                      "CUFFT_INVALID_VALUE",
                                      "CUFFT_INTERNAL_ERROR",
                                      "CUFFT_EXEC_FAILED",
                                      "CUFFT_SETUP_FAILED",
                                      "CUFFT_INVALID_SIZE",
                                      "CUFFT_UNALIGNED_DATA",
                                      "CUFFT_INCOMPLETE_PARAMETER_LIST",
                                      "CUFFT_INVALID_DEVICE",
                                      "CUFFT_PARSE_ERROR",
                                      "CUFFT_NO_WORKSPACE",
                                      "CUFFT_NOT_IMPLEMENTED",
                                      "CUFFT_LICENSE_ERROR",
                                      "CUFFT_NOT_SUPPORTED",
                                      "CUFFT_MISSING_DEPENDENCY",
                                      "CUFFT_NVRTC_FAILURE",
                                      "CUFFT_NVJITLINK_FAILURE",
                                      "CUFFT_NVSHMEM_FAILURE"};
  const std::string code = std::to_string(r);
  if (r < 0 || r >= static_cast<int>(sizeof names / sizeof names[0])) return "cufftResult " + code;
  return std::string(names[r]) + " (" + code + ")";
}

void check_cufft(cufft_result r, const char* call, const char* context) {
  if (r == cufft_success) return;
  const std::string message =
      std::string("jet: ") + call + " failed: " + cufft_result_name(r) + (*context ? std::string(" ") + context : "");
  if (r == cufft_alloc_failed) throw out_of_memory(message, 0);
  throw cuda_error(call, r, message);
}

}  // namespace jet::detail

namespace jet {

bool fft_available(std::string* reason) {
  try {
    detail::cufft();
    return true;
  } catch (const fft_unavailable& e) {
    if (reason) *reason = e.what();
    return false;
  }
}

}  // namespace jet
