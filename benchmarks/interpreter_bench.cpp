#include "interpreter_bench.hpp"

#include "host_data.hpp"
#include "timing.hpp"

#include "kernel_cache.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace bench {
namespace {

using clock_type = std::chrono::steady_clock;

// x op s1 op s2 ... (ops - 1 scalar ops) + y: a chain of `ops` ops, two arrays read, one written.
template <int Ops> auto chain(const jet::view<float>& x, const jet::view<float>& y) {
  if constexpr (Ops == 1)
    return x + y;
  else if constexpr (Ops % 4 == 0)
    return chain<Ops - 1>(x, y) * 1.0001f;
  else if constexpr (Ops % 4 == 1)
    return chain<Ops - 1>(x, y) + 0.5f;
  else if constexpr (Ops % 4 == 2)
    return jet::max(chain<Ops - 1>(x, y), -1.0f);
  else
    return chain<Ops - 1>(x, y) - 0.25f;
}

}  // namespace

void interpreter_bandwidth() {
  const std::size_t n = std::size_t{1} << 28;
  jet::array<float> x = jet::from_host(random_normal<float>(n, 21)), y = jet::from_host(random_normal<float>(n, 22)),
                    z(n);
  const jet::view<float> vx(x), vy(y);
  jet::view<float> vz(z);
  auto measure = [&]<int Ops>(std::integral_constant<int, Ops>) {
    for (jet::jit_policy policy : {jet::jit_policy::interpret, jet::jit_policy::sync}) {
      jet::set_jit_policy(policy);
      const double ms = median_ms([&] { vz = chain<Ops>(vx, vy); }, 10);
      std::printf("INTERP kind=bandwidth ops=%d impl=%s ms=%.4g gbps=%.1f\n", Ops,
                  policy == jet::jit_policy::sync ? "compiled" : "interpreter", ms, 3.0 * n * 4 / (ms * 1e-3) / 1e9);
      std::fflush(stdout);
    }
  };
  measure(std::integral_constant<int, 1>{});
  measure(std::integral_constant<int, 2>{});
  measure(std::integral_constant<int, 4>{});
  measure(std::integral_constant<int, 8>{});
  measure(std::integral_constant<int, 16>{});
  measure(std::integral_constant<int, 32>{});
  jet::set_jit_policy(jet::jit_policy::sync);
}

