// N-D shapes, strided views and broadcasting, with no GPU: layout arithmetic, the errors that name
// shapes, and the source and compilation of the strided and multi-output kernel variants.
#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/operands.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "compile/compiler.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <limits>
#include <string>

using jet::test::fake_view;

namespace {

jet::view<float> fake_nd(const jet::shape& s, std::uintptr_t address = 0x100000) {
  return jet::view<float>(reinterpret_cast<float*>(address), s);
}

using jet::test::contains;

}  // namespace

TEST_CASE("shapes print as NumPy does and count their elements", "[cpu][layout]") {
  CHECK(jet::shape{3, 4}.to_string() == "(3, 4)");
  CHECK(jet::shape{5}.to_string() == "(5,)");
  CHECK(jet::shape{}.to_string() == "()");
  CHECK(jet::shape{2, 3, 4}.size() == 24);
  CHECK(jet::shape{}.size() == 1);
  CHECK_THROWS_AS((jet::shape{1, 2, 3, 4, 5, 6, 7, 8, 9}), jet::invalid_argument);
  CHECK_THROWS_AS((jet::shape{2, -1}), jet::invalid_argument);
}

TEST_CASE("slices follow Python's start:stop:step", "[cpu][layout]") {
  auto x = fake_nd({10, 6});
  auto rows = x.slice(0, 1, 9, 2);  // rows 1, 3, 5, 7
  CHECK(rows.shape() == jet::shape{4, 6});
  CHECK(rows.stride(0) == 12);
  CHECK(rows.data() == x.data() + 6);
  auto reversed = x.slice(1, -1, -7, -1);  // columns 5, 4, ..., 0
  CHECK(reversed.shape() == jet::shape{10, 6});
  CHECK(reversed.stride(1) == -1);
  CHECK(reversed.data() == x.data() + 5);
  CHECK(x.slice(1, 4, 2).shape() == jet::shape{10, 0});
  CHECK(x.slice(1, -2, 100).shape() == jet::shape{10, 2});
  CHECK_THROWS_AS(x.slice(0, 0, 5, 0), jet::invalid_argument);
  CHECK_THROWS_AS(x.slice(2, 0, 1), jet::invalid_argument);
}

TEST_CASE("slices of any int64 bounds and step have the elements Python's range gives", "[cpu][layout]") {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max(), min = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t big = std::int64_t{1} << 62;
  struct row {
    std::int64_t extent, start, stop, step, count, first;
  };
  // count and first: len(r) and r[0] of r = range(extent)[start:stop:step], computed by python3.
  const row rows[] = {
      {10, 0, 10, max - 8, 1, 0}, {10, 0, 10, max, 1, 0},     {10, 0, 10, min, 0, 0},     {10, 9, -11, min, 1, 9},
      {10, max, min, -1, 10, 9},  {10, min, max, 1, 10, 0},   {10, min, max, max, 1, 0},  {10, max, min, min, 1, 9},
      {10, -1, min, -3, 4, 9},    {10, min + 1, -1, 2, 5, 0}, {10, max - 1, 0, -2, 5, 9}, {10, 5, max, big, 1, 5},
      {10, -5, min, -big, 1, 5},  {10, 3, 3, 1, 0, 0},        {10, 3, 2, 1, 0, 0},        {10, 2, 3, -1, 0, 0},
      {10, -11, 11, 3, 4, 0},     {10, 11, -11, -3, 4, 9},    {10, 0, 10, 9, 2, 0},       {10, 0, 10, 10, 1, 0},
      {10, 9, 0, -9, 1, 9},       {10, 9, -100, -9, 2, 9},    {0, 0, 10, 1, 0, 0},        {0, min, max, -1, 0, 0},
      {0, max, min, max, 0, 0},   {1, 0, 1, max, 1, 0},       {1, max, min, min, 1, 0},   {1, -1, min, -1, 1, 0},
      {10, 1, 9, 2, 4, 1},        {10, -1, -7, -1, 6, 9},     {10, 4, 2, 1, 0, 0},        {10, -2, 100, 1, 2, 8},
  };
  for (const row& r : rows) {
    INFO("range(" << r.extent << ")[" << r.start << ":" << r.stop << ":" << r.step << "]");
    auto x = fake_nd({3, r.extent});
    const auto s = x.slice(1, r.start, r.stop, r.step);
    CHECK(s.shape() == jet::shape{3, r.count});
    if (r.count == 0) continue;
    CHECK(s.data() == x.data() + r.first);
    CHECK(s.stride(1) == (r.count > 1 ? r.step : 1));  // one element: the step is never taken
  }
}

