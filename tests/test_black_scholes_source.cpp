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

// The kernel of jet::tie(call, put) = black_scholes::prices(s, x, t), planned for distinct arrays.
std::string black_scholes_source() { return jet::test::planned_source_of(black_scholes::prices(s, x, t), call, put); }

}  // namespace

TEST_CASE("Black-Scholes: jet's kernel calls log, exp and sqrt as often as the hand kernel, 3 array parameters",
          "[cpu][sharing][black_scholes]") {
  const std::string src = black_scholes_source();
  CAPTURE(src);
  CHECK(op_calls(src, "log") == bench::black_scholes_hand_calls.log);
  CHECK(op_calls(src, "exp") == bench::black_scholes_hand_calls.exp);
  CHECK(op_calls(src, "sqrt") == bench::black_scholes_hand_calls.sqrt);
  // More than the 32 array appearances and 64 scalars the limits once counted, and 3 distinct arrays.
  CHECK(src.find("__restrict__ in2") != std::string::npos);
  CHECK(src.find("__restrict__ in3") == std::string::npos);
}

TEST_CASE("Black-Scholes: the interpreter runs it, with log, exp and sqrt as often as the hand kernel",
          "[cpu][sharing][black_scholes][interpreter]") {
  using jet::detail::op_id;
  const jet::detail::encoding e = jet::test::planned_encoding_of(black_scholes::prices(s, x, t), call, put);
  INFO(e.reason);
  REQUIRE(e.family);
  WARN("registers " << e.registers << " instructions " << e.code.count);
  CHECK(jet::test::op_instructions(e, op_id::log) == int(bench::black_scholes_hand_calls.log));
  CHECK(jet::test::op_instructions(e, op_id::exp) == int(bench::black_scholes_hand_calls.exp));
  CHECK(jet::test::op_instructions(e, op_id::sqrt) == int(bench::black_scholes_hand_calls.sqrt));
}