namespace {

// Run-time kernel descriptions of float32 chains over two arrays, distinct from each other by
// their op sequences (so each is a never-seen source): 6 to 10 ops from a seeded choice.
struct runtime_expression {
  std::vector<jet::detail::node> nodes;
  std::vector<jet::dtype> input_types;
  std::vector<std::uint16_t> out_nodes{0};
  std::vector<jet::dtype> out_types{jet::dtype::float32};
  jet::detail::kernel_desc desc() const {
    const std::array<const jet::detail::user_function*, 0> none{};
    return {nodes.data(),
            static_cast<std::uint32_t>(nodes.size()),
            static_cast<std::uint32_t>(input_types.size()),
            0,
            input_types.data(),
            0,
            1,
            out_nodes.data(),
            out_types.data(),
            nullptr,
            0,
            jet::detail::hash_desc(nodes, out_nodes, out_types, none, 0)};
  }
};
std::vector<runtime_expression> distinct_expressions(std::size_t count, std::uint64_t seed,
                                                     std::set<std::string>& seen) {
  using jet::detail::op_id;
  const std::pair<op_id, int> ops[] = {{op_id::add, 2}, {op_id::sub, 2},  {op_id::mul, 2},     {op_id::max, 2},
                                       {op_id::min, 2}, {op_id::tanh, 1}, {op_id::sigmoid, 1}, {op_id::relu, 1},
                                       {op_id::abs, 1}, {op_id::neg, 1},  {op_id::sin, 1},     {op_id::exp, 1}};
  std::mt19937_64 engine(seed);
  std::vector<runtime_expression> out;
  while (out.size() < count) {
    runtime_expression r;
    std::string key;
    auto input = [&] {
      jet::detail::node n{op_id::input, jet::dtype::float32};
      n.arg[0] = static_cast<std::uint16_t>(r.input_types.size());
      r.input_types.push_back(jet::dtype::float32);
      r.nodes.push_back(n);
      return static_cast<std::uint16_t>(r.nodes.size() - 1);
    };
    std::uint16_t current = input();
    const int length = 6 + static_cast<int>(engine() % 5);
    for (int k = 0; k < length; ++k) {
      const auto [op, arity] = ops[engine() % std::size(ops)];
      jet::detail::node n{op, jet::dtype::float32, static_cast<std::uint8_t>(arity)};
      n.arg[0] = current;
      for (int a = 0; a < arity; ++a) n.arg_type[a] = jet::dtype::float32;
      if (arity == 2) n.arg[1] = input();
      r.nodes.push_back(n);
      current = static_cast<std::uint16_t>(r.nodes.size() - 1);
      key += std::to_string(static_cast<int>(op)) + ",";
    }
    r.out_nodes[0] = current;
    if (seen.insert(key).second) out.push_back(std::move(r));
  }
  return out;
}

// Total wall time to evaluate each expression once (into z, from x and y) and have every result.
double evaluate_all_ms(const std::vector<runtime_expression>& expressions, std::size_t count, jet::array<float>& x,
                       jet::array<float>& y, jet::array<float>& z) {
  std::vector<jet::detail::kernel_slot> slots(count);
  const jet::detail::layout l = jet::detail::layout::contiguous(x.shape());
  const auto t0 = clock_type::now();
  for (std::size_t k = 0; k < count; ++k) {
    const jet::detail::kernel_desc d = expressions[k].desc();
    std::vector<const void*> inputs(d.input_count);
    std::vector<const jet::detail::layout*> layouts(d.input_count, &l);
    for (unsigned slot = 0; slot < d.input_count; ++slot) inputs[slot] = slot % 2 ? y.data() : x.data();
    void* out = z.data();
    jet::detail::evaluate({d, slots[k], &out, &l, inputs.data(), layouts.data(), nullptr});
  }
  jet::synchronize();
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

}  // namespace

void interpreter_first_results() {
  const std::size_t n = std::size_t{1} << 20;
  jet::array<float> x = jet::from_host(random_normal<float>(n, 23)), y = jet::from_host(random_normal<float>(n, 24)),
                    z(n);
  jet::set_jit_policy(jet::jit_policy::interpret);
  // Loads family's interpreter by evaluating `load`: compiled by the first process on the machine,
  // then a disk hit.
  const auto load_interpreter = [](const char* family, const auto& load) {
    const jet::statistics before = jet::stats();
    const auto t0 = clock_type::now();
    load();
    jet::synchronize();
    std::printf("INTERP kind=interpreter_load family=%s ms=%.2f from=%s\n", family,
                std::chrono::duration<double, std::milli>(clock_type::now() - t0).count(),
                jet::stats().disk_hits > before.disk_hits ? "disk"
                : jet::stats().compiles > before.compiles ? "nvrtc"
                                                          : "memory");
  };
  load_interpreter("float32", [&] { z = x * 2.0f; });
  // The complex64 interpreter likewise; then a complex mixer (first_results' with x - 2, a kernel
  // never seen), under async.
  {
    jet::array<std::complex<float>> w(n);
    load_interpreter("complex64", [&] { w = jet::make_complex(x, y) * 2.0f; });
    jet::set_jit_policy(jet::jit_policy::async);
    const auto first_result = [&](const char* kind, const auto& evaluate) {
      const std::uint64_t interpreted = jet::stats().interpreted;
      const auto t2 = clock_type::now();
      evaluate();
      jet::synchronize();
      std::printf("INTERP kind=%s n=%zu ms=%.3f interpreted=%llu\n", kind, n,
                  std::chrono::duration<double, std::milli>(clock_type::now() - t2).count(),
                  static_cast<unsigned long long>(jet::stats().interpreted - interpreted));
    };
    first_result("first_result_complex",
                 [&] { z = jet::abs(jet::make_complex(x, y) * jet::exp(jet::make_complex(0.f, y)) / (x - 2.f)); });
    // The real-valued equivalent (issue 21's goal: the complex first result within its time).
    first_result("first_result_real_mixer", [&] { z = jet::abs(x * jet::exp(y) / (x - 2.f)); });
    jet::set_jit_policy(jet::jit_policy::interpret);
  }
  jet::set_disk_cache(false);

  // One never-seen expression, async: the call returns after the interpreter's launch.
  jet::set_jit_policy(jet::jit_policy::async);
  std::set<std::string> seen;
  const auto probes = distinct_expressions(5, 31, seen);
  for (std::size_t k = 0; k < probes.size(); ++k)
    std::printf("INTERP kind=first_result n=%zu ms=%.3f\n", n, evaluate_all_ms({probes[k]}, 1, x, y, z));

  const std::size_t count = 1000;
  const auto async_set = distinct_expressions(count, 32, seen);
  const std::uint64_t interpreted = jet::stats().interpreted;
  const double async_ms = evaluate_all_ms(async_set, count, x, y, z);
  std::printf("INTERP kind=distinct impl=async expressions=%zu ms=%.1f interpreted=%llu\n", count, async_ms,
              static_cast<unsigned long long>(jet::stats().interpreted - interpreted));
  std::fflush(stdout);
  jet::detail::drop_background_compiles();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the compiles in hand finish

  jet::set_jit_policy(jet::jit_policy::sync);
  const char* env = std::getenv("JET_BENCH_SYNC_EXPRESSIONS");
  const std::size_t sync_count = std::clamp<std::size_t>(env ? std::strtoull(env, nullptr, 10) : 100, 1, count);
  const auto sync_set = distinct_expressions(sync_count, 33, seen);
  const double sync_ms = evaluate_all_ms(sync_set, sync_count, x, y, z);
  std::printf("INTERP kind=distinct impl=sync expressions=%zu ms=%.1f scaled_to=%zu scaled_ms=%.1f\n", sync_count,
              sync_ms, count, sync_ms * count / sync_count);
  std::fflush(stdout);
  jet::set_disk_cache(true);
}

}  // namespace bench
