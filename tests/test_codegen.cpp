// Generated source: one masked kernel per expression, each distinct input a parameter loaded once,
// scalars as arguments, the aliasing and alignment variants.
#include "support/catch.hpp"
#include "support/operands.hpp"

#include "codegen.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <string>

namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

template <class E> const jet::detail::kernel_desc& desc_of(const E&) {
  return jet::detail::kernel_of<jet::detail::roots<std::remove_cvref_t<E>>, jet::cpp_type<std::remove_cvref_t<E>::type>>::desc;
}

}  // namespace

TEST_CASE("relu(x + y) is one masked kernel with one named temporary per node", "[cpu][codegen]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8);
  const std::string src = jet::source(jet::relu(x + y));
  CAPTURE(src);
  CHECK(count(src, "__global__") == 1);
  CHECK(count(src, "extern \"C\"") == 1);
  CHECK(src.find("jet_kernel(float* __restrict__ out0, const float* __restrict__ in0, const float* __restrict__ in1, "
                 "const unsigned long long n)") != std::string::npos);
  CHECK(src.find("i < n") != std::string::npos);  // the tutorial's mask
  CHECK(src.find("const float t2 = jet_add(x0, x1);") != std::string::npos);
  CHECK(src.find("const float t3 = jet_relu(t2);") != std::string::npos);
  CHECK(src.find("vec = 4") != std::string::npos);  // 16-byte accesses for float
  CHECK(src.find("#include") == std::string::npos);  // no headers
}

TEST_CASE("scalars are kernel arguments, never part of the source", "[cpu][codegen]") {
  auto x = jet::test::fake_view<float>(8);
  const std::string a = jet::source(x * 2.5f + 1.f);
  const std::string b = jet::source(x * 3.75f + 9.f);
  CHECK(a == b);
  CHECK(a.find("3.75") == std::string::npos);
  CHECK(a.find("const float s0, const float s1") != std::string::npos);
}

TEST_CASE("operands of other dtypes are converted explicitly", "[cpu][codegen]") {
  auto i = jet::test::fake_view<std::int32_t>(8);
  auto d = jet::test::fake_view<double>(8);
  const std::string src = jet::source(i + d);
  CHECK(src.find("jet_add(static_cast<double>(x0), x1)") != std::string::npos);
  CHECK(src.find("vec = 2") != std::string::npos);  // the widest operand (double) sets the width
  CHECK(src.find("const int* __restrict__ in0") != std::string::npos);
}

TEST_CASE("each distinct input is one parameter, loaded once", "[cpu][codegen]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8, 0x20000);
  auto e = x * x + y * x;  // slots in0..in3 = x, x, y, x
  const auto& d = desc_of(e);
  jet::detail::variant_key v = jet::detail::default_variant(d);
  v.unique_of[0] = 0, v.unique_of[1] = 0, v.unique_of[2] = 1, v.unique_of[3] = 0;
  const std::string src = jet::detail::generate_source(d, v);
  CAPTURE(src);
  CHECK(jet::detail::distinct_inputs(d, v) == 2);
  CHECK(count(src, "const float* __restrict__ in") == 2);
  CHECK(count(src, "v0[k] = ") == 1);
  CHECK(count(src, "v1[k] = ") == 1);
  CHECK(src.find("v2[k]") == std::string::npos);
  CHECK(src.find("jet_mul(x0, x0)") != std::string::npos);
  CHECK(src.find("jet_mul(x1, x0)") != std::string::npos);
}

TEST_CASE("an output that aliases an input drops __restrict__", "[cpu][codegen]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8);
  const auto& d = desc_of(x + y);
  jet::detail::variant_key v = jet::detail::default_variant(d);
  v.out_aliases_input = true;
  const std::string src = jet::detail::generate_source(d, v);
  CHECK(src.find("__restrict__") == std::string::npos);
}

TEST_CASE("misaligned operands get the scalar variant", "[cpu][codegen]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8);
  const auto& d = desc_of(x + y);
  jet::detail::variant_key v = jet::detail::default_variant(d);
  v.vec = 1;
  const std::string src = jet::detail::generate_source(d, v);
  CHECK(src.find("vec = 1") != std::string::npos);
  const auto shape = jet::detail::shape_of(v);
  CHECK(shape.tile() == shape.threads * shape.ilp);
}
