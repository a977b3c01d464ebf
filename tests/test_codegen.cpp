// Generated source: one masked kernel per expression, each distinct input a parameter loaded once,
// scalars as arguments, the aliasing and alignment variants.
#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/operands.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <string>

namespace {

using jet::test::occurrences;

using jet::test::desc_of;

}  // namespace

TEST_CASE("relu(x + y) is one masked kernel with one named temporary per node", "[cpu][codegen]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8, 0x20000);
  const std::string src = jet::source(jet::relu(x + y));
  CAPTURE(src);
  CHECK(occurrences(src, "__global__") == 1);
  CHECK(occurrences(src, "extern \"C\"") == 1);
  CHECK(src.find("jet_kernel(float* __restrict__ out0, const float* __restrict__ in0, const float* __restrict__ in1, "
                 "const unsigned long long n)") != std::string::npos);
  CHECK(src.find("i < n") != std::string::npos);  // the tutorial's mask
  CHECK(src.find("const float t2 = jet_add(x0, x1);") != std::string::npos);
  CHECK(src.find("const float t3 = jet_relu(t2);") != std::string::npos);
  CHECK(src.find("vec = 4") != std::string::npos);   // 16-byte accesses for float
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
  // From floating to integer an operand converts as a cast does, through jet_convert (NaN to 0,
  // saturating): a static_cast is undefined out of range, and on the GPU takes NaN elsewhere (the
  // fuzzer's philox_uniform cases, tests/README.md).
  auto f = jet::test::fake_view<float>(8);
  const std::string random = jet::source(jet::philox_uniform(f, d));
  CAPTURE(random);
  CHECK(random.find("jet_philox_uniform(jet_convert<long long>(x0), jet_convert<long long>(x1))") != std::string::npos);
  CHECK(random.find("static_cast<long long>") == std::string::npos);
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
  CHECK(occurrences(src, "const float* __restrict__ in") == 2);
  const unsigned vectors = jet::detail::shape_of(v).ilp;  // each vector of the thread's tile, written out
  CHECK(occurrences(src, "v0[k] = ") == vectors);
  CHECK(occurrences(src, "v1[k] = ") == vectors);
  CHECK(src.find("v2[k]") == std::string::npos);
  CHECK(src.find("jet_mul(x0, x0)") != std::string::npos);
  CHECK(src.find("jet_mul(x1, x0)") != std::string::npos);
}

