// User-defined element functions (JET_FUNCTION): fused like any op, checked before their text
// reaches a kernel, compile errors surfaced with NVRTC's log. No GPU needed.
#include "support/catch.hpp"
#include "support/operands.hpp"

#include "compiler.hpp"

#include <jet/jet.hpp>

#include <string>

JET_FUNCTION(scaled_product, float(float a, float b), "return a * b + 1.0f;");
JET_FUNCTION(mixed_types, double(int count, double weight), "return count * weight;");
JET_FUNCTION(broken_body, float(float a), "return a +;");

namespace {

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// User functions whose text jet must refuse; they could only come from code that bypasses
// JET_FUNCTION, so they are declared by hand here.
struct evil_name : jet::detail::user_function_tag<float(float a)> {
  static constexpr jet::detail::user_function function{"a); } __global__ void evil(", "float(float a)", "return a;"};
};
struct evil_parameter : jet::detail::user_function_tag<float(float a)> {
  static constexpr jet::detail::user_function function{"f", "float(float a); } __global__ void evil(float b)",
                                                       "return a;"};
};
struct evil_body : jet::detail::user_function_tag<float(float a)> {
  static constexpr jet::detail::user_function function{"g", "float(float a)", "return a; } __global__ void evil() {"};
};
struct evil_type : jet::detail::user_function_tag<float(float a)> {
  static constexpr jet::detail::user_function function{"h", "float(struct{} a)", "return 0;"};
};

}  // namespace

TEST_CASE("a JET_FUNCTION is fused into the kernel like an op", "[cpu][function]") {
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>(8, 0x20000);
  const auto e = jet::relu(scaled_product(x, y) - 2.0f);
  const std::string src = jet::source(e);
  CAPTURE(src);
  CHECK(contains(src, "__device__ __forceinline__ float jet_user_scaled_product(float a, float b) {\nreturn a * b + 1.0f;\n}"));
  CHECK(contains(src, "jet_user_scaled_product(x0, x1)"));
  CHECK(jet::detail::expression_text(jet::detail::default_kernel<decltype(e)>::desc) ==
        "relu(scaled_product(in0, in1) - s0)");
  CHECK(jet::compile(e, jet::arch{90}).cubin.size() > 0);
}

TEST_CASE("operands are converted to a JET_FUNCTION's parameter types", "[cpu][function]") {
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>(8, 0x20000);
  const auto e = mixed_types(x, y);
  STATIC_REQUIRE(std::remove_cvref_t<decltype(e)>::type == jet::dtype::float64);
  const std::string src = jet::source(e);
  // float to int as a cast converts (saturating, NaN to 0); float to double as C++ does.
  CHECK(contains(src, "jet_user_mixed_types(jet_convert<int>(x0), static_cast<double>(x1))"));
  CHECK(jet::compile(e * 2.0f, jet::arch{90}).cubin.size() > 0);
}

TEST_CASE("a JET_FUNCTION body that does not compile surfaces NVRTC's log", "[cpu][function][errors]") {
  auto x = jet::test::fake_view<float>();
  try {
    jet::compile(broken_body(x), jet::arch{90});
    FAIL("no exception");
  } catch (const jet::compile_error& e) {
    CHECK(contains(e.log, "error"));
    CHECK(contains(e.source, "return a +;"));
    CHECK(e.expression == "broken_body(in0)");
  }
}

TEST_CASE("user text that could escape its function is refused", "[cpu][function][errors]") {
  auto x = jet::test::fake_view<float>();
  auto refuses = [](const auto& e, const std::string& why) {
    try {
      jet::source(e);
      FAIL("no exception");
    } catch (const jet::invalid_argument& error) {
      CHECK(contains(error.what(), why));
    }
  };
  refuses(jet::detail::make_call<evil_name>(x), "the name is not an identifier");
  refuses(jet::detail::make_call<evil_parameter>(x), "has no supported type");
  refuses(jet::detail::make_call<evil_body>(x), "closes a brace it did not open");
  refuses(jet::detail::make_call<evil_type>(x), "has no supported type");
}
