// Bad input, with no GPU: each is a clear exception thrown before anything runs on the device, or
// (empty operands) nothing to do. tests/README.md lists every bad input tried and its outcome.
#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/operands.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using jet::test::fake_view;

namespace {

jet::view<float> fake_nd(const jet::shape& s, std::uintptr_t address) {
  return jet::view<float>(reinterpret_cast<float*>(address), s);
}

using jet::test::contains;

// The description of out = in for one float operand, as the core sees it; no hash: nothing here
// reaches the kernel cache.
const jet::detail::kernel_desc& copy_desc() {
  static const jet::detail::node nodes[] = {{jet::detail::op_id::input, jet::dtype::float32}};
  static const jet::dtype types[] = {jet::dtype::float32};
  static const std::uint16_t roots[] = {0};
  static const jet::detail::kernel_desc desc{.nodes = nodes,
                                             .node_count = 1,
                                             .input_count = 1,
                                             .input_types = types,
                                             .out_count = 1,
                                             .out_nodes = roots,
                                             .out_types = types};
  return desc;
}

// out = in for one float operand, through the core, with the pointers given.
void copy_through_core(const void* in, void* out, std::size_t n) {
  const jet::detail::kernel_desc& desc = copy_desc();
  jet::detail::kernel_slot slot;
  const jet::detail::layout l = jet::detail::layout::contiguous(jet::shape::of_size(n));
  void* outputs[] = {out};
  const void* inputs[] = {in};
  const jet::detail::layout* input_layouts[] = {&l};
  jet::detail::evaluate({desc, slot, outputs, &l, inputs, input_layouts, nullptr});
}

}  // namespace

TEST_CASE("bad input: empty operands evaluate to nothing, and need no device", "[cpu][errors][bad_input]") {
  auto x = fake_view<float>(0, 0x10000), y = fake_view<float>(0, 0x20000);
  auto out = fake_view<float>(0, 0x30000);
  CHECK_NOTHROW(out = x + y * 2.f);
  auto rows = fake_nd({0, 5}, 0x40000), row = fake_nd({5}, 0x50000), empty_rows = fake_nd({0, 5}, 0x60000);
  CHECK_NOTHROW(empty_rows = rows + row);  // (0, 5) + (5,) is (0, 5)
  auto one = fake_view<float>(1, 0x70000);
  CHECK_NOTHROW(out = x + one);  // (0,) + (1,) is (0,)
  auto three = fake_view<float>(3, 0x80000);
  CHECK_THROWS_AS(out = x + three, jet::shape_error);  // (0,) and (3,) do not broadcast
  jet::view<float> null_but_empty(nullptr, 0);
  CHECK_NOTHROW(null_but_empty = x * x);
}

TEST_CASE("bad input: a moved-from array is empty, and with other operands a shape_error", "[cpu][errors][bad_input]") {
  jet::array<float> a;
  jet::array<float> b = std::move(a);  // a no longer owns memory: size 0, null data
  CHECK(a.size() == 0);
  CHECK(a.data() == nullptr);
  auto x = fake_view<float>(8, 0x10000), out = fake_view<float>(8, 0x20000);
  try {
    out = a + x;
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(contains(e.what(), "(0,)"));
    CHECK(contains(e.what(), "(8,)"));
  }
  jet::view<float> empty(nullptr, 0);
  CHECK_NOTHROW(empty = a * 2.f);
}

TEST_CASE("bad input: null pointers are refused before anything runs", "[cpu][errors][bad_input]") {
  CHECK_THROWS_AS(jet::view<float>(nullptr, 3), jet::invalid_argument);
  CHECK_THROWS_AS(jet::view<float>(nullptr, jet::shape{2, 2}), jet::invalid_argument);
  CHECK_THROWS_AS(jet::view<float>(nullptr, jet::shape{2, 2}, {2, 1}), jet::invalid_argument);
  // The core checks too, for descriptions that did not come through a view.
  const auto fake = reinterpret_cast<void*>(0x10000);
  try {
    copy_through_core(nullptr, fake, 4);
    FAIL("no exception");
  } catch (const jet::invalid_argument& e) {
    CHECK(contains(e.what(), "in0"));
    CHECK(contains(e.what(), "null"));
  }
  CHECK_THROWS_AS(copy_through_core(fake, nullptr, 4), jet::invalid_argument);
  CHECK_NOTHROW(copy_through_core(nullptr, nullptr, 0));  // nothing to read or write
}

TEST_CASE("bad input: host data of the wrong size, strides that do not fit the shape", "[cpu][errors][bad_input]") {
  const std::vector<float> five(5);
  try {
    jet::from_host(five, jet::shape{2, 3});
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(contains(e.what(), "5 elements"));
    CHECK(contains(e.what(), "(2, 3)"));
  }
  auto* p = reinterpret_cast<float*>(0x10000);
  CHECK_THROWS_AS(jet::view<float>(p, jet::shape{2, 3}, {1}), jet::invalid_argument);
}

