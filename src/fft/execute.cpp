#include "driver/driver.hpp"
#include "driver/stream.hpp"
#include "fft/cufft.hpp"
#include "fft/geometry.hpp"
#include "fft/load_callback.hpp"
#include "fft/passes.hpp"
#include "fft/plan_cache.hpp"
#include "launch/planner.hpp"
#include "settings.hpp"

#include <jet/fft.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace jet::detail {
namespace {

cufft_type type_of(fft_kind kind, bool double_precision) {
  switch (kind) {
    case fft_kind::real_forward: return double_precision ? cufft_d2z : cufft_r2c;
    case fft_kind::real_inverse: return double_precision ? cufft_z2d : cufft_c2r;
    default: return double_precision ? cufft_z2z : cufft_c2c;
  }
}

const char* exec_name(cufft_type t) {
  switch (t) {
    case cufft_r2c: return "cufftExecR2C";
    case cufft_c2r: return "cufftExecC2R";
    case cufft_d2z: return "cufftExecD2Z";
    case cufft_z2d: return "cufftExecZ2D";
    case cufft_z2z: return "cufftExecZ2Z";
    default: return "cufftExecC2C";
  }
}

cufft_result exec(const cufft_api& api, cufft_type t, cufft_handle plan, void* in, void* out, int direction) {
  switch (t) {
    case cufft_r2c: return api.cufftExecR2C(plan, in, out);
    case cufft_c2r: return api.cufftExecC2R(plan, in, out);
    case cufft_d2z: return api.cufftExecD2Z(plan, in, out);
    case cufft_z2d: return api.cufftExecZ2D(plan, in, out);
    case cufft_z2z: return api.cufftExecZ2Z(plan, in, out, direction);
    default: return api.cufftExecC2C(plan, in, out, direction);
  }
}

// Runs the plan over every loop of key's layout, the pointers advanced by the steps (in bytes:
// in_size and out_size are the element sizes); a fused plan's parameter block filled first with
// `words`, in stream order.
void run(const fft_plan_key& key, fft_plan& plan, unsigned char* in, unsigned char* out, std::size_t in_size,
         std::size_t out_size, int direction, const std::vector<std::uint64_t>* words = nullptr) {
  const cufft_api& api = cufft();
  const fft_batches& b = key.layout;
  const std::lock_guard<std::mutex> hold(plan.running);
  if (words)
    check(driver().cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(plan.parameters()), words->data(),
                                     plan.parameter_bytes(), key.stream),
          "cuMemcpyHtoDAsync");
  check_cufft(api.cufftSetStream(plan.handle(), key.stream), "cufftSetStream");
  for (long long k = 0; k < b.loops; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const cufft_result r = exec(api, key.type, plan.handle(), in + i * static_cast<std::size_t>(b.in_step) * in_size,
                                out + i * static_cast<std::size_t>(b.out_step) * out_size, direction);
    if (r != cufft_success) check_cufft(r, exec_name(key.type), ("for a " + describe(key)).c_str());
  }
}

// The sizes of what g's transform reads and writes, in bytes.
struct element_sizes {
  std::size_t in, out;
};
element_sizes sizes_of(const fft_geometry& g, bool double_precision) {
  const std::size_t part = double_precision ? 8 : 4;
  return {g.kind == fft_kind::real_forward ? part : 2 * part, g.kind == fft_kind::real_inverse ? part : 2 * part};
}

int direction_of(fft_kind kind) { return kind == fft_kind::inverse ? cufft_inverse : cufft_forward; }

// g's transform, by one plan run in the loops of batches_of(g).
void transform(const fft_geometry& g, bool double_precision, void* buffer, void* output) {
  const fft_plan_key key{type_of(g.kind, double_precision), batches_of(g), current_stream_handle(), {}};
  const std::shared_ptr<fft_plan> plan = cached_fft_plan(key);
  const element_sizes size = sizes_of(g, double_precision);
  run(key, *plan, static_cast<unsigned char*>(buffer), static_cast<unsigned char*>(output), size.in, size.out,
      direction_of(g.kind));
}

// Whether g's operand is computed in cuFFT's loads: LTO callbacks are asked for (JET_FFT_CALLBACKS:
// off by default, slower than storing the operand first on the H100 measured) and loaded, the
// transform reads its buffer only once (not C2R, which reads a buffer jet has fixed first, nor
// R2C along a middle axis, which reads a moved copy), the operand has elements, and the stream
// is not being captured (the parameter block is copied from host memory, which a graph would
// read again when it is long gone).
bool fusable(const fft_geometry& g) {
  if (!fft_callbacks_setting() || !cufft().set_jit_callback || g.operand.size() == 0) return false;
  if (g.kind == fft_kind::real_inverse || (g.kind == fft_kind::real_forward && batches_of(g).loops > 1)) return false;
  return !captures_into_graph(current_stream_handle());
}

// g's transform with e computed in its loads; false, with nothing done, when cuFFT refused the
// callback.
bool transform_fused(const fft_geometry& g, bool double_precision, const evaluation& e, void* buffer, void* output) {
  const plan p = make_plan(e, g.operand);
  const fft_plan_key key{type_of(g.kind, double_precision),
                         batches_of(g),
                         current_stream_handle(),
                         {&e.desc, load_callback_variant(p.variant), g.padded()}};
  const std::shared_ptr<fft_plan> plan = cached_fft_plan(key);
  if (!plan->fused()) return false;
  const std::vector<std::uint64_t> words = load_callback_words(e, p, buffer, padding_of(g));
  const element_sizes size = sizes_of(g, double_precision);
  run(key, *plan, static_cast<unsigned char*>(buffer), static_cast<unsigned char*>(output), size.in, size.out,
      direction_of(g.kind), &words);
  return true;
}

// Zeroes `bytes` of a fresh buffer on the current stream.
void fft_zero(void* device, std::size_t bytes) {
  const driver_api& d = driver();
  check(d.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(device), 0, bytes / 4, current_stream_handle()),
        "cuMemsetD32Async");
}

}  // namespace

void fft_require_library() { cufft(); }

void fft_execute(const fft_geometry& g, bool double_precision, void* buffer, void* output) {
  cufft();
  if (g.output.size() == 0) return;
  driver();  // the primary context current on this thread: cuFFT works in the current context
  const bool real = g.kind == fft_kind::real_forward || g.kind == fft_kind::real_inverse;
  if (g.kind == fft_kind::real_inverse) ignore_hermitian_imaginary_parts(g, double_precision, buffer);
  if (real && batches_of(g).loops > 1)
    transform_with_axis_last(g, double_precision, buffer, output, transform);
  else
    transform(g, double_precision, buffer, output);
  if (g.kind == fft_kind::inverse || g.kind == fft_kind::real_inverse) scale_inverse(g, double_precision, output);
}

void fft_execute_from(const fft_geometry& g, bool double_precision, const evaluation& e, void* buffer, void* output) {
  cufft();
  if (g.output.size() == 0) return;
  driver();
  if (fusable(g) && transform_fused(g, double_precision, e, buffer, output)) {
    if (g.kind == fft_kind::inverse) scale_inverse(g, double_precision, output);
    return;
  }
  if (g.padded()) fft_zero(buffer, g.buffer.size() * sizes_of(g, double_precision).in);
  evaluate(e);
  fft_execute(g, double_precision, buffer, output);
}

}  // namespace jet::detail
