// jet's host path on a machine without a GPU: evaluation, the kernel cache, launches, memory and
// streams run against tests/support/null_driver.cpp (as JET_CUDA_DRIVER), which runs no kernel but
// counts launches and the pool's allocations. What the kernels compute is the GPU tests' business.
#include "support/catch.hpp"
#include "support/null_driver.hpp"

#include <jet/jet.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

// The null driver's counts, once jet has loaded it (each test case runs in a process of its own).
const jet::test::null_driver_counts& counts() {
  ::setenv("JET_CUDA_DRIVER", JET_NULL_DRIVER, /*overwrite=*/1);
  REQUIRE(jet::device_available());  // loads the driver JET_CUDA_DRIVER names
  const jet::test::null_driver_counts* c = jet::test::null_driver();
  REQUIRE(c != nullptr);
  return *c;
}

}  // namespace

TEST_CASE("host path: a repeat evaluation is one launch on the planned grid and allocates nothing", "[cpu][host]") {
  const jet::test::null_driver_counts& c = counts();
  CHECK(jet::current_device().name == "null device");
  jet::array<float> x(1025), y(1025), z(1025);
  // Compiles (NVRTC, for the null device's sm_90) before it returns: under the default policy the
  // repeat could still run on the interpreter while a loaded machine compiles, on its own grid.
  jet::set_jit_policy(jet::jit_policy::sync);
  z = x + y;
  const jet::test::null_driver_counts before = c;
  z = x + y;
  CHECK(c.launches - before.launches == 1);
  CHECK(c.pool_allocations == before.pool_allocations);
  // float32 x + y: tiles of 128 threads x 2 x 4 elements; 1025 = one full tile and one element,
  // which takes a block of its own.
  CHECK(c.block_x == 128);
  CHECK(c.grid_x == 2);
  CHECK(c.grid_y == 1);
}

TEST_CASE("host path: a reduction's result comes back from jet's small blocks, not the pool", "[cpu][host][memory]") {
  const jet::test::null_driver_counts& c = counts();
  jet::array<float> x(5000);
  const void* freed = nullptr;
  {
    const jet::array<float> first = jet::sum(x);
    freed = first.data();
  }
  const jet::test::null_driver_counts before = c;
  const jet::array<float> second = jet::sum(x);
  CHECK(second.data() == freed);
  CHECK(c.pool_allocations == before.pool_allocations);
  CHECK(c.pool_frees == before.pool_frees);
  CHECK(c.launches - before.launches == 1);
  // On the legacy stream, which CUDA never captures, nor is the driver asked about capture: the
  // launch is the reduction's only driver call.
  CHECK(c.capture_queries == before.capture_queries);
  // A stream of jet's own may be capturing: there the small block and the workspace each ask.
  jet::stream s;
  jet::stream_guard on(s);
  (void)jet::sum(x);
  const jet::test::null_driver_counts on_a_stream = c;
  (void)jet::sum(x);
  CHECK(c.capture_queries - on_a_stream.capture_queries >= 2);
  CHECK(c.launches - on_a_stream.launches == 1);
}

TEST_CASE("host path: a result made in a capture is the graph's, and a stream's small blocks go back with it",
          "[cpu][host][memory][graph]") {
  const jet::test::null_driver_counts& c = counts();
  jet::array<float> x(5000);
  jet::test::null_driver_counts before_free{};
  {
    jet::stream s;
    jet::stream_guard on(s);
    jet::array<float> captured;
    const jet::test::null_driver_counts before_capture = c;
    const jet::graph g = jet::capture([&] { captured = jet::sum(x); });
    CHECK(c.pool_allocations - before_capture.pool_allocations == 1);  // the graph's own allocation
    before_free = c;
    captured = jet::array<float>();
    CHECK(c.pool_frees - before_free.pool_frees == 1);  // given back, not kept for reuse
    { const jet::array<float> small(jet::shape{}); }    // a block of jet's own, kept on s when freed
    CHECK(c.pool_allocations - before_free.pool_allocations == 1);
    CHECK(c.pool_frees - before_free.pool_frees == 1);
  }
  CHECK(c.pool_frees - before_free.pool_frees == 2);  // the stream is gone, and so is the block it kept
}