TEST_CASE("transpose, permute, reshape and broadcast_to", "[cpu][layout]") {
  auto x = fake_nd({2, 3, 4});
  auto t = x.transpose();
  CHECK(t.shape() == jet::shape{4, 3, 2});
  CHECK(t.stride(0) == 1);
  CHECK(t.stride(2) == 12);
  auto p = x.permute({1, 0, 2});
  CHECK(p.shape() == jet::shape{3, 2, 4});
  CHECK(p.stride(1) == 12);
  CHECK_FALSE(p.is_contiguous());
  CHECK_THROWS_AS(x.permute({0, 0, 1}), jet::invalid_argument);
  CHECK(x.reshape({6, 4}).shape() == jet::shape{6, 4});
  CHECK_THROWS_AS(p.reshape({24}), jet::invalid_argument);
  CHECK_THROWS_AS(x.reshape({5, 5}), jet::shape_error);
  auto column = fake_nd({3, 1});
  auto b = column.broadcast_to({2, 3, 4});
  CHECK(b.shape() == jet::shape{2, 3, 4});
  CHECK(b.stride(0) == 0);
  CHECK(b.stride(1) == 1);
  CHECK(b.stride(2) == 0);
  try {
    column.broadcast_to({3, 2, 5});
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(contains(e.what(), "(3, 1)"));
    CHECK(contains(e.what(), "(3, 2, 5)"));
  }
}

TEST_CASE("operands that cannot broadcast are a shape_error naming both shapes", "[cpu][layout][errors]") {
  auto x = fake_nd({3, 4}), y = fake_nd({5}, 0x200000);
  auto out = fake_nd({3, 4}, 0x300000);
  try {
    out = x + y;
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(contains(e.what(), "(3, 4)"));
    CHECK(contains(e.what(), "(5,)"));
    CHECK(contains(e.what(), "in0 + in1"));
  }
  auto wrong = fake_nd({4, 3}, 0x300000);
  try {
    wrong = x * 2.f;
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    CHECK(contains(e.what(), "of shape (3, 4) to an output of shape (4, 3)"));
  }
  auto repeated = fake_nd({4}, 0x300000).broadcast_to({3, 4});
  CHECK_THROWS_AS(repeated = x + 1.f, jet::invalid_argument);  // an output with stride 0
}

TEST_CASE("strided variants index through the multi-index", "[cpu][layout][codegen]") {
  auto x = fake_nd({8, 8}), b = fake_nd({8}, 0x200000);
  auto e = x + b;
  const auto& d = jet::detail::kernel_of<jet::detail::roots<decltype(e)>, float>::desc;
  using jet::detail::access;
  jet::detail::variant_key v = jet::detail::default_variant(d);
  v.rank = 2;
  v.input_access[1] = access::broadcast;
  std::string src = jet::detail::generate_source(d, v);
  CAPTURE(src);
  CHECK(contains(src, "const jet_strides<2> is1"));
  CHECK(contains(src, "const jet_extents<2> extents"));
  CHECK(contains(src, "in1[jet_offset(idx, is1)]"));
  CHECK(contains(src, "v0[k] = *reinterpret_cast<const jet_vec<float, vec>*>(in0 + i);"));
  CHECK(jet::detail::uses_index_space(d, v));
  for (access a : {access::unit, access::broadcast, access::gather}) {
    for (bool index32 : {true, false}) {
      v.input_access[0] = a == access::broadcast ? access::unit : a;
      v.input_access[1] = a;
      v.output_access[0] = a == access::gather ? access::gather : access::linear;
      v.vec = a == access::gather ? 1 : 4;
      v.index32 = index32;
      src = jet::detail::generate_source(d, v);
      CAPTURE(src);
      CHECK(jet::detail::compile_to_cubin(src, 90, jet::detail::describe(d)).image.size() > 0);
    }
  }
}

TEST_CASE("a tuple of expressions is one kernel with several outputs", "[cpu][layout][codegen]") {
  auto x = fake_view<float>(), y = fake_view<float>(8, 0x20000);
  using E1 = decltype(x + y);
  using E2 = decltype(x - y * 2.0);
  const auto& d = jet::detail::kernel_of<jet::detail::roots<E1, E2>, float, double>::desc;
  CHECK(d.out_count == 2);
  CHECK(d.input_count == 4);
  CHECK(jet::detail::describe(d) == "(in0 + in1, in2 - (in3 * s0))");
  const std::string src = jet::detail::generate_source(d, jet::detail::default_variant(d));
  CAPTURE(src);
  CHECK(contains(src, "float* __restrict__ out0, double* __restrict__ out1"));
  CHECK(contains(src, "vec = 2"));  // the double output sets the width
  CHECK(jet::detail::compile_to_cubin(src, 90, jet::detail::describe(d)).image.size() > 0);
}
