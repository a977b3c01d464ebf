// The transcendental calls in jet's Black-Scholes kernel (examples/black_scholes.hpp), against the
// hand-written CUDA kernel of the same maths (benchmarks/native_peers.cu): sharing computes each
// distinct sub-expression once, so jet's kernel calls each as often as the hand kernel.
#include "support/catch.hpp"
#include "support/operands.hpp"
#include "support/planned.hpp"
#include "support/text.hpp"

#include "black_scholes.hpp"
#include "native_peers.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <string>

namespace {

using jet::test::fake_view;
using jet::test::op_calls;

const auto s = fake_view<float>(8, 0x10000), x = fake_view<float>(8, 0x20000), t = fake_view<float>(8, 0x30000);
const auto call = fake_view<float>(8, 0x40000), put = fake_view<float>(8, 0x50000);

// jet::tie(call, put) = black_scholes::prices(s, x, t), its values named as `Name` says.
template <class Name> auto prices() {
  return black_scholes::prices(s, x, t, black_scholes::riskfree, black_scholes::volatility, Name{});
}

// Checks the kernel jet generates for the formula with its values named as `Name` says.
template <class Name> void check_kernel_calls() {
  const std::string src = jet::test::planned_source_of(prices<Name>(), call, put);
  CAPTURE(src);
  CHECK(op_calls(src, "log") == bench::black_scholes_hand_calls.log);
  CHECK(op_calls(src, "exp") == bench::black_scholes_hand_calls.exp);
  CHECK(op_calls(src, "sqrt") == bench::black_scholes_hand_calls.sqrt);
  // More than the 32 array appearances and 64 scalars the limits once counted, and 3 distinct arrays.
  CHECK(src.find("__restrict__ in2") != std::string::npos);
  CHECK(src.find("__restrict__ in3") == std::string::npos);
}

// Checks the interpreter's program for the formula with its values named as `Name` says.
template <class Name> void check_interpreter_calls() {
  using jet::detail::op_id;
  const jet::detail::encoding e = jet::test::planned_encoding_of(prices<Name>(), call, put);
  INFO(e.reason);
  REQUIRE(e.family);
  CHECK(jet::test::op_instructions(e, op_id::log) == int(bench::black_scholes_hand_calls.log));
  CHECK(jet::test::op_instructions(e, op_id::exp) == int(bench::black_scholes_hand_calls.exp));
  CHECK(jet::test::op_instructions(e, op_id::sqrt) == int(bench::black_scholes_hand_calls.sqrt));
}

}  // namespace

TEST_CASE("Black-Scholes: jet's kernel calls log, exp and sqrt as often as the hand kernel, 3 array parameters",
          "[cpu][sharing][black_scholes]") {
  SECTION("values named with jet::let") { check_kernel_calls<black_scholes::let_values>(); }
  SECTION("values as auto sub-expressions") { check_kernel_calls<black_scholes::auto_values>(); }
}

TEST_CASE("Black-Scholes: the interpreter runs it, with log, exp and sqrt as often as the hand kernel",
          "[cpu][sharing][black_scholes][interpreter]") {
  SECTION("values named with jet::let") { check_interpreter_calls<black_scholes::let_values>(); }
  SECTION("values as auto sub-expressions") { check_interpreter_calls<black_scholes::auto_values>(); }
}
