// User-defined element functions (JET_FUNCTION): fused like any op, checked before their text
// reaches a kernel, compile errors surfaced with NVRTC's log. No GPU needed.
#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/operands.hpp"
#include "support/stderr_capture.hpp"

#include "compile/compiler.hpp"

#include <jet/jet.hpp>

#include <string>

JET_FUNCTION(scaled_product, float(float a, float b), "return a * b + 1.0f;");
JET_FUNCTION(mixed_types, double(int count, double weight), "return count * weight;");
JET_FUNCTION(broken_body, float(float a), "return a +;");
JET_FUNCTION(soft_relu, float(float v), "return v > 20.f ? v : log(1.f + exp(v));");  // README's
JET_FUNCTION(maybe_returns, float(float a), "if (a > 0.f) return a;");
JET_FUNCTION(unused_local, float(float a), "int unused; return a;");
// The same name as in function_twin.cpp, another body.
JET_FUNCTION(twin, float(float a), "return a + 1.0f;");
std::string twin_source_in_other_file();  // function_twin.cpp

// Seventeen functions, one more than an expression could call before.
#define JET_TEST_STEP(k) JET_FUNCTION(step_##k, float(float a), "return a * 2.0f + " #k ".0f;")
JET_TEST_STEP(0);
JET_TEST_STEP(1);
JET_TEST_STEP(2);
JET_TEST_STEP(3);
JET_TEST_STEP(4);
JET_TEST_STEP(5);
JET_TEST_STEP(6);
JET_TEST_STEP(7);
JET_TEST_STEP(8);
JET_TEST_STEP(9);
JET_TEST_STEP(10);
JET_TEST_STEP(11);
JET_TEST_STEP(12);
JET_TEST_STEP(13);
JET_TEST_STEP(14);
JET_TEST_STEP(15);
JET_TEST_STEP(16);
#undef JET_TEST_STEP

