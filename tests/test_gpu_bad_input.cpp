// Bad input on the GPU: an assignment that fails leaves its output as it was, and the process
// stays usable. tests/README.md lists every bad input tried and its outcome.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <vector>

using jet::test::poison;

TEST_CASE("bad input: a failed assignment leaves its output as it was", "[gpu][errors][bad_input]") {
  const std::vector<float> before(12, poison<float>());
  jet::array<float> memory = jet::from_host(before, {3, 4});
  jet::view<float> out = memory.view();
  jet::array<float> x = jet::from_host(std::vector<float>(12, 1.f), {3, 4});
  const jet::array<float> wrong = jet::from_host(std::vector<float>(5, 2.f));
  CHECK_THROWS_AS(out = x + wrong, jet::shape_error);            // operands that do not broadcast
  CHECK_THROWS_AS(out = x.transpose() + 1.f, jet::shape_error);  // an expression of another shape
  CHECK(memory.to_host() == before);
  jet::array<float> a = x.clone();
  CHECK_THROWS_AS(a = x + wrong, jet::shape_error);
  CHECK(a.shape() == jet::shape{3, 4});
  CHECK(a.to_host() == std::vector<float>(12, 1.f));
}

TEST_CASE("bad input: running out of memory during an assignment leaves the array as it was",
          "[gpu][errors][bad_input][memory]") {
  jet::array<float> a = jet::from_host(std::vector<float>{1, 2, 3});
  jet::array<float> one = jet::from_host(std::vector<float>{5});
  const jet::view<float> huge = one.broadcast_to({1 << 20, 1 << 20});  // evaluating it needs a new 4 TiB array
  try {
    a = huge + 1.f;
    FAIL("no exception");
  } catch (const jet::out_of_memory& e) {
    CHECK(e.bytes == (std::size_t{1} << 42));
  }
  CHECK(a.shape() == jet::shape{3});
  CHECK(a.to_host() == std::vector<float>{1, 2, 3});
  a = a + one;  // still usable
  CHECK(a.to_host() == std::vector<float>{6, 7, 8});
}
