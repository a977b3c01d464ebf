// NVRTC's time on large kernels, with no GPU: the source of each formula of
// tests/support/large_kernels.hpp (transcendental chains of 30 to 400 ops, Black-Scholes) is
// generated as jet would launch it and compiled for sm_90 with jet's options, followed by any
// given on the command line. Prints one line per formula: ops, bytes of source, seconds (the
// fastest of three compiles). JET_OUTLINE_COST=1000000 compiles every formula inlined, as jet did
// before it outlined large ones.
//
//   build/benchmarks/jet_nvrtc_time [--formula NAME] [NVRTC option...]
#include "large_kernels.hpp"
#include "nvrtc.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

double fastest_compile_seconds(const std::string& source, const std::vector<std::string>& extra) {
  double best = 1e9;
  for (int run = 0; run < 3; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const jet::test::nvrtc_output out = jet::test::nvrtc_compile(source, extra);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!out.compiled) {
      std::fprintf(stderr, "jet_nvrtc_time: NVRTC failed:\n%s\n", out.log.c_str());
      return -1;
    }
    best = std::min(best, seconds);
  }
  return best;
}

void report(const std::string& name, const jet::test::formula& f, const std::vector<std::string>& extra,
            const std::string& only) {
  if (!only.empty() && name != only) return;
  const jet::detail::kernel_desc d = f.desc();
  const std::string source = jet::detail::generate_source(d, jet::detail::default_variant(d));
  std::printf("NVRTC formula=%s ops=%u bytes=%zu seconds=%.3f\n", name.c_str(), f.ops(), source.size(),
              fastest_compile_seconds(source, extra));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> extra(argv + 1, argv + argc);
  std::string only;
  if (extra.size() >= 2 && extra[0] == "--formula") {
    only = extra[1];
    extra.erase(extra.begin(), extra.begin() + 2);
  }
  for (unsigned length : {30u, 100u, 200u, 400u})
    report("chain" + std::to_string(length), jet::test::transcendental_chain(length), extra, only);
  report("black_scholes", jet::test::black_scholes(), extra, only);
}
