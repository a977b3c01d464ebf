// The test runner. GPU test executables are built with JET_TESTS_NEED_GPU: with no usable device
// they print why and exit 77, which CTest reports as skipped (not passed).
#define CATCH_CONFIG_RUNNER
#include "catch.hpp"

#include <jet/detail/core.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

int main(int argc, char** argv) {
  // Run by hand as well as by CTest (which sets it too), tests cache kernels in the build tree.
  ::setenv("JET_CACHE_DIR", JET_TEST_CACHE_DIR, /*overwrite=*/0);
#ifdef JET_TESTS_NEED_GPU
  // The GPU tests count compiles and cache hits as a synchronous compile makes them, unless the
  // environment says otherwise (gpu.fuzz_interpreted); the interpreter's tests set their policies.
  ::setenv("JET_JIT", "sync", /*overwrite=*/0);
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing |= std::string_view(argv[i]).starts_with("--list");
  std::string reason;
  if (!listing && !jet::device_available(&reason)) {
    std::printf("SKIPPED: these tests need a GPU: %s\n", reason.c_str());
    return 77;
  }
#endif
  return Catch::Session().run(argc, argv);
}
