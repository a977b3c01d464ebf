// NVRTC compiles every op's kernel, and large mixed expressions, for sm_90 on a machine with no
// GPU; its failures surface with the full log and numbered source.
#include "support/catch.hpp"
#include "support/cubin.hpp"
#include "support/operands.hpp"
#include "support/runtime_desc.hpp"
#include "support/sanitized.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "compile/compiler.hpp"

#include <jet/jet.hpp>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace {

using jet::test::hopper;
using jet::test::is_cubin;

// One kernel per dtype T applying every op of the table whose domain holds T to inputs of dtype T
// (a select's condition a comparison of them, a cast to int64; a complex result's real part), each result converted to float64
// and summed: described at run time, so that the table's size costs one NVRTC compile per dtype
// rather than one per op, and no template per op. The templates' own path (apply_op) runs in the
// GPU sweep and in the mixed expressions below.
struct every_op_source {
  std::string source;
  std::size_t nodes;
};
every_op_source every_op_kernel(jet::dtype t) {
  using namespace jet::detail;
  using jet::dtype;
  std::vector<node> nodes;
  const auto add = [&](node n) {
    nodes.push_back(n);
    return static_cast<std::uint16_t>(nodes.size() - 1);
  };
  const auto op_node = [&](op_id op, const typing& typed, int arity, std::initializer_list<std::uint16_t> args) {
    node n{op, typed.result, static_cast<std::uint8_t>(arity)};
    int k = 0;
    for (auto a = args.begin(); k < arity; ++a, ++k) n.arg_type[k] = typed.args[k], n.arg[k] = *a;
    return add(n);
  };
  for (std::uint16_t slot = 0; slot < 3; ++slot) add(node{op_id::input, t, 0, {}, {slot}});
  const dtype in[3] = {t, t, t};
  const bool weak[3] = {};
  const std::uint16_t condition = op_node(op_id::not_equal, resolve(rule::compare, 2, in, weak, t), 2, {0, 1});
  std::optional<std::uint16_t> total;
  jet::ops::for_each_op([&](auto tag) {
    using Op = decltype(tag);
    const dtype select_in[3] = {dtype::boolean, t, t};  // a select's condition is the comparison
    const typing typed = resolve(Op::rule, Op::arity, Op::rule == rule::select ? select_in : in, weak, dtype::int64);
    if (!accepts(Op::domain, Op::rule, Op::arity, typed)) return;
    const std::uint16_t first = Op::rule == rule::select ? condition : 0;
    std::uint16_t value = op_node(Op::id, typed, Op::arity, {first, 1, 2});
    dtype type = typed.result;
    if (jet::is_complex(type)) {  // its real part: no cast takes a complex value to float64
      value = op_node(op_id::real, typing{jet::real_type(type), {type}}, 1, {value});
      type = jet::real_type(type);
    }
    const std::uint16_t wide = op_node(op_id::cast, typing{dtype::float64, {type}}, 1, {value});
    total =
        total ? op_node(op_id::add, typing{dtype::float64, {dtype::float64, dtype::float64}}, 2, {*total, wide}) : wide;
  });
  const std::vector<dtype> inputs(3, t);
  const std::array<std::uint16_t, 1> out{*total};
  const std::array<dtype, 1> out_type{dtype::float64};
  const kernel_desc d = jet::test::runtime_desc(nodes, inputs, 0, out, out_type);
  return {generate_source(d, default_variant(d)), nodes.size()};
}

}  // namespace

TEST_CASE("every op compiles for sm_90 with no GPU, in every dtype", "[cpu][compile]") {
  for (unsigned k = 0; k < jet::detail::dtype_count; k += jet::test::nvrtc_stride) {  // sanitized: a part
    const jet::dtype t = jet::dtype(k);
    const auto [source, nodes] = every_op_kernel(t);
    INFO("every op on " << jet::name(t) << ": " << nodes << " nodes\n" << source);
    CHECK(!jet::detail::compile_to_cubin(source, 90, "every op on " + std::string(jet::name(t))).image.empty());
  }
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