// Braces, quotes and `#` where the compiler does not take them for code: comments, literals, a
// raw string, a digit separator.
JET_FUNCTION(tricky_but_contained, float(float a), R"body(
  // a comment with } and { and #define if(c)
  /* another, over
     two lines: } */
  const char* text = "}{ #include \" %> <%";
  const char close = '}';
  const char* raw = R"x(} "{" #)x";
  const int thousand = 1'000;
  return text[0] == close && raw[0] == close ? a + thousand : a;
)body");

namespace {

using jet::test::contains;

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

// A function of body `Body` (a hand-made JET_FUNCTION, so that one test can try many bodies).
template <const char* Body> struct body_of : jet::detail::user_function_tag<float(float a)> {
  static constexpr jet::detail::user_function function{"f", "float(float a)", Body};
};
template <const char* Body> std::string source_with_body() {
  return jet::source(jet::detail::make_call<body_of<Body>>(jet::test::fake_view<float>()));
}

}  // namespace

TEST_CASE("a JET_FUNCTION is fused into the kernel like an op", "[cpu][function]") {
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>(8, 0x20000);
  const auto e = jet::relu(scaled_product(x, y) - 2.0f);
  const std::string src = jet::source(e);
  CAPTURE(src);
  CHECK(contains(
      src, "__device__ __forceinline__ float jet_user_scaled_product(float a, float b) {\nreturn a * b + 1.0f;\n}"));
  CHECK(contains(src, "jet_user_scaled_product(x0, x1)"));
  CHECK(jet::detail::expression_text(jet::detail::default_kernel<decltype(e)>::desc) ==
        "relu(scaled_product(in0, in1) - s0)");
  CHECK(jet::compile(e, jet::arch{90}).cubin.size() > 0);
  CHECK(jet::compile(soft_relu(x * y + 1.f), jet::arch{90}).cubin.size() > 0);
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

TEST_CASE("JET_FUNCTIONs of one name in two files each run their own body", "[cpu][function]") {
  // One type of the same name in both files was one kernel for the linker: both files' expressions
  // ran one of the bodies.
  const std::string here = jet::source(twin(jet::test::fake_view<float>()));
  const std::string there = twin_source_in_other_file();
  CHECK(contains(here, "return a + 1.0f;"));
  CHECK(!contains(here, "return a + 2.0f;"));
  CHECK(contains(there, "return a + 2.0f;"));
  CHECK(!contains(there, "return a + 1.0f;"));
}

TEST_CASE("an expression may call more than 16 distinct JET_FUNCTIONs", "[cpu][function]") {
  auto x = jet::test::fake_view<float>();
  const auto e = step_16(step_15(step_14(step_13(
      step_12(step_11(step_10(step_9(step_8(step_7(step_6(step_5(step_4(step_3(step_2(step_1(step_0(x)))))))))))))))));
  const std::string src = jet::source(e);
  CHECK(contains(src, "jet_user_step_0(float a)"));
  CHECK(contains(src, "jet_user_step_16(float a)"));
  CHECK(jet::compile(e, jet::arch{90}).cubin.size() > 0);
}

TEST_CASE("braces, quotes and # inside comments and literals stay in the body", "[cpu][function]") {
  auto x = jet::test::fake_view<float>();
  const std::string src = jet::source(tricky_but_contained(x));
  CHECK(contains(src, "raw[0] == close"));
  CHECK(jet::compile(tricky_but_contained(x), jet::arch{90}).cubin.size() > 0);
}

namespace {
// Bodies that could act outside their function (inject a kernel, redefine what jet's code means,
// read files), each with the reason jet gives. Each must be refused before any source exists.
constexpr char comment_hides_brace[] = "return a; /*{*/ } __global__ void evil() { /*}*/";
constexpr char digraph_closes[] = "return a; %> __global__ void evil() <%";
constexpr char digraph_opens[] = "<% return a;";
constexpr char string_hides_brace[] = "const char* s = \"{\"; } __global__ void evil() { return;";
constexpr char char_hides_brace[] = "char c = '{'; } __global__ void evil() { return;";
constexpr char redefine_if[] = "#define if(c) if (true)\nreturn a;";
constexpr char digraph_define[] = "%:define jet_kernel evil\nreturn a;";
constexpr char include[] = "#include \"payload.cuh\"\nreturn a;";
constexpr char pragma[] = "_Pragma(\"unroll\") return a;";
constexpr char reserved_name[] = "return jet_convert<float>(a);";
constexpr char inline_asm[] = "asm(\"} .entry evil {\"); return a;";
constexpr char line_splice[] = "// a comment \\\n} __global__ void evil() { return a;";
constexpr char trigraph[] = "return a; ?\?> __global__ void evil() ?\?<";
constexpr char open_comment[] = "return a; /* ";
constexpr char open_string[] = "return a; \"";
constexpr char open_paren[] = "return (a;";
constexpr char crossed[] = "return (a];";
constexpr char global_kernel[] = "return a; } __global__ void evil() {";
constexpr char extern_declaration[] = "extern float secret; return a;";
constexpr char universal_name[] = "return \\u006a\\u0065t_kernel;";
}  // namespace

TEST_CASE("a body that could act outside its function is refused, naming the function and why",
          "[cpu][function][errors]") {
  auto refuses = [](auto source, const std::string& why) {
    try {
      source();
      FAIL("no exception for " << why);
    } catch (const jet::invalid_argument& error) {
      CAPTURE(error.what());
      CHECK(contains(error.what(), "JET_FUNCTION `f`"));
      CHECK(contains(error.what(), why));
    }
  };
  refuses(source_with_body<comment_hides_brace>, "closes a brace it did not open");
  refuses(source_with_body<digraph_closes>, "closes a brace it did not open");
  refuses(source_with_body<digraph_opens>, "leaves a `{` open");
  refuses(source_with_body<string_hides_brace>, "closes a brace it did not open");
  refuses(source_with_body<char_hides_brace>, "closes a brace it did not open");
  refuses(source_with_body<redefine_if>, "preprocessor directives");
  refuses(source_with_body<digraph_define>, "preprocessor directives");
  refuses(source_with_body<include>, "preprocessor directives");
  refuses(source_with_body<pragma>, "`_Pragma`: pragmas are refused");
  refuses(source_with_body<reserved_name>, "`jet_convert`: names starting with `jet_` are reserved");
  refuses(source_with_body<inline_asm>, "`asm`: inline assembly is refused");
  refuses(source_with_body<line_splice>, "line splice");
  refuses(source_with_body<trigraph>, "trigraphs");
  refuses(source_with_body<open_comment>, "comment is not closed");
  refuses(source_with_body<open_string>, "is not closed on its line");
  refuses(source_with_body<open_paren>, "leaves a `(` open");
  refuses(source_with_body<crossed>, "`]` closes `(`");
  refuses(source_with_body<global_kernel>, "closes a brace it did not open");
  refuses(source_with_body<extern_declaration>, "`extern`: declarations outside the function are refused");
  refuses(source_with_body<universal_name>, "universal character name");
}

TEST_CASE("a body that may end without a return is a compile_error, not undefined values", "[cpu][function][errors]") {
  // NVRTC only warned (#940-D), and jet dropped the warning.
  try {
    jet::compile(maybe_returns(jet::test::fake_view<float>()), jet::arch{90});
    FAIL("no exception");
  } catch (const jet::compile_error& e) {
    CHECK(contains(e.log, "missing return statement"));
    CHECK(e.expression == "maybe_returns(in0)");
  }
}

TEST_CASE("NVRTC's other warnings about a body are printed on stderr as it compiles", "[cpu][function]") {
  jet::set_disk_cache(false);  // compiled here, not loaded
  const std::string warnings = jet::test::stderr_of(
      [] { CHECK(jet::compile(unused_local(jet::test::fake_view<float>()), jet::arch{90}).cubin.size() > 0); });
  jet::set_disk_cache(true);
  CAPTURE(warnings);
  CHECK(contains(warnings, "jet: warning: NVRTC warns about the kernel of `unused_local(in0)` (sm_90)"));
  CHECK(contains(warnings, "\"unused\" was declared but never referenced"));
}

TEST_CASE("a slow compile of an expression is reported once, with its size", "[cpu][function]") {
  auto x = jet::test::fake_view<float>();
  jet::set_disk_cache(false);
  jet::detail::set_slow_compile_report(0);  // every compile is slow
  const std::string first = jet::test::stderr_of([&] { jet::compile(scaled_product(x, x) * 3.0f, jet::arch{90}); });
  const std::string second = jet::test::stderr_of([&] { jet::compile(scaled_product(x, x) * 4, jet::arch{90}); });
  jet::detail::set_slow_compile_report(-1);
  jet::set_disk_cache(true);
  CAPTURE(first);
  CHECK(contains(first, "jet: warning: compiling `scaled_product(in0, in1) * s0` (5 nodes, "));
  CHECK(contains(first, " bytes of source) took "));
  CHECK(contains(first, "README.md, \"Compile time\""));
  CHECK(second.empty());
}