TEST_CASE("bad input: outputs of one kernel that overlap are refused", "[cpu][errors][bad_input]") {
  auto x = fake_view<float>(8, 0x10000);
  auto a = fake_view<float>(8, 0x20000), b = fake_view<float>(8, 0x20000 + 4 * sizeof(float));
  try {
    jet::tie(a, b) = jet::tuple(x + 1.f, x - 1.f);
    FAIL("no exception");
  } catch (const jet::invalid_argument& e) {
    CHECK(contains(e.what(), "overlap"));
  }
}

TEST_CASE("bad input: element counts past 2^63 - 1 are a shape_error naming the shape, before any memory",
          "[cpu][errors][bad_input]") {
  // 17 * 264917625139441 * 4096 is 2^64 + 4096: wrapped, it passed for 4096 elements.
  const jet::shape wraps{17, 264917625139441LL, 4096};
  const std::string named = "(17, 264917625139441, 4096)";
  try {
    (void)wraps.size();
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(contains(e.what(), named));
    CHECK(contains(e.what(), "2^63 - 1"));
  }
  auto a = fake_nd({4096}, 0x10000);
  try {
    a.reshape(wraps);
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(contains(e.what(), named));
  }
  CHECK_THROWS_AS(jet::from_host(std::vector<float>(4096), wraps), jet::shape_error);
  CHECK_THROWS_AS(jet::array<float>(wraps), jet::shape_error);  // not a 16 KiB allocation
  // Empty shapes count their non-zero extents too, as NumPy's limit does.
  CHECK_THROWS_AS((jet::shape{0, std::int64_t{1} << 32, std::int64_t{1} << 32}.size()), jet::shape_error);
  CHECK_THROWS_AS(jet::array<float>(std::numeric_limits<std::size_t>::max()), jet::shape_error);
  // Elements that fit, bytes that do not: 2^61 doubles are 2^64 bytes, once an allocation of 0.
  CHECK_THROWS_AS(jet::array<double>(jet::shape{std::int64_t{1} << 61}), jet::shape_error);
  CHECK_THROWS_AS(jet::view<double>(reinterpret_cast<double*>(0x10000), jet::shape{std::int64_t{1} << 61}),
                  jet::shape_error);
}

TEST_CASE("bad input: a view whose furthest element is past 2^63 - 1 elements or bytes away is a shape_error",
          "[cpu][errors][bad_input]") {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max(), min = std::numeric_limits<std::int64_t>::min();
  auto* p = reinterpret_cast<float*>(0x10000);
  try {
    jet::view<float>(p, jet::shape{2, 2}, {max, 1});
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(contains(e.what(), "shape (2, 2) with strides (9223372036854775807, 1)"));
  }
  CHECK_THROWS_AS(jet::view<float>(p, jet::shape{3}, {min}), jet::shape_error);
  CHECK_THROWS_AS(jet::view<float>(p, jet::shape{3}, {max / 4}), jet::shape_error);  // 2 * (2^61 - 1) elements: bytes
  CHECK_NOTHROW(jet::view<float>(p, jet::shape{3}, {max / 16}));
  CHECK_NOTHROW(jet::view<float>(p, jet::shape{1, 4}, {min, 1}));  // a stride of extent 1 is never taken
  // The core checks layouts that did not come through a view, before planning.
  const jet::detail::kernel_desc& desc = copy_desc();
  jet::detail::kernel_slot slot;
  const jet::detail::layout far{jet::shape{2}, {max}}, out = jet::detail::layout::contiguous(jet::shape{2});
  void* outputs[] = {reinterpret_cast<void*>(0x20000)};
  const void* inputs[] = {p};
  const jet::detail::layout* input_layouts[] = {&far};
  CHECK_THROWS_AS(jet::detail::evaluate({desc, slot, outputs, &out, inputs, input_layouts, nullptr}), jet::shape_error);
}

TEST_CASE("bad input: operands whose broadcast shape has more than 2^63 - 1 elements are a shape_error",
          "[cpu][errors][bad_input]") {
  constexpr std::int64_t n = std::int64_t{1} << 32;
  auto x = fake_nd({n}, 0x10000), y = fake_nd({n, 1}, 0x20000);
  const auto names_both = [](const std::string& message) {
    INFO(message);
    return contains(message, "(4294967296, 4294967296)") && contains(message, "in0 + in1");
  };
  try {
    jet::array<float> z = x + y;  // was (2^32, 2^32) of size 0: null data, no error
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(names_both(e.what()));
  }
  try {
    jet::sum(x + y);
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(names_both(e.what()));
  }
  CHECK_THROWS_AS(fake_nd({1}, 0x10000).broadcast_to({n, n}), jet::shape_error);
}
