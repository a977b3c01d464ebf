// Expression types: dtypes and promotion, flattening, description text, shape checks. No GPU:
// operands are views over made-up addresses, which nothing dereferences.
#include "support/catch.hpp"
#include "support/operands.hpp"

#include <jet/jet.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>

namespace {

template <class E> constexpr jet::dtype type_of(const E&) { return std::remove_cvref_t<E>::type; }

// The kernels these tests describe store float32.
template <class E> const jet::detail::kernel_desc& desc_of(const E& e) { return jet::test::desc_of<float>(e); }

}  // namespace

TEST_CASE("building an expression does no work and has a static type", "[cpu][expr]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8);
  auto e = jet::relu(x + y);
  using E = decltype(e);
  STATIC_REQUIRE(jet::expression<E>);
  STATIC_REQUIRE(E::node_count == 4);
  STATIC_REQUIRE(E::input_count == 2);
  STATIC_REQUIRE(E::scalar_count == 0);
  STATIC_REQUIRE(std::is_same_v<
                 E, jet::apply<jet::ops::relu, jet::apply<jet::ops::add, jet::terminal<float>, jet::terminal<float>>>>);
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

namespace promotion_table {
using jet::dtype;
constexpr dtype b = dtype::boolean, i8 = dtype::int8, u8 = dtype::uint8, i16 = dtype::int16, i32 = dtype::int32,
                u32 = dtype::uint32, i64 = dtype::int64, u64 = dtype::uint64, f16 = dtype::float16,
                bf16 = dtype::bfloat16, f32 = dtype::float32, f64 = dtype::float64, c64 = dtype::complex64,
                c128 = dtype::complex128;
constexpr dtype order[] = {b, i8, u8, i16, i32, u32, i64, u64, f16, bf16, f32, f64, c64, c128};
constexpr int count = static_cast<int>(std::size(order));
// README's table, row + column. NumPy 2's result_type, except where a floating type meets an
// integer (the floating type wins as it is, as in PyTorch) and for bfloat16, which NumPy lacks.
// clang-format off
constexpr dtype expected[count][count] = {
    //  b    i8    u8   i16   i32   u32   i64   u64   f16  bf16   f32   f64   c64  c128
    {   b,   i8,   u8,  i16,  i32,  u32,  i64,  u64,  f16, bf16,  f32,  f64,  c64, c128},  // b
    {  i8,   i8,  i16,  i16,  i32,  i64,  i64,  f64,  f16, bf16,  f32,  f64, c128, c128},  // i8
    {  u8,  i16,   u8,  i16,  i32,  u32,  i64,  u64,  f16, bf16,  f32,  f64, c128, c128},  // u8
    { i16,  i16,  i16,  i16,  i32,  i64,  i64,  f64,  f16, bf16,  f32,  f64, c128, c128},  // i16
    { i32,  i32,  i32,  i32,  i32,  i64,  i64,  f64,  f16, bf16,  f32,  f64, c128, c128},  // i32
    { u32,  i64,  u32,  i64,  i64,  u32,  i64,  u64,  f16, bf16,  f32,  f64, c128, c128},  // u32
    { i64,  i64,  i64,  i64,  i64,  i64,  i64,  f64,  f16, bf16,  f32,  f64, c128, c128},  // i64
    { u64,  f64,  u64,  f64,  f64,  u64,  f64,  u64,  f16, bf16,  f32,  f64, c128, c128},  // u64
    { f16,  f16,  f16,  f16,  f16,  f16,  f16,  f16,  f16,  f32,  f32,  f64,  c64, c128},  // f16
    {bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16,  f32, bf16,  f32,  f64,  c64, c128},  // bf16
    { f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f32,  f64,  c64, c128},  // f32
    { f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64,  f64, c128, c128},  // f64
    { c64, c128, c128, c128, c128, c128, c128, c128,  c64,  c64,  c64, c128,  c64, c128},  // c64
    {c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128},  // c128
};
// clang-format on

// The expression layer agrees: where(flags, a, b) of views of every pair of element types (where
// only promotes its branches, and takes complex ones).
template <class A, class... B> void check_row(int row) {
  const auto a = jet::test::fake_view<A>(4);
  const auto flags = jet::test::fake_view<bool>(4);
  int column = 0;
  const auto check = [&](const auto& b) {
    INFO("where(flags, " << jet::name(order[row]) << ", " << jet::name(order[column]) << ")");
    CHECK(type_of(jet::where(flags, a, b)) == expected[row][column]);
    ++column;
  };
  (check(jet::test::fake_view<B>(4)), ...);
}
template <class... T> void check_rows(std::tuple<T...>*) {
  int row = 0;
  (check_row<T, T...>(row++), ...);
}
}  // namespace promotion_table

TEST_CASE("promotion of every pair of array dtypes follows the table", "[cpu][expr][dtype]") {
  using namespace promotion_table;
  for (int r = 0; r < count; ++r)
    for (int c = 0; c < count; ++c) {
      INFO(jet::name(order[r]) << " with " << jet::name(order[c]));
      CHECK(jet::promote(order[r], order[c]) == expected[r][c]);
      CHECK(jet::promote(order[r], false, order[c], false) == expected[r][c]);
    }
  check_rows(static_cast<jet::detail::element_types*>(nullptr));
}

TEST_CASE("a C++ scalar stays weak in every dtype", "[cpu][expr][dtype]") {
  using jet::dtype;
  auto i8 = jet::test::fake_view<std::int8_t>(4);
  auto u8 = jet::test::fake_view<std::uint8_t>(4);
  auto u64 = jet::test::fake_view<std::uint64_t>(4);
  auto h = jet::test::fake_view<jet::float16>(4);
  auto bf = jet::test::fake_view<jet::bfloat16>(4);
  auto flags = jet::test::fake_view<bool>(4);
  CHECK(type_of(i8 + 1) == dtype::int8);  // an int never widens an int8 array
  CHECK(type_of(i8 * 300L) == dtype::int8);
  CHECK(type_of(i8 + 1u) == dtype::int8);
  CHECK(type_of(u8 - 1) == dtype::uint8);
  CHECK(type_of(u64 * -1) == dtype::uint64);
  CHECK(type_of(i8 * 0.5f) == dtype::float32);  // a higher category: the scalar's C++ type
  CHECK(type_of(i8 * 0.5) == dtype::float64);
  CHECK(type_of(h * 2.0) == dtype::float16);  // a double scalar with a float16 array
  CHECK(type_of(h + 1) == dtype::float16);
  CHECK(type_of(bf * 2.0f) == dtype::bfloat16);
  CHECK(type_of(jet::where(flags, h, 0.5)) == dtype::float16);
  CHECK(type_of(jet::min(flags, true)) == dtype::boolean);
  CHECK(type_of(jet::min(flags, 2)) == dtype::int32);
  CHECK(type_of(jet::min(flags, 2u)) == dtype::uint32);
  CHECK(type_of(jet::min(flags, 2ull)) == dtype::uint64);
  CHECK(type_of(jet::min(flags, 2.0)) == dtype::float64);
  CHECK(type_of(h + bf) == dtype::float32);
  CHECK(type_of(h + jet::test::fake_view<float>(4)) == dtype::float32);
  CHECK(type_of(i8 + h) == dtype::float16);
  CHECK(type_of(jet::exp(h)) == dtype::float16);  // floating ops keep a floating type
  CHECK(type_of(jet::exp(u8)) == dtype::float64);
  CHECK(type_of(h < 1) == dtype::boolean);
}

TEST_CASE("C++ scalars take the dtype of their promoted C++ type", "[cpu][expr][dtype]") {
  using jet::dtype;
  STATIC_REQUIRE(jet::scalar_dtype_of<bool>() == dtype::boolean);
  STATIC_REQUIRE(jet::scalar_dtype_of<char>() == dtype::int32);
  STATIC_REQUIRE(jet::scalar_dtype_of<unsigned char>() == dtype::int32);  // as C++ promotes it
  STATIC_REQUIRE(jet::scalar_dtype_of<short>() == dtype::int32);
  STATIC_REQUIRE(jet::scalar_dtype_of<int>() == dtype::int32);
  STATIC_REQUIRE(jet::scalar_dtype_of<unsigned>() == dtype::uint32);
  STATIC_REQUIRE(jet::scalar_dtype_of<long>() == dtype::int64);
  STATIC_REQUIRE(jet::scalar_dtype_of<long long>() == dtype::int64);
  STATIC_REQUIRE(jet::scalar_dtype_of<unsigned long>() == dtype::uint64);
  STATIC_REQUIRE(jet::scalar_dtype_of<unsigned long long>() == dtype::uint64);
  STATIC_REQUIRE(jet::scalar_dtype_of<float>() == dtype::float32);
  STATIC_REQUIRE(jet::scalar_dtype_of<double>() == dtype::float64);
}

TEST_CASE("every dtype names its C++ type, its CUDA storage and its size", "[cpu][expr][dtype]") {
  using jet::dtype;
  STATIC_REQUIRE(jet::dtype_of<jet::cpp_type<dtype::uint32>>() == dtype::uint32);
  STATIC_REQUIRE(std::is_same_v<jet::cpp_type<dtype::float16>, jet::float16>);
  STATIC_REQUIRE(std::is_same_v<jet::cpp_type<dtype::bfloat16>, jet::bfloat16>);
  STATIC_REQUIRE(std::is_same_v<jet::cpp_type<dtype::int8>, std::int8_t>);
  STATIC_REQUIRE(jet::is_element_type_v<bool>);
  STATIC_REQUIRE(!jet::is_element_type_v<char>);  // neither int8_t nor uint8_t
  STATIC_REQUIRE(!jet::is_element_type_v<long double>);
  for (dtype d : promotion_table::order) {
    INFO(jet::name(d));
    CHECK(jet::size_of(d) == (d == dtype::boolean || d == dtype::int8 || d == dtype::uint8       ? 1
                              : d == dtype::int16 || d == dtype::float16 || d == dtype::bfloat16 ? 2
                              : d == dtype::int32 || d == dtype::uint32 || d == dtype::float32   ? 4
                              : d == dtype::complex128                                           ? 16
                                                                                                 : 8));
    CHECK(jet::compute_type(d) == (d == dtype::float16 || d == dtype::bfloat16 ? dtype::float32 : d));
  }
  CHECK(jet::name(dtype::bfloat16) == "bfloat16");
  CHECK(jet::cuda_name(dtype::float16) == "unsigned short");  // stored as its bits
  CHECK(jet::cuda_name(dtype::int8) == "signed char");        // never plain char, whose sign varies
  CHECK(jet::cuda_name(dtype::uint64) == "unsigned long long");
  STATIC_REQUIRE(std::is_same_v<decltype(jet::eval(jet::test::fake_view<float>() < 1.f)), jet::array<bool>>);
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

namespace {

// Where node type N holds operand k, by offsetof (conditionally supported for a node that holds an
// owning_terminal, which is not standard-layout; g++ and clang support it).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
template <class N> std::array<std::uint32_t, 3> offsets_of() {
  std::array<std::uint32_t, 3> at{static_cast<std::uint32_t>(offsetof(N, first))};
  if constexpr (N::tree.shape.arity > 1) at[1] = static_cast<std::uint32_t>(offsetof(N, second));
  if constexpr (N::tree.shape.arity > 2) at[2] = static_cast<std::uint32_t>(offsetof(N, third));
  return at;
}
#pragma GCC diagnostic pop

// The values of E's leaves as evaluation collects them.
template <class E> auto collected(const E& e) {
  return jet::detail::kernel_of<jet::detail::roots<E>, float>::values_of(e);
}

float scalar_in(const jet::detail::scalar_value& v) {
  float f;
  std::memcpy(&f, v.bytes, sizeof f);
  return f;
}

}  // namespace

TEST_CASE("a node stores its shallowest operand first, where its tree says", "[cpu][expr]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8, 0x20000);
  const auto deep = -(-y);
  const auto swapped = deep * x;                            // x first
  const auto in_order = x * deep;                           // x first
  const auto middle = jet::where(deep > 1.0f, 2.0f, deep);  // the scalar first
  const auto last = jet::where(deep > 1.0f, deep, 2.0f);    // the scalar first
  const auto owning = deep * jet::array<float>();           // a temporary array (no memory), first
  STATIC_REQUIRE(decltype(swapped)::stored_first == 1);
  STATIC_REQUIRE(decltype(in_order)::stored_first == 0);
  STATIC_REQUIRE(decltype(middle)::stored_first == 1);
  STATIC_REQUIRE(decltype(last)::stored_first == 2);
  STATIC_REQUIRE(decltype(owning)::stored_first == 1);
  CHECK(decltype(swapped)::tree.offsets == offsets_of<decltype(swapped)>());
  CHECK(decltype(in_order)::tree.offsets == offsets_of<decltype(in_order)>());
  CHECK(decltype(middle)::tree.offsets == offsets_of<decltype(middle)>());
  CHECK(decltype(last)::tree.offsets == offsets_of<decltype(last)>());
  CHECK(decltype(owning)::tree.offsets == offsets_of<decltype(owning)>());
  CHECK(decltype(deep)::tree.offsets == offsets_of<decltype(deep)>());
}

TEST_CASE("leaves are collected in slot order from wherever their nodes store them", "[cpu][expr]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(4, 0x20000);
  const jet::array<float> a;  // an array operand refers to it; it has no memory
  const auto e =
      jet::where(-(-x) > 1.0f, 2.0f, y * 3.0f) + (-a * jet::array<float>()) * 4.0f + jet::counter_of(jet::shape{2, 3});
  const auto values = collected(e);
  using E = decltype(e);
  STATIC_REQUIRE(E::input_count == 5);
  STATIC_REQUIRE(E::scalar_count == 4);
  const auto* begin = reinterpret_cast<const unsigned char*>(&e);
  const auto inside = [&](const void* p) {
    const auto* at = static_cast<const unsigned char*>(p);
    return at >= begin && at < begin + sizeof e;
  };
  CHECK(values.input[0] == x.data());  // views: their pointer and layout, copied into the expression
  CHECK(inside(values.layouts[0]));
  CHECK(values.layouts[0]->extents == x.shape());
  CHECK(values.input[1] == y.data());
  CHECK(inside(values.layouts[1]));
  CHECK(values.layouts[1]->extents == y.shape());
  CHECK(values.input[2] == a.data());  // an array: its own layout
  CHECK(values.layouts[2] == &a.layout());
  CHECK(values.input[3] == nullptr);  // the temporary array, kept by the expression
  CHECK(inside(values.layouts[3]) == false);
  CHECK(values.layouts[3]->extents.size() == 0);
  CHECK(values.input[4] == nullptr);  // the counter: no memory, its shape's layout
  CHECK(inside(values.layouts[4]));
  CHECK(values.layouts[4]->extents == jet::shape{2, 3});
  CHECK(scalar_in(values.scalar[0]) == 1.0f);
  CHECK(scalar_in(values.scalar[1]) == 2.0f);
  CHECK(scalar_in(values.scalar[2]) == 3.0f);
  CHECK(scalar_in(values.scalar[3]) == 4.0f);
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