TEST_CASE("the last tile takes a block per `threads` elements, one each, and the kernel has no loop",
          "[cpu][codegen]") {
  auto x = jet::test::fake_view<float>(8), y = jet::test::fake_view<float>(8);
  const auto& d = desc_of(jet::relu(x + y));
  const jet::detail::variant_key v = jet::detail::default_variant(d);
  const std::string src = jet::detail::generate_source(d, v);
  CAPTURE(src);
  CHECK(src.find("for (") == std::string::npos);  // unrolled in the source, and no loop over the tail
  CHECK(src.find("if (i < n)") != std::string::npos);
  const auto shape = jet::detail::shape_of(v);
  const std::size_t tile = shape.tile(), threads = shape.threads;
  CHECK(jet::detail::grid_of(v, 0, nullptr).blocks == 0);
  CHECK(jet::detail::grid_of(v, 1, nullptr).blocks == 1);
  CHECK(jet::detail::grid_of(v, 5 * tile, nullptr).blocks == 5);
  CHECK(jet::detail::grid_of(v, 5 * tile + 1, nullptr).blocks == 6);
  CHECK(jet::detail::grid_of(v, 5 * tile + threads, nullptr).blocks == 6);
  CHECK(jet::detail::grid_of(v, 5 * tile + threads + 1, nullptr).blocks == 7);
  CHECK(jet::detail::grid_of(v, 6 * tile - 1, nullptr).blocks == 5 + tile / threads);
  CHECK(jet::detail::grid_of(v, 5 * tile, nullptr).threads == threads);
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

TEST_CASE("float16 is stored as its bits, widened on load and rounded on store, with no header", "[cpu][codegen]") {
  auto x = jet::test::fake_view<jet::float16>(8), y = jet::test::fake_view<jet::float16>(8, 0x20000);
  const std::string src = jet::source(jet::relu(x * 2.0 + y));
  CAPTURE(src);
  CHECK(src.find("#include") == std::string::npos);
  CHECK(src.find("__half") == std::string::npos);
  CHECK(src.find("jet_kernel(unsigned short* __restrict__ out0, const unsigned short* __restrict__ in0, "
                 "const unsigned short* __restrict__ in1, const double s0, const unsigned long long n)") !=
        std::string::npos);
  CHECK(occurrences(src, "asm(\"cvt.f32.f16 %0, %1;\"") == 1);
  CHECK(occurrences(src, "asm(\"cvt.rn.f16.f32 %0, %1;\"") == 1);
  CHECK(src.find("bfloat16") == std::string::npos);  // only the conversions the kernel uses
  CHECK(src.find("const float x0 = jet_float16_to_float(stored_x0);") != std::string::npos);
  CHECK(src.find("const float t2 = jet_mul(x0, static_cast<float>(s0));") != std::string::npos);  // float32 math
  CHECK(src.find("const float t5 = jet_relu(t4);") != std::string::npos);
  CHECK(src.find("o0 = jet_float_to_float16(t5);") != std::string::npos);
  CHECK(src.find("vec = 8") != std::string::npos);  // 8 halves in 16 bytes
  CHECK(src.find("jet_vec<unsigned short, vec> v0[ilp];") != std::string::npos);
}

TEST_CASE("bfloat16 widens by a shift and rounds by cvt.rn.bf16.f32, and a cast to it rounds in place",
          "[cpu][codegen]") {
  auto b = jet::test::fake_view<jet::bfloat16>(8);
  auto f = jet::test::fake_view<float>(8, 0x20000);
  const std::string src = jet::source(jet::cast<jet::bfloat16>(f * f) + b);
  CAPTURE(src);
  CHECK(src.find("#include") == std::string::npos);
  CHECK(src.find("return __uint_as_float(static_cast<unsigned>(h) << 16);") != std::string::npos);
  CHECK(occurrences(src, "asm(\"cvt.rn.bf16.f32 %0, %1;\"") == 1);
  CHECK(src.find("cvt.rn.f16.f32") == std::string::npos);
  CHECK(src.find("const float t3 = jet_bfloat16_to_float(jet_float_to_bfloat16(jet_cast(t2)));") != std::string::npos);
  CHECK(src.find("const float t5 = jet_add(t3, x1);") != std::string::npos);  // no rounding but the cast's
  CHECK(src.find("o0 = jet_float_to_bfloat16(t5);") != std::string::npos);
  CHECK(src.find("vec = 4") != std::string::npos);  // the float operand sets the width
}

TEST_CASE("a kernel without 16-bit floats carries no conversions", "[cpu][codegen]") {
  auto x = jet::test::fake_view<float>(8);
  const std::string src = jet::source(jet::exp(x) + 1.f);
  CHECK(src.find("jet_float_to_") == std::string::npos);
  CHECK(src.find("unsigned short") == std::string::npos);
}

TEST_CASE("narrow integers compute in their own type: each node converts back, so arithmetic wraps", "[cpu][codegen]") {
  auto a = jet::test::fake_view<std::int8_t>(8), b = jet::test::fake_view<std::int8_t>(8, 0x20000);
  const std::string src = jet::source(a * b + 1);
  CAPTURE(src);
  CHECK(src.find("const signed char t2 = jet_mul(x0, x1);") != std::string::npos);
  CHECK(src.find("const signed char t4 = jet_add(t2, static_cast<signed char>(s0));") != std::string::npos);
  CHECK(src.find("vec = 16") != std::string::npos);
  auto flags = jet::test::fake_view<bool>(8, 0x30000);
  const std::string compare = jet::source(flags == (a < b));
  CHECK(
      compare.find("jet_kernel(bool* __restrict__ out0, const bool* __restrict__ in0, const signed char* __restrict__ "
                   "in1, const signed char* __restrict__ in2,") != std::string::npos);
  auto u = jet::test::fake_view<std::uint32_t>(8);
  CHECK(jet::source(u * 3u).find("const unsigned int s0") != std::string::npos);  // unsigned scalars
}
