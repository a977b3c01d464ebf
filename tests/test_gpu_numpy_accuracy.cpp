// On the GPU: each of the 20 functions NumPy has accuracy-test data for, evaluated by jet on that
// data's inputs in float32 and float64 (one launch each, into a poisoned output), within NumPy's
// ulp tolerances of the correctly rounded results (tests/support/numpy_accuracy.hpp). The CPU test
// holds the host references to the same data.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"
#include "support/numpy_accuracy.hpp"

#include <jet/jet.hpp>

#include <vector>

namespace {

using namespace jet::test::numpy_data;

template <class T, class F> std::size_t check_on_device(const char* function, F evaluate, const rows& r) {
  std::vector<T> inputs;
  for (const std::uint64_t bits : r.input) inputs.push_back(from_bits<T>(bits));
  const jet::array<T> x = jet::from_host(inputs);
  jet::array<T> out = jet::test::poisoned_array<T>(x.shape());
  const auto launches = jet::stats().launches;
  out = evaluate(x);
  CHECK(jet::stats().launches - launches == 1);
  return count_failures<T>(function, r, out.to_host());
}

}  // namespace

TEST_CASE("NumPy's accuracy data: jet's functions within NumPy's ulp tolerances", "[gpu][math][numpy]") {
  check_every_function([](const char* function, auto, auto evaluate, const rows& r, auto dtype) {
    return check_on_device<decltype(dtype)>(function, evaluate, r);
  });
}
