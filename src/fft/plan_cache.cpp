#include "fft/plan_cache.hpp"

#include "driver/stream.hpp"

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
  return equal;  // loops and steps are not the plan's: they follow from the rest
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
  const cufft_api& api = cufft();
  const std::string what = "for a " + describe(key);
  check_cufft(api.cufftCreate(&handle_), "cufftCreate", what.c_str());
  // A copy: cufftMakePlanMany64 takes non-const arrays.
  fft_batches b = key.layout;
  std::size_t work_bytes = 0;
  // cuFFT allocates its work area here: allowed during a capture, as loading a module is.
  const capture_exemption outside_the_stream;
  const cufft_result r = api.cufftMakePlanMany64(handle_, b.rank, b.n, b.inembed, b.istride, b.idist, b.onembed,
                                                 b.ostride, b.odist, key.type, b.batch, &work_bytes);
  if (r != cufft_success) {  // never executed: cuFFT may crash running a plan it failed to make
    api.cufftDestroy(handle_);
    check_cufft(r, "cufftMakePlanMany64", what.c_str());
  }
  ++plans_created;
}

fft_plan::~fft_plan() { cufft().cufftDestroy(handle_); }

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
  return std::string(type_name(key.type)) + " transform of n = " + list(b.n, b.rank) + ", batch " +
         std::to_string(b.batch) + " (inembed " + list(b.inembed, b.rank) + ", istride " + std::to_string(b.istride) +
         ", idist " + std::to_string(b.idist) + "; onembed " + list(b.onembed, b.rank) + ", ostride " +
         std::to_string(b.ostride) + ", odist " + std::to_string(b.odist) + ")";
}

std::size_t fft_plans_created() { return plans_created.load(); }

}  // namespace jet::detail
