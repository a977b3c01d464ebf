// The host references of the op table (ops.def's last column, evaluated in float64 as the tests
// evaluate them) on NumPy's accuracy-test data, within NumPy's ulp tolerances: the GPU tests judge
// jet's kernels against these references, so they must be right first. A float32 row's reference
// is computed from the float32 input in float64 and rounded to float32, as the tests round it.
#include "support/catch.hpp"
#include "support/numpy_accuracy.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

using namespace jet::test::numpy_data;

template <class T, class Op> std::size_t check_reference(const char* function, Op, const rows& r) {
  std::vector<T> got;
  for (const std::uint64_t bits : r.input)
    got.push_back(static_cast<T>(Op::reference(static_cast<double>(from_bits<T>(bits)))));
  return count_failures<T>(function, r, got);
}

}  // namespace

TEST_CASE("ulp distance as NumPy measures it", "[cpu][math][numpy]") {
  constexpr float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)) == 1);
  CHECK(ulp_distance(-0.0f, 0.0f) == 0);
  CHECK(ulp_distance(-std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::denorm_min()) == 2);
  CHECK(ulp_distance(std::numeric_limits<float>::max(), inf) == 1);
  CHECK(ulp_distance(nan, -nan) == 0);
  CHECK(ulp_distance(nan, inf) > 1000);
  CHECK(ulp_distance(-1.0, 1.0) == 2 * double(0x3ff0000000000000ull));
}

TEST_CASE("NumPy's accuracy data: the host references within NumPy's ulp tolerances", "[cpu][math][numpy]") {
  check_every_function([](const char* function, auto op, auto, const rows& r, auto dtype) {
    return check_reference<decltype(dtype)>(function, op, r);
  });
}
