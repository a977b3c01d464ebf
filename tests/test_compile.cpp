// NVRTC compiles every op's kernel, and large mixed expressions, for sm_90 on a machine with no
// GPU; its failures surface with the full log and numbered source.
#include "support/catch.hpp"
#include "support/cubin.hpp"
#include "support/operands.hpp"

#include "compile/compiler.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <string>

namespace {

using jet::test::hopper;
using jet::test::is_cubin;

// Every op applied to operands of each type T in its domain (a cast goes to int64, so that it
// converts).
template <class... T> void compile_every_op() {
  const auto in_one_dtype = [](auto a, auto b, auto c) {
    jet::test::for_each_op_on<typename decltype(a)::value_type>([&](auto op) {
      using Op = decltype(op);
      const auto e = jet::test::apply_op<Op>(a, b, c);
      INFO(Op::name << " on " << jet::name(a.dtype()));
      const jet::compiled_kernel k = jet::compile(e, hopper);
      CHECK(is_cubin(k));
      CHECK(k.arch.value == 90);
    });
  };
  (in_one_dtype(jet::test::fake_view<T>(), jet::test::fake_view<T>(), jet::test::fake_view<T>()), ...);
}

}  // namespace

TEST_CASE("every op compiles for sm_90 with no GPU, in every dtype", "[cpu][compile]") {
  compile_every_op<float, double, std::int32_t, std::int64_t>();
  compile_every_op<jet::float16, jet::bfloat16, bool, std::int8_t, std::uint8_t, std::int16_t, std::uint32_t,
                   std::uint64_t>();
}

TEST_CASE("16-bit floats and narrow integers compile in mixed expressions", "[cpu][compile]") {
  auto h = jet::test::fake_view<jet::float16>();
  auto bf = jet::test::fake_view<jet::bfloat16>();
  auto f = jet::test::fake_view<float>();
  auto i8 = jet::test::fake_view<std::int8_t>();
  auto u64 = jet::test::fake_view<std::uint64_t>();
  auto flags = jet::test::fake_view<bool>();
  auto e1 = jet::where(flags, jet::sigmoid(h * 2.0) + bf, jet::cast<jet::float16>(f) - i8);
  auto e2 = jet::cast<jet::bfloat16>(u64 * 3u + i8) * jet::exp(bf) < jet::abs(h);
  for (const jet::compiled_kernel& k : {jet::compile(e1, hopper), jet::compile(e2, hopper)}) CHECK(is_cubin(k));
}

TEST_CASE("bfloat16 needs sm_80: older architectures fail with ptxas's reason", "[cpu][compile][errors]") {
  auto bf = jet::test::fake_view<jet::bfloat16>();
  CHECK(is_cubin(jet::compile(bf * bf, jet::arch{80})));
  try {
    jet::compile(bf * bf, jet::arch{75});
    FAIL("no exception");
  } catch (const jet::compile_error& e) {
    CHECK(e.log.find("sm_80") != std::string::npos);
  }
  auto h = jet::test::fake_view<jet::float16>();
  CHECK(is_cubin(jet::compile(h * h, jet::arch{75})));  // float16's conversions are older
}

TEST_CASE("deep mixed expressions compile", "[cpu][compile]") {
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  auto d = jet::test::fake_view<double>();
  auto i = jet::test::fake_view<std::int32_t>();
  auto l = jet::test::fake_view<std::int64_t>();
  auto e1 = jet::tanh(1.5f * x + y) * jet::sigmoid(x - y) + x * y;
  auto e2 = jet::where(i < l, jet::pow(jet::abs(d) + 1, jet::cast<double>(i) * 0.01),
                       jet::clamp(jet::sqrt(jet::relu(x * d)), -1, 1)) /
            (1 + jet::exp(-jet::fma(x, y, d)));
  auto e3 = jet::max(jet::min(e1, e2), jet::rsqrt(jet::cos(x) * jet::cos(x) + 1.0f)) -
            jet::log(1.0f + jet::sin(y) * jet::sin(y)) + jet::cast<float>(l);
  for (const jet::compiled_kernel& k : {jet::compile(e1, hopper), jet::compile(e2, hopper), jet::compile(e3, hopper)})
    CHECK(is_cubin(k));
}

TEST_CASE("an NVRTC failure carries the log, the numbered source and the expression", "[cpu][compile][errors]") {
  const std::string source = "extern \"C\" __global__ void jet_kernel() {\n  this is not cuda;\n}\n";
  try {
    jet::detail::compile_to_cubin(source, 90, "relu(in0 + in1)");
    FAIL("no exception");
  } catch (const jet::compile_error& e) {
    CHECK(e.log.find("error") != std::string::npos);
    CHECK(e.source.find("   2 |   this is not cuda;") != std::string::npos);
    CHECK(e.expression == "relu(in0 + in1)");
    const std::string what = e.what();
    CHECK(what.find(e.log) != std::string::npos);
    CHECK(what.find("relu(in0 + in1)") != std::string::npos);
    CHECK(what.find("sm_90") != std::string::npos);
  }
}

TEST_CASE("an architecture NVRTC does not know is refused clearly", "[cpu][compile][errors]") {
  auto x = jet::test::fake_view<float>();
  try {
    jet::compile(x + x, jet::arch{12});
    FAIL("no exception");
  } catch (const jet::invalid_argument& e) {
    CHECK(std::string(e.what()).find("sm_12") != std::string::npos);
    CHECK(std::string(e.what()).find("sm_90") != std::string::npos);
  }
}