TEST_CASE("host path: a stream that ends hands its reductions' workspace on, unless a graph holds it",
          "[cpu][host][memory][graph]") {
  const jet::test::null_driver_counts& c = counts();
  jet::array<float> x(5000);
  auto sum_on_a_new_stream = [&](bool captured) {
    jet::stream s;
    jet::stream_guard on(s);
    const auto before = c.allocations;
    if (captured) {
      jet::array<float> total;
      const jet::graph g = jet::capture([&] { total = jet::sum(x); });
    } else {
      (void)jet::sum(x);
    }
    return c.allocations - before;  // workspaces allocated
  };
  // No stream has ended after a reduction outside a graph yet (the other cases end none), so no
  // workspace is spare.
  CHECK(sum_on_a_new_stream(true) == 1);   // the graph's
  CHECK(sum_on_a_new_stream(false) == 1);  // the graph's is not handed on
  CHECK(sum_on_a_new_stream(false) == 0);  // the ended stream's is
  CHECK(sum_on_a_new_stream(true) == 1);   // a capture takes no spare
  CHECK(sum_on_a_new_stream(false) == 0);  // the spare is still there
}

TEST_CASE("host path: a view past 2^63 - 1 elements is refused before it reads or writes any memory",
          "[cpu][host][errors][bad_input]") {
  const jet::test::null_driver_counts& c = counts();
  auto a = jet::from_host(std::vector<float>(4096, 1.f));
  const jet::test::null_driver_counts before = c;
  // 17 * 264917625139441 * 4096 is 2^64 + 4096: wrapped, this view reached 16 KiB past the array.
  try {
    auto w = a.reshape({17, 264917625139441LL, 4096}).slice(1, 1, 2).slice(0, 0, 1);
    (void)w.to_host();
    w = jet::view<float>(a) + 1.f;
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(std::string(e.what()).find("(17, 264917625139441, 4096)") != std::string::npos);
  }
  CHECK(c.launches == before.launches);
  CHECK(c.pool_allocations == before.pool_allocations);
}

TEST_CASE("host path: the same evaluation again launches as remembered, other operands are planned again",
          "[cpu][host][memo]") {
  const jet::test::null_driver_counts& c = counts();
  jet::array<float> x(1025), y(1025), z(1025), w(1025);
  z = x + y;  // planned, compiled and remembered
  const jet::statistics warm = jet::stats();
  z = x + y;
  CHECK(jet::stats().memory_hits - warm.memory_hits == 1);
  CHECK(c.first_parameter == z.data());
  CHECK(c.grid_x == 2);
  w = x + y;  // another output
  CHECK(c.first_parameter == w.data());
  z = x + y;
  CHECK(c.first_parameter == z.data());
  x = jet::array<float>(4096), y = jet::array<float>(4096);  // other memory and shape: z is reallocated
  z = x + y;
  CHECK(c.first_parameter == z.data());
  CHECK(c.grid_x == 4);  // tiles of 1024
  // Views of one memory with other shapes, built afresh each time (their layouts may lie where the
  // last ones did): each is planned for its own shape.
  const auto add_views = [&](std::int64_t n) {
    jet::view<float> a(x.data(), jet::shape{n}), b(y.data(), jet::shape{n}), out(z.data(), jet::shape{n});
    out = a + b;
    return c.grid_x;
  };
  CHECK(add_views(4096) == 4);
  CHECK(add_views(1025) == 2);
  CHECK(add_views(4096) == 4);
  CHECK(add_views(4096) == 4);
  CHECK(jet::stats().launches - warm.launches == 8);
}

TEST_CASE("host path: a kept reduction is a launch of its own, then a broadcast operand", "[cpu][host]") {
  const jet::test::null_driver_counts& c = counts();
  jet::set_jit_policy(jet::jit_policy::sync);
  jet::array<float> x(jet::shape{6, 1000}), y;
  y = x - jet::max(x, jet::axis{1}, jet::keepdims);
  CHECK(y.shape() == (jet::shape{6, 1000}));
  const jet::test::null_driver_counts before = c;
  y = x - jet::mean(x, 0, jet::keepdims);
  CHECK(y.shape() == (jet::shape{6, 1000}));
  CHECK(c.launches - before.launches == 2);
  // softmax: the maximum twice (once under the sum), the sum, and the quotient.
  const jet::test::null_driver_counts softmax_before = c;
  y = jet::softmax(x, -1);
  CHECK(c.launches - softmax_before.launches == 4);
  CHECK(y.shape() == (jet::shape{6, 1000}));
  // A kept reduction of another shape broadcasts like any operand of that shape.
  jet::array<float> column(jet::shape{6, 1});
  y = column + jet::sum(x, 1, jet::keepdims);
  CHECK(y.shape() == (jet::shape{6, 1}));
  CHECK_THROWS_AS(y = x - jet::max(x, jet::axis{-3}, jet::keepdims), jet::invalid_argument);
}
