// Large formulas on the GPU, built at run time (tests/support/large_kernels.hpp) and evaluated
// through the core as one kernel each. Compare a formula compiled once with the same formula
// inlined by running it under JET_OUTLINE_COST=0 (every formula outlined) and
// JET_OUTLINE_COST=1000000 (none).
#include "large_formulas.hpp"

#include "large_kernels.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"

#include <jet/jet.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace bench {
namespace {

// The formula evaluated over n elements of `inputs` (each an array of n floats) into fresh outputs.
void measure(const char* name, const jet::test::formula& f, const std::vector<jet::array<float>>& inputs,
             time_ms_function time_ms) {
  const jet::detail::kernel_desc d = f.desc();
  const std::size_t n = inputs[0].size();
  const jet::detail::layout l = jet::detail::layout::contiguous(inputs[0].shape());
  std::vector<jet::array<float>> outputs;
  std::vector<void*> out_pointers;
  for (unsigned k = 0; k < d.out_count; ++k) out_pointers.push_back(outputs.emplace_back(n).data());
  std::vector<const void*> in_pointers;
  for (const jet::array<float>& a : inputs) in_pointers.push_back(a.data());
  std::vector<jet::detail::scalar_value> scalars(f.scalar_values().size());
  for (std::size_t k = 0; k < scalars.size(); ++k) std::memcpy(scalars[k].bytes, &f.scalar_values()[k], sizeof(float));
  const std::vector<jet::detail::layout> out_layouts(d.out_count, l);
  const std::vector<const jet::detail::layout*> in_layouts(d.input_count, &l);
  jet::detail::kernel_slot slot;
  const jet::detail::evaluation e{
      d, slot, out_pointers.data(), out_layouts.data(), in_pointers.data(), in_layouts.data(), scalars.data()};

  const double compiled_before = jet::stats().compile_ms;
  jet::detail::evaluate(e);
  jet::synchronize();
  const double compile_ms = jet::stats().compile_ms - compiled_before;
  const double ms = time_ms([&] { jet::detail::evaluate(e); }, 50);
  const bool outlined =
      jet::detail::generate_source(d, jet::detail::default_variant(d)).find("__noinline__") != std::string::npos;
  const double bytes = double(d.input_count + d.out_count) * n * sizeof(float);
  std::printf("LARGE formula=%s n=%zu ops=%u outlined=%d nvrtc_ms=%.1f ms=%.4f GBps=%.1f\n", name, n, f.ops(), outlined,
              compile_ms, ms, bytes / (ms * 1e-3) / 1e9);
  std::fflush(stdout);
}

}  // namespace

void large_formulas(time_ms_function time_ms) {
  jet::set_disk_cache(false);  // NVRTC's time, every run
  const jet::shape chain_shape{std::size_t{1} << 24}, options{4000000};
  std::vector<jet::array<float>> chain_inputs;
  chain_inputs.push_back(jet::eval(2.0f * jet::random_uniform(chain_shape, 1) - 1.0f));
  chain_inputs.push_back(jet::eval(jet::random_normal(chain_shape, 2)));
  measure("chain100", jet::test::transcendental_chain(100), chain_inputs, time_ms);
  // The CUDA samples' ranges: price 5 to 30, strike 1 to 100, 0.25 to 10 years.
  std::vector<jet::array<float>> market;
  market.push_back(jet::eval(5.0f + 25.0f * jet::random_uniform(options, 3)));
  market.push_back(jet::eval(1.0f + 99.0f * jet::random_uniform(options, 4)));
  market.push_back(jet::eval(0.25f + 9.75f * jet::random_uniform(options, 5)));
  measure("black_scholes", jet::test::black_scholes(), market, time_ms);
  jet::set_disk_cache(true);
}

}  // namespace bench
