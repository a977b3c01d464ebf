// One evaluation: check shapes, choose the launch variant from the operands' addresses, find the
// kernel, launch it once.
#include "codegen.hpp"
#include "disk_cache.hpp"
#include "driver.hpp"
#include "kernel_cache.hpp"

#include <jet/error.hpp>
#include <jet/runtime.hpp>

#include <cstdint>
#include <string>

namespace jet::detail {
namespace {

void check_shapes(const evaluation& e) {
  const kernel_desc& d = e.desc;
  const std::size_t n = e.input_sizes[0];
  for (unsigned k = 1; k < d.input_count; ++k)
    if (e.input_sizes[k] != n)
      throw shape_error("jet: operands of `" + describe(d) + "` differ in size: in0 has " + std::to_string(n) +
                        " elements, in" + std::to_string(k) + " has " + std::to_string(e.input_sizes[k]));
  if (e.out_size != n)
    throw shape_error("jet: cannot assign `" + describe(d) + "` (" + std::to_string(n) + " elements) to an output of " +
                      std::to_string(e.out_size) + " elements");
  for (unsigned k = 0; k < d.input_count; ++k)
    if (!e.inputs[k] && n) throw invalid_argument("jet: operand in" + std::to_string(k) + " of `" + describe(d) + "` is null");
  if (!e.out && n) throw invalid_argument("jet: the output of `" + describe(d) + "` is null");
}

bool overlaps(std::uintptr_t a, std::size_t a_bytes, std::uintptr_t b, std::size_t b_bytes) {
  return a < b + b_bytes && b < a + a_bytes;
}

// Variant choice. Exact aliasing is safe in place: each element is read and then written by one
// thread. An output that overlaps an input at another offset is not (see evaluate).
struct plan {
  variant_key variant;
  bool output_overlaps_input = false;
};

plan make_plan(const evaluation& e, std::size_t n) {
  const kernel_desc& d = e.desc;
  plan p;
  unsigned vec = max_vector_width(d);
  const auto out = reinterpret_cast<std::uintptr_t>(e.out);
  const std::size_t out_bytes = n * size_of(d.out);
  if (out % (vec * size_of(d.out))) vec = 1;
  std::uint8_t distinct = 0;
  for (unsigned k = 0; k < d.input_count; ++k) {
    const auto in = reinterpret_cast<std::uintptr_t>(e.inputs[k]);
    const int size = size_of(d.input_types[k]);
    unsigned same = k;
    for (unsigned j = 0; j < k && same == k; ++j)
      if (e.inputs[j] == e.inputs[k] && d.input_types[j] == d.input_types[k]) same = j;
    if (same != k) {
      p.variant.unique_of[k] = p.variant.unique_of[same];
      continue;
    }
    p.variant.unique_of[k] = distinct++;
    if (in % (vec * size)) vec = 1;
    if (in == out && size == size_of(d.out)) p.variant.out_aliases_input = true;
    else if (overlaps(in, n * size, out, out_bytes)) p.output_overlaps_input = true;
  }
  p.variant.vec = static_cast<std::uint8_t>(vec);
  return p;
}

void launch(const evaluation& e, std::size_t n, const variant_key& v) {
  const kernel_desc& d = e.desc;
  CUfunction f = find_kernel(d, e.slot, v);

  // Kernel parameters in the generated order: out, distinct inputs, scalars, n.
  void* params[2 + max_inputs + max_scalars];
  const void* distinct_pointers[max_inputs];
  void* out = e.out;
  unsigned long long count = n;
  unsigned p = 0;
  params[p++] = &out;
  unsigned inputs = 0;
  for (unsigned k = 0; k < d.input_count; ++k)
    if (v.unique_of[k] == inputs) {
      distinct_pointers[inputs] = e.inputs[k];
      params[p++] = &distinct_pointers[inputs++];
    }
  for (unsigned k = 0; k < d.scalar_count; ++k) params[p++] = const_cast<scalar_value*>(&e.scalars[k]);
  params[p++] = &count;

  const kernel_shape shape = shape_of(v);
  const unsigned long long blocks = (n + shape.tile() - 1) / shape.tile();  // cdiv(n, BLOCK)
  check(driver().cuLaunchKernel(f, static_cast<unsigned>(blocks), 1, 1, shape.threads, 1, 1, 0, nullptr, params,
                                nullptr),
        "cuLaunchKernel");
  stats_counters().launches.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

void evaluate(const evaluation& e) {
  check_shapes(e);
  const std::size_t n = e.out_size;
  if (n == 0) return;
  const plan p = make_plan(e, n);
  if (!p.output_overlaps_input) return launch(e, n, p.variant);

  // The output overlaps an input at another offset (x[1:] = x[:-1] + y): evaluate into a
  // temporary, then copy, so no element is read after it was overwritten.
  const std::size_t bytes = n * size_of(e.desc.out);
  struct temporary {
    void* p;
    ~temporary() { device_free(p); }
  } tmp{device_alloc(bytes)};
  evaluation into_tmp{e.desc, e.slot, tmp.p, n, e.inputs, e.input_sizes, e.scalars};
  launch(into_tmp, n, make_plan(into_tmp, n).variant);
  copy_on_device(e.out, tmp.p, bytes);
}

std::string source_of(const kernel_desc& desc) { return generate_source(desc, default_variant(desc)); }

std::string expression_text(const kernel_desc& desc) { return describe(desc); }

compiled_kernel compile_for(const kernel_desc& desc, arch target) {
  std::string source = source_of(desc);
  cached_cubin binary = cached_compile(source, target.value, describe(desc));
  return {target, std::move(source), std::move(binary.image), binary.compile_ms, binary.from_disk};
}

}  // namespace jet::detail
