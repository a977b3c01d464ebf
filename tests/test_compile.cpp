// NVRTC compiles every op's kernel, and large mixed expressions, for sm_90 on a machine with no
// GPU; its failures surface with the full log and numbered source.
#include "support/catch.hpp"
#include "support/cubin.hpp"
#include "support/operands.hpp"
#include "support/runtime_desc.hpp"

#include "compile/compiler.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using jet::test::hopper;
using jet::test::is_cubin;

// Every op of the table whose domain holds dtype t, applied to inputs of t (a cast casts to
// int64), `per_kernel` ops to a kernel: each op's result cast to float64 and summed. An NVRTC
// compile costs mostly its fixed part, which a kernel per op and dtype paid some 600 times.
struct op_batch {
  std::vector<jet::detail::node> nodes;  // post-order; the last is the sum
  std::vector<jet::dtype> inputs;        // a slot per operand of each op
  std::string names;
};
std::vector<op_batch> every_op_in_batches(jet::dtype t, std::size_t per_kernel) {
  using jet::detail::node;
  using jet::detail::op_id;
  std::vector<op_batch> batches;
  std::size_t in_batch = 0;
  jet::ops::for_each_op([&](auto op) {
    using Op = decltype(op);
    const jet::dtype in[3] = {t, t, t};
    const bool weak[3] = {};
    const jet::detail::typing typed = jet::detail::resolve(Op::rule, Op::arity, in, weak, jet::dtype::int64);
    if (!jet::detail::accepts(Op::domain, Op::rule, Op::arity, typed)) return;
    if (batches.empty() || in_batch == per_kernel) batches.emplace_back(), in_batch = 0;
    op_batch& b = batches.back();
    const int sum = static_cast<int>(b.nodes.size()) - 1;  // the sum so far, if any
    node n{Op::id, typed.result, static_cast<std::uint8_t>(Op::arity)};
    for (int k = 0; k < Op::arity; ++k) {
      node leaf{op_id::input, t};
      leaf.arg[0] = static_cast<std::uint16_t>(b.inputs.size());
      b.inputs.push_back(t);
      n.arg[k] = static_cast<std::uint16_t>(b.nodes.size());
      n.arg_type[k] = typed.args[k];
      b.nodes.push_back(leaf);
    }
    b.nodes.push_back(n);
    node widened{op_id::cast, jet::dtype::float64, 1};
    widened.arg[0] = static_cast<std::uint16_t>(b.nodes.size() - 1);
    widened.arg_type[0] = typed.result;
    b.nodes.push_back(widened);
    if (sum >= 0) {
      node add{op_id::add, jet::dtype::float64, 2};
      add.arg[0] = static_cast<std::uint16_t>(sum);
      add.arg[1] = static_cast<std::uint16_t>(b.nodes.size() - 1);
      add.arg_type[0] = add.arg_type[1] = jet::dtype::float64;
      b.nodes.push_back(add);
    }
    b.names += std::string(b.names.empty() ? "" : ", ") + Op::name;
    ++in_batch;
  });
  return batches;
}

void compile_every_op(jet::dtype t) {
  std::size_t ops = 0;
  for (const op_batch& b : every_op_in_batches(t, 16)) {
    INFO(b.names << " on " << jet::name(t));
    const std::array<std::uint16_t, 1> root{static_cast<std::uint16_t>(b.nodes.size() - 1)};
    const std::array<jet::dtype, 1> out{jet::dtype::float64};
    const jet::compiled_kernel k =
        jet::detail::compile_for(jet::test::runtime_desc(b.nodes, b.inputs, 0, root, out), hopper);
    CHECK(is_cubin(k));
    CHECK(k.arch.value == 90);
    ops += static_cast<std::size_t>(std::count(b.names.begin(), b.names.end(), ',')) + 1;
  }
  std::size_t in_domain = 0;
  jet::ops::for_each_op([&](auto op) { in_domain += jet::detail::accepts(decltype(op)::domain, t); });
  CHECK(ops == in_domain);
}

}  // namespace

TEST_CASE("every op compiles for sm_90 with no GPU, in every dtype", "[cpu][compile]") {
  for (std::size_t k = 0; k < jet::detail::dtype_count; ++k) compile_every_op(static_cast<jet::dtype>(k));
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
