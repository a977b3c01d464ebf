// Expression types: dtypes and promotion, flattening, description text, shape checks. No GPU:
// operands are views over made-up addresses, which nothing dereferences.
#include "support/catch.hpp"
#include "support/operands.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <type_traits>

namespace {

template <class E> constexpr jet::dtype type_of(const E&) { return std::remove_cvref_t<E>::type; }

template <class E> const jet::detail::kernel_desc& desc_of(const E&) {
  return jet::detail::kernel_of<jet::detail::roots<std::remove_cvref_t<E>>, float>::desc;
}

}  // namespace

TEST_CASE("building an expression does no work and has a static type", "[cpu][expr]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8);
  auto e = jet::relu(x + y);
  using E = decltype(e);
  STATIC_REQUIRE(jet::expression<E>);
  STATIC_REQUIRE(E::node_count == 4);
  STATIC_REQUIRE(E::input_count == 2);
  STATIC_REQUIRE(E::scalar_count == 0);
  STATIC_REQUIRE(std::is_same_v<E, jet::apply<jet::ops::relu, jet::apply<jet::ops::add, jet::terminal<float>,
                                                                          jet::terminal<float>>>>);
}

TEST_CASE("promotion follows the documented rules", "[cpu][expr][dtype]") {
  using jet::dtype;
  auto f = jet::test::fake_view<float>(4);
  auto d = jet::test::fake_view<double>(4);
  auto i = jet::test::fake_view<std::int32_t>(4);
  auto l = jet::test::fake_view<std::int64_t>(4);
  // array with array: category, then width
  CHECK(type_of(f + d) == dtype::float64);
  CHECK(type_of(i + f) == dtype::float32);
  CHECK(type_of(l + f) == dtype::float32);
  CHECK(type_of(i + l) == dtype::int64);
  // a C++ scalar is weak: it decides only when its category is higher
  CHECK(type_of(f * 2.0) == dtype::float32);
  CHECK(type_of(2 * f) == dtype::float32);
  CHECK(type_of(i * 2) == dtype::int32);
  CHECK(type_of(i * 2L) == dtype::int32);
  CHECK(type_of(i * 0.5) == dtype::float64);
  CHECK(type_of(i * 0.5f) == dtype::float32);
  CHECK(type_of(l + 1) == dtype::int64);
  // comparisons give bool; arithmetic on bool computes as int32
  CHECK(type_of(f < d) == dtype::boolean);
  CHECK(type_of((f < 1.f) + (f > 2.f)) == dtype::int32);
  // where promotes its branches, not its condition
  CHECK(type_of(jet::where(f < 0.f, i, l)) == dtype::int64);
  CHECK(type_of(jet::where(i < 0, 1.f, i)) == dtype::float32);
  // floating functions of integers compute in float64, like std::exp(int)
  CHECK(type_of(jet::exp(i)) == dtype::float64);
  CHECK(type_of(jet::exp(f)) == dtype::float32);
  CHECK(type_of(jet::sqrt(i * 2.f)) == dtype::float32);
  CHECK(type_of(jet::relu(i)) == dtype::int32);
  CHECK(type_of(jet::abs(i)) == dtype::int32);
  CHECK(type_of(jet::cast<std::int64_t>(f)) == dtype::int64);
  CHECK(type_of(jet::cast<float>(l)) == dtype::float32);
  CHECK(type_of(jet::clamp(i, 0, 1.5)) == dtype::float64);
  CHECK(type_of(jet::fma(f, d, 1)) == dtype::float64);
}

TEST_CASE("operands are converted to the operand dtype of their node", "[cpu][expr][dtype]") {
  auto i = jet::test::fake_view<std::int32_t>(4);
  auto d = jet::test::fake_view<double>(4);
  auto e = jet::where(i < d, i, 2.5f);
  const auto& desc = desc_of(e);
  const auto& top = desc.nodes[desc.node_count - 1];
  CHECK(top.op == jet::detail::op_id::where);
  CHECK(top.arg_type[0] == jet::dtype::boolean);
  CHECK(top.arg_type[1] == jet::dtype::float32);
  CHECK(top.arg_type[2] == jet::dtype::float32);
  const auto& less = desc.nodes[top.arg[0]];
  CHECK(less.arg_type[0] == jet::dtype::float64);
  CHECK(less.arg_type[1] == jet::dtype::float64);
}

TEST_CASE("the description is flattened in post-order with leaf slots left to right", "[cpu][expr]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8);
  auto e = 2.0f * x - jet::exp(-y) / (1.0f + x * x);
  const auto& d = desc_of(e);
  CHECK(d.input_count == 4);  // slots: x, y, x, x (distinct memory is found at run time)
  CHECK(d.scalar_count == 2);
  CHECK(jet::detail::expression_text(d) == "(s0 * in0) - (exp(-in1) / (s1 + (in2 * in3)))");
  CHECK(d.nodes[d.node_count - 1].op == jet::detail::op_id::sub);
  STATIC_REQUIRE(jet::detail::kernel_of<jet::detail::roots<decltype(e)>, float>::desc.hash != 0);
}

TEST_CASE("the same tree gives the same description whatever its operands' values", "[cpu][expr]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8, 0x20000);
  auto a = desc_of(x * 2.f + y);
  auto b = desc_of(y * 7.f + x);
  CHECK(a.hash == b.hash);
  CHECK(&a.nodes[0] == &b.nodes[0]);  // one static description per expression type
  auto c = desc_of(x * 2.0 + y);      // a double scalar is another type: another kernel
  CHECK(c.hash != a.hash);
}

TEST_CASE("mismatched sizes are a shape_error naming both sizes", "[cpu][expr][errors]") {
  auto x = jet::test::fake_view<float>(1024), y = jet::test::fake_view<float>(1000, 0x20000);
  auto out = jet::test::fake_view<float>(1024, 0x30000);
  try {
    out = x + y;
    FAIL("no exception");
  } catch (const jet::shape_error& e) {
    const std::string what = e.what();
    CHECK(what.find("1024") != std::string::npos);
    CHECK(what.find("1000") != std::string::npos);
    CHECK(what.find("in0 + in1") != std::string::npos);
  }
  auto small = jet::test::fake_view<float>(10, 0x40000);
  CHECK_THROWS_AS(small = x * 2.f, jet::shape_error);
}

TEST_CASE("a view refuses a null pointer with elements", "[cpu][expr][errors]") {
  CHECK_THROWS_AS(jet::view<float>(nullptr, 3), jet::invalid_argument);
  CHECK_NOTHROW(jet::view<float>(nullptr, 0));
}
