// Fills a kernel cache directory, as one of many processes doing so at once: compiles the first
// <count> numbered expressions for sm_90, from expression <first> on and round, with the disk cache
// in <directory>. Exits 0 when every kernel is a cubin and the cache was in use.
#include "support/numbered_expressions.hpp"
#include "support/operands.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <directory> <count, at most 50> <first>\n", argv[0]);
    return 2;
  }
  jet::set_disk_cache_directory(argv[1]);
  if (jet::disk_cache_directory() != argv[1]) return 3;
  auto calls = jet::test::numbered_compiles<50>(jet::test::fake_view<float>(), jet::test::fake_view<float>());
  calls.resize(std::min<std::size_t>(calls.size(), std::strtoul(argv[2], nullptr, 10)));
  return jet::test::failed_compiles(calls, std::strtoul(argv[3], nullptr, 10)) ? 1 : 0;
}
