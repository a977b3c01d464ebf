// A formula past outline_cost compiles once: its nodes are one __noinline__ function, jet_formula,
// that the inlined jet_element calls wherever the kernel computes an element, so NVRTC's time no
// longer grows with the kernel's inlined copies; and inside it each costly op (sin, cos, pow) that
// computes several nodes is one __noinline__ function that they call, so NVRTC compiles its
// libdevice body once. Smaller formulas are inlined whole, their source as before (the snapshot
// test holds every one of its corpus).
#include "support/catch.hpp"
#include "support/large_kernels.hpp"
#include "support/nvrtc.hpp"
#include "support/text.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/kernel_parts.hpp"

#include <jet/detail/kernel_desc.hpp>

#include <string>

namespace {

using jet::detail::op_id;
using jet::test::contains;
using jet::test::occurrences;

std::string source_of(const jet::test::formula& f, jet::detail::reduction_id reduction = {}) {
  jet::detail::kernel_desc d = f.desc();
  d.reduction = reduction;
  return jet::detail::generate_source(d, jet::detail::default_variant(d));
}

// cos(sin(x)), plus y when `plus_y`: a cost of 64 + 64, or one more.
jet::test::formula sin_cos(bool plus_y) {
  jet::test::formula f;
  const std::uint16_t x = f.input(), y = f.input();
  const std::uint16_t value = f.apply(op_id::cos, {f.apply(op_id::sin, {x})});
  f.output(plus_y ? f.apply(op_id::add, {value, y}) : value);
  return f;
}

}  // namespace

TEST_CASE("a formula past outline_cost is one __noinline__ function, called from jet_element", "[cpu][codegen]") {
  static_assert(jet::detail::outline_cost == 128, "sin_cos() straddles it");
  const std::string inlined = source_of(sin_cos(false)), outlined = source_of(sin_cos(true));
  CAPTURE(inlined, outlined);
  CHECK_FALSE(contains(inlined, "__noinline__"));
  CHECK_FALSE(contains(inlined, "jet_formula"));
  CHECK(contains(inlined,
                 "__device__ __forceinline__ void jet_element(float& o0, float x0, float x1) {\n"
                 "  const float t2 = jet_sin(x0);\n"));
  CHECK(occurrences(outlined, "__noinline__") == 1);
  CHECK(contains(outlined,
                 "struct jet_outputs { float o0; };\n"
                 "__device__ __noinline__ jet_outputs jet_formula(float x0, float x1) {\n"
                 "  const float t2 = jet_sin(x0);\n"));
  CHECK(contains(outlined,
                 "  return {t4};\n}\n"
                 "__device__ __forceinline__ void jet_element(float& o0, float x0, float x1) {\n"
                 "  const jet_outputs r = jet_formula(x0, x1);\n"
                 "  o0 = r.o0;\n}\n"));
  CHECK(occurrences(outlined, "jet_formula(") == 2);  // its definition and its one call
  CHECK(occurrences(outlined, "jet_element(") == occurrences(inlined, "jet_element("));
}

TEST_CASE("large formulas' nodes are written once, in jet_formula, for every kind of kernel", "[cpu][codegen]") {
  const jet::test::formula chain = jet::test::transcendental_chain(100);
  for (const std::string& src : {source_of(chain), source_of(chain, jet::detail::reduction_id::sum)}) {
    CAPTURE(src);
    CHECK(occurrences(src, "__noinline__") == 3);  // jet_formula, jet_sin and jet_cos
    CHECK(occurrences(src, "jet_formula(") == 2);
    CHECK(occurrences(src, " = jet_sin(") == 20);  // each of the chain's 20 sines once
    CHECK(contains(src, "template <class A> __device__ __noinline__ auto jet_sin(A a) { return sin(a); }\n"));
    CHECK(contains(src, "template <class A> __device__ __noinline__ auto jet_cos(A a) { return cos(a); }\n"));
    CHECK(contains(src, "template <class A> __device__ __forceinline__ auto jet_tanh(A a) { return tanh(a); }\n"));
  }
  // Black-Scholes, 65 ops but only 5 libdevice calls and 4 divisions, compiles fast enough inlined.
  CHECK_FALSE(contains(source_of(jet::test::black_scholes()), "__noinline__"));
}

TEST_CASE("outlined formulas compile: elementwise with two outputs, and a reduction", "[cpu][codegen]") {
  jet::test::formula two = jet::test::transcendental_chain(5);  // sin, tanh, exp, cos, sigmoid, + y: 139
  const auto sum = static_cast<std::uint16_t>(two.ops() + 1);   // the last node, after the two inputs
  two.output(two.apply(op_id::mul, {sum, sum}));
  const std::string both = source_of(two);
  CHECK(contains(both, "struct jet_outputs { float o0; float o1; };"));
  CHECK(contains(both, "  return {t7, t8};\n"));
  CHECK(contains(both, "  o0 = r.o0;\n  o1 = r.o1;\n"));
  for (const std::string& src : {both, source_of(jet::test::transcendental_chain(5), jet::detail::reduction_id::max)}) {
    REQUIRE(contains(src, "__noinline__"));
    const jet::test::nvrtc_output out = jet::test::nvrtc_compile(src);
    INFO(src << "\n" << out.log);
    CHECK(out.compiled);
    CHECK(contains(out.ptx, ".func"));  // jet_formula stays a function of its own
  }
}

TEST_CASE("an outlined formula calls sin, cos and pow where it computes them more than once", "[cpu][codegen]") {
  static_assert(jet::detail::called_op_cost == 32, "pow (32) is called, log (8) is not");
  // pow(x, y) + pow(y, x) + log(x) + log(y) + sin(x): a cost of 32 * 2 + 8 * 2 + 64 + 4.
  jet::test::formula f;
  const std::uint16_t x = f.input(), y = f.input();
  const std::uint16_t pows = f.apply(op_id::add, {f.apply(op_id::pow, {x, y}), f.apply(op_id::pow, {y, x})});
  const std::uint16_t logs = f.apply(op_id::add, {f.apply(op_id::log, {x}), f.apply(op_id::log, {y})});
  f.output(f.apply(op_id::add, {f.apply(op_id::add, {pows, logs}), f.apply(op_id::sin, {x})}));
  const std::string src = source_of(f);
  CAPTURE(src);
  CHECK(contains(src, "template <class A, class B> __device__ __noinline__ auto jet_pow(A a, B b)"));
  CHECK(contains(src, "template <class A> __device__ __forceinline__ auto jet_log(A a)"));
  CHECK(contains(src, "template <class A> __device__ __forceinline__ auto jet_sin(A a)"));  // one sine
  CHECK(occurrences(src, "__noinline__") == 2);
  for (const std::string& kernel : {src, source_of(f, jet::detail::reduction_id::sum)}) {
    const jet::test::nvrtc_output out = jet::test::nvrtc_compile(kernel);
    INFO(kernel << "\n" << out.log);
    REQUIRE(out.compiled);
    CHECK(contains(out.ptx, ".func  (.param .b32 func_retval0) _Z7jet_powIffEDaT_T0_("));
    CHECK(occurrences(out.ptx, "call.uni (retval0), \n\t_Z7jet_powIffEDaT_T0_, ") == 2);  // a call per pow
  }
}
