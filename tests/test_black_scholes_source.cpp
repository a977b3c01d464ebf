// The transcendental calls in jet's Black-Scholes kernel (examples/black_scholes.hpp), against the
// hand-written CUDA kernel of the same maths (benchmarks/native_peers.cu). Once sharing computes
// each distinct sub-expression once (issue 19), jet's kernel calls each as often as the hand
// kernel; until then the first case pins today's counts and the hidden one ([.], run by its tag)
// states the goal.
#include "support/catch.hpp"
#include "support/operands.hpp"
#include "support/planned.hpp"
#include "support/text.hpp"

#include "black_scholes.hpp"
#include "native_peers.hpp"

#include <jet/jet.hpp>

#include <string>

namespace {

using jet::test::fake_view;
using jet::test::op_calls;

// The log, exp and sqrt calls per option of the kernel of jet::tie(call, put) = black_scholes::prices(s, x, t), planned for distinct arrays.
bench::transcendental_calls black_scholes_calls() {
  const auto s = fake_view<float>(8, 0x10000), x = fake_view<float>(8, 0x20000), t = fake_view<float>(8, 0x30000);
  const auto call = fake_view<float>(8, 0x40000), put = fake_view<float>(8, 0x50000);
  const std::string src = jet::test::planned_source_of(black_scholes::prices(s, x, t), call, put);
  return {op_calls(src, "log"), op_calls(src, "exp"), op_calls(src, "sqrt")};
}

}  // namespace

// The counts of today's sharing (detail/sharing.hpp); they fall to the hand kernel's as it computes
// more of the repeats once.
TEST_CASE("Black-Scholes: the log, exp and sqrt calls of jet's kernel today", "[cpu][sharing][black_scholes]") {
  const bench::transcendental_calls c = black_scholes_calls();
  CHECK(c.log == 16);
  CHECK(c.exp == 4);
  CHECK(c.sqrt == 24);
}

TEST_CASE("Black-Scholes: jet's kernel calls log, exp and sqrt as often as the hand kernel",
          "[.][black_scholes_shared_once]") {
  const bench::transcendental_calls c = black_scholes_calls();
  CHECK(c.log == bench::black_scholes_hand_calls.log);
  CHECK(c.exp == bench::black_scholes_hand_calls.exp);
  CHECK(c.sqrt == bench::black_scholes_hand_calls.sqrt);
}
