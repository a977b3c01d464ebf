#include "fft/plan_cache.hpp"

#include "compile/compiler.hpp"
#include "driver/driver.hpp"
#include "driver/stream.hpp"
#include "fft/load_callback.hpp"
#include "settings.hpp"

#include <jet/error.hpp>
#include <jet/fft.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace jet::detail {
namespace {

constexpr std::size_t cached_plans = 32;
std::atomic<std::size_t> plans_created{0};

bool same(const fft_plan_key& a, const fft_plan_key& b) {
  const fft_batches &x = a.layout, &y = b.layout;
  bool equal = a.type == b.type && a.stream == b.stream && x.rank == y.rank && x.istride == y.istride &&
               x.idist == y.idist && x.ostride == y.ostride && x.odist == y.odist && x.batch == y.batch;
  for (int k = 0; k < x.rank; ++k)
    equal = equal && x.n[k] == y.n[k] && x.inembed[k] == y.inembed[k] && x.onembed[k] == y.onembed[k];
  const fft_load_fusion &f = a.load, &g = b.load;
  equal = equal && f.desc == g.desc && (!f.desc || (f.padded == g.padded && f.variant == g.variant));
  return equal;  // loops and steps are not the plan's: they follow from the rest
}

// The element type a plan of type t reads.
dtype input_element(cufft_type t) {
  switch (t) {
    case cufft_r2c: return dtype::float32;
    case cufft_d2z: return dtype::float64;
    case cufft_c2c:
    case cufft_c2r: return dtype::complex64;
    default: return dtype::complex128;
  }
}

cufft_callback_type load_callback_type(cufft_type t) {
  switch (t) {
    case cufft_r2c: return cufft_load_real;
    case cufft_d2z: return cufft_load_real_double;
    case cufft_c2c:
    case cufft_c2r: return cufft_load_complex;
    default: return cufft_load_complex_double;
  }
}

const char* type_name(cufft_type t) {
  switch (t) {
    case cufft_r2c: return "R2C";
    case cufft_c2r: return "C2R";
    case cufft_c2c: return "C2C";
    case cufft_d2z: return "D2Z";
    case cufft_z2d: return "Z2D";
    case cufft_z2z: return "Z2Z";
  }
  return "?";
}

std::string list(const long long* v, int count) {
  std::string s = "(";
  for (int k = 0; k < count; ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + ")";
}

// Most recently used last. Never destroyed: plans outlive no process, and destroying them at exit
// would call into a cuFFT and a driver that may be gone.
struct plan_cache {
  std::mutex lock;
  std::vector<std::pair<fft_plan_key, std::shared_ptr<fft_plan>>> entries;
};
plan_cache& cache() {
  static plan_cache* const c = new plan_cache;
  return *c;
}

}  // namespace

fft_plan::fft_plan(const fft_plan_key& key) {
  const std::string what = "for a " + describe(key);
  // A refused callback leaves no cuFFT plan here, only the refusal, so that it is not tried again:
  // the operand is then stored first and transformed by its layout's plain plan.
  if (make(key, key.load.desc != nullptr, what)) ++plans_created;
}

// cufftCreate, the callback, then the plan: cuFFT links a callback in when it plans. False when
// cuFFT refuses the callback (the handle destroyed); the error when it refuses a plain plan.
bool fft_plan::make(const fft_plan_key& key, bool with_callback, const std::string& what) {
  const cufft_api& api = cufft();
  check_cufft(api.cufftCreate(&handle_), "cufftCreate", what.c_str());
  cufft_result r = with_callback ? set_load_callback(key) : cufft_success;
  if (r == cufft_success) {
    // A copy: cufftMakePlanMany64 takes non-const arrays.
    fft_batches b = key.layout;
    std::size_t work_bytes = 0;
    // cuFFT allocates its work area here: allowed during a capture, as loading a module is.
    const capture_exemption outside_the_stream;
    r = api.cufftMakePlanMany64(handle_, b.rank, b.n, b.inembed, b.istride, b.idist, b.onembed, b.ostride, b.odist,
                                key.type, b.batch, &work_bytes);
  }
  if (r == cufft_success) return true;
  api.cufftDestroy(handle_);  // never executed: cuFFT may crash running a plan it failed to make
  handle_ = -1;
  if (!with_callback) check_cufft(r, "cufftMakePlanMany64", what.c_str());
  log_info("cuFFT refused the load callback " + what + " (" + cufft_result_name(r) + "); the operand is stored first");
  if (parameters_) driver().cuMemFree(reinterpret_cast<CUdeviceptr>(parameters_));
  parameters_ = nullptr;
  return false;
}

// Compiles the operand's load callback and hands it to cuFFT with its parameter block (plain
// device memory, not the pool's: it lives as long as the plan, whichever stream is current when
// the plan goes). parameters_ is set when cuFFT takes it.
cufft_result fft_plan::set_load_callback(const fft_plan_key& key) {
  const fft_load_fusion& f = key.load;
  const std::string source = load_callback_source(*f.desc, f.variant, input_element(key.type), f.padded);
  lto_ir_ = compile_to_lto_ir(source, properties().arch, expression_text(*f.desc) + " (an FFT's load callback)",
                              {f.desc->node_count, f.desc->function_count})
                .image;
  parameter_bytes_ = load_callback_word_count(*f.desc, f.variant) * sizeof(std::uint64_t);
  CUdeviceptr block = 0;
  check(driver().cuMemAlloc(&block, parameter_bytes_), "cuMemAlloc");
  caller_info_[0] = reinterpret_cast<void*>(block);
  const cufft_result r = cufft().set_jit_callback(handle_, fft_load_callback_name, lto_ir_.data(), lto_ir_.size(),
                                                  load_callback_type(key.type), caller_info_);
  if (r == cufft_success)
    parameters_ = caller_info_[0];
  else
    driver().cuMemFree(block);
  return r;
}

fft_plan::~fft_plan() {
  if (handle_ != -1) cufft().cufftDestroy(handle_);
  if (parameters_) driver().cuMemFree(reinterpret_cast<CUdeviceptr>(parameters_));
}

std::shared_ptr<fft_plan> cached_fft_plan(const fft_plan_key& key) {
  plan_cache& c = cache();
  const std::lock_guard<std::mutex> hold(c.lock);
  auto& e = c.entries;
  const auto hit = std::find_if(e.begin(), e.end(), [&](const auto& entry) { return same(entry.first, key); });
  if (hit != e.end()) {
    std::rotate(hit, hit + 1, e.end());
    return e.back().second;
  }
  auto plan = std::make_shared<fft_plan>(key);
  if (e.size() == cached_plans) e.erase(e.begin());
  e.emplace_back(key, plan);
  return plan;
}

std::string describe(const fft_plan_key& key) {
  const fft_batches& b = key.layout;
  return std::string(type_name(key.type)) +
         (key.load.desc ? " (its operand `" + expression_text(*key.load.desc) + "` computed in its loads)" : "") +
         " transform of n = " + list(b.n, b.rank) + ", batch " + std::to_string(b.batch) + " (inembed " +
         list(b.inembed, b.rank) + ", istride " + std::to_string(b.istride) + ", idist " + std::to_string(b.idist) +
         "; onembed " + list(b.onembed, b.rank) + ", ostride " + std::to_string(b.ostride) + ", odist " +
         std::to_string(b.odist) + ")";
}

std::size_t fft_plans_created() { return plans_created.load(); }

}  // namespace jet::detail
