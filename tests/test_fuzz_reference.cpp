// The fuzzer's host evaluation (tests/support/host_evaluation.hpp) on hand-made cases, without a
// GPU: it agrees with the typed reference, bounds rounding and marks what the dtypes cannot
// determine, and converts between dtypes as jet's kernels do.
#include "support/catch.hpp"
#include "support/host_evaluation.hpp"
#include "support/operands.hpp"
#include "support/random_expression.hpp"
#include "support/reference.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

TEST_CASE("the run-time host evaluation agrees with the typed reference", "[cpu][fuzz][reference]") {
  using jet::test::fake_view;
  const std::size_t n = 64;
  auto f = fake_view<float>(n, 0x10000);
  auto d = fake_view<double>(n, 0x20000);
  auto i = fake_view<std::int32_t>(n, 0x30000);
  auto l = fake_view<std::int64_t>(n, 0x40000);
  jet::test::chooser c(5);
  jet::test::host_inputs h;
  std::map<std::uintptr_t, std::vector<long double>> data;
  auto fill = [&](auto view, jet::dtype t) {
    using T = typename decltype(view)::value_type;
    std::vector<T> values;
    // Moderate values only: the typed reference keeps operands as double, exact below 2^53.
    for (std::size_t k = 0; k < n; ++k) values.push_back(static_cast<T>(jet::test::random_value(t, c, 0, false)));
    h.add(view.data(), values);
    data[reinterpret_cast<std::uintptr_t>(view.data())].assign(values.begin(), values.end());
  };
  fill(f, jet::dtype::float32);
  fill(d, jet::dtype::float64);
  fill(i, jet::dtype::int32);
  fill(l, jet::dtype::int64);
  auto check = [&](const auto& e) {
    using E = std::remove_cvref_t<decltype(e)>;
    using bound = jet::detail::bound_one<jet::detail::stored_t<E>, E>;
    const bound b(e);
    const auto& desc = bound::kernel::desc;
    long double scalars[jet::detail::max_scalars + 1];
    for (unsigned k = 0; k < desc.scalar_count; ++k) {
      const jet::detail::scalar_value v = b.values.scalar[k];
      jet::dtype t{};
      for (unsigned m = 0; m < desc.node_count; ++m)
        if (desc.nodes[m].op == jet::detail::op_id::scalar && desc.nodes[m].arg[0] == k) t = desc.nodes[m].type;
      scalars[k] = jet::test::visit_real(t, [&](auto x) {
        decltype(x) value;
        std::memcpy(&value, &v, sizeof value);
        return static_cast<long double>(value);
      });
    }
    std::vector<jet::test::bounded> scratch;
    std::size_t differ = 0;
    for (std::size_t k = 0; k < n; ++k) {
      auto input = [&](unsigned slot) { return data[reinterpret_cast<std::uintptr_t>(b.values.input[slot])][k]; };
      const auto got = jet::test::evaluate_element(desc, 0, input, scalars, scratch);
      const long double want = jet::test::reference(e, k, h);
      differ += !(got.value == want || (std::isnan(got.value) && std::isnan(want)));
    }
    INFO(jet::detail::describe(desc));
    CHECK(differ == 0);
  };
  check(f + d);
  check(i * 3 + l / 7 - i / (l + 1));
  check(jet::where(i < l, f * 2.5f, d - 1.0));
  check(jet::cast<std::int32_t>(f * 1e9f) + jet::cast<std::int64_t>(d));
  check(jet::exp(i / 10) * jet::sqrt(jet::abs(f)) + jet::pow(jet::abs(d), f) - jet::tanh(l * 0.5));
  check(jet::clamp(f, -1, 1) + jet::max(i, l) * jet::min(f, 2.0f) + jet::fma(f, d, i));
  check(jet::sigmoid(-f) + jet::rsqrt(jet::abs(d) + 1) + jet::relu(i - 10) + jet::log(jet::abs(f) + 1.0f) +
        jet::sin(d) * jet::cos(f));
  check((f <= d) + (i == l) + (f != 0.5f) + (d >= 0) + (i > -3));
}

TEST_CASE("the host evaluation bounds rounding, and marks what the dtypes cannot determine", "[cpu][fuzz][reference]") {
  using jet::dtype;
  using jet::detail::op_id;
  // The last of `nodes` (float32 inputs in0 and in1 first) evaluated at in0 = a, in1 = b.
  auto evaluate = [](std::span<const jet::detail::node> nodes, long double a, long double b) {
    const dtype inputs[] = {dtype::float32, dtype::float32};
    const std::uint16_t out[] = {static_cast<std::uint16_t>(nodes.size() - 1)};
    const dtype out_types[] = {nodes.back().type};
    const jet::detail::kernel_desc d{.nodes = nodes.data(),
                                     .node_count = static_cast<std::uint32_t>(nodes.size()),
                                     .input_count = 2,
                                     .scalar_count = 0,
                                     .input_types = inputs,
                                     .counter_slots = 0,
                                     .out_count = 1,
                                     .out_nodes = out,
                                     .out_types = out_types,
                                     .functions = nullptr,
                                     .function_count = 0,
                                     .hash = 0};
    std::vector<jet::test::bounded> scratch;
    const long double values[] = {a, b};
    return jet::test::evaluate_element(
        d, 0, [&](unsigned slot) { return values[slot]; }, nullptr, scratch);
  };
  // in0 OP in1.
  auto binary = [&](op_id op, dtype result, long double a, long double b) {
    const jet::detail::node nodes[] = {{op_id::input, dtype::float32, 0, {}, {0}},
                                       {op_id::input, dtype::float32, 0, {}, {1}},
                                       {op, result, 2, {dtype::float32, dtype::float32}, {0, 1}}};
    return evaluate(nodes, a, b);
  };
  const auto product = binary(op_id::mul, dtype::float32, 3, 0.1f);
  CHECK(product.value == 3 * static_cast<double>(0.1f));  // float64, not rounded to float32
  CHECK(product.radius == Catch::Approx(8 * 0.3 * 0x1p-23).epsilon(0.1));
  CHECK(binary(op_id::mul, dtype::float32, 3e38f, 2).radius == jet::test::unknown);  // overflows float32
  CHECK(binary(op_id::less, dtype::boolean, 1, 2).radius == 0);
  const auto nan = binary(op_id::add, dtype::float32, std::nanf(""), 1);
  CHECK(std::isnan(nan.value));
  CHECK(nan.radius == 0);  // NaN under every perturbation: determined
  CHECK(binary(op_id::sub, dtype::float32, INFINITY, 1).radius == 0);
  // copysign and signbit of a NaN read a sign that IEEE 754 leaves unspecified, and the host and
  // CUDA pick differently (fuzz cases 3586322519195342409, 11713650791846947506 and others,
  // tests/README.md): undetermined. A NaN magnitude is NaN whatever the sign.
  CHECK(binary(op_id::copysign, dtype::float32, 2, std::nanf("")).radius == jet::test::unknown);
  CHECK(binary(op_id::copysign, dtype::float32, 2, -std::nanf("")).radius == jet::test::unknown);
  CHECK(binary(op_id::copysign, dtype::float32, 2, -0.0f).value == -2);
  CHECK(binary(op_id::copysign, dtype::float32, 2, -0.0f).determined());
  const auto nan_magnitude = binary(op_id::copysign, dtype::float32, std::nanf(""), -1);
  CHECK(std::isnan(nan_magnitude.value));
  CHECK(nan_magnitude.radius == 0);
  // signbit(in0 OP in1): of inf - inf (the host's NaN is negative on x86, CUDA's positive) unknown.
  auto signbit_of = [&](op_id op, long double a, long double b) {
    const jet::detail::node nodes[] = {{op_id::input, dtype::float32, 0, {}, {0}},
                                       {op_id::input, dtype::float32, 0, {}, {1}},
                                       {op, dtype::float32, 2, {dtype::float32, dtype::float32}, {0, 1}},
                                       {op_id::signbit, dtype::boolean, 1, {dtype::float32}, {2}}};
    return evaluate(nodes, a, b);
  };
  CHECK(signbit_of(op_id::sub, INFINITY, INFINITY).radius == jet::test::unknown);
  const auto negative = signbit_of(op_id::sub, 1, 3);
  CHECK(negative.value == 1);
  CHECK(negative.radius == 0);
  CHECK(signbit_of(op_id::mul, -INFINITY, 2).radius == 0);
}

TEST_CASE("the host evaluation converts as jet does: integers wrap, floating values saturate, NaN is 0",
          "[cpu][fuzz][reference]") {
  // The GPU fuzzer's first run found the host evaluation saturating integers into narrower ones
  // (out = max(c, c), int64 into int32; cast<int32_t>(cast<int64_t>(b))), and the kernels taking
  // a NaN operand to the lowest int64 instead of 0 (philox_uniform(sqrt(d), ...)): tests/README.md.
  using jet::dtype;
  using jet::detail::op_id;
  // op on one input per operand (of dtypes `in`, converted to `args`), its result stored as `out`;
  // the reference and the evaluation in the nodes' own dtypes must agree.
  auto evaluate = [](op_id op, std::vector<dtype> in, std::vector<dtype> args, dtype result, dtype out,
                     std::vector<long double> values) {
    std::vector<jet::detail::node> nodes;
    jet::detail::node n{op, result, static_cast<std::uint8_t>(in.size())};
    for (std::size_t k = 0; k < in.size(); ++k) {
      nodes.push_back({op_id::input, in[k], 0, {}, {static_cast<std::uint16_t>(k)}});
      n.arg[k] = static_cast<std::uint16_t>(k);
      n.arg_type[k] = args[k];
    }
    nodes.push_back(n);
    const std::uint16_t root[] = {static_cast<std::uint16_t>(in.size())};
    const jet::detail::kernel_desc d{.nodes = nodes.data(),
                                     .node_count = static_cast<std::uint32_t>(nodes.size()),
                                     .input_count = static_cast<std::uint32_t>(in.size()),
                                     .scalar_count = 0,
                                     .input_types = in.data(),
                                     .counter_slots = 0,
                                     .out_count = 1,
                                     .out_nodes = root,
                                     .out_types = &out,
                                     .functions = nullptr,
                                     .function_count = 0,
                                     .hash = 0};
    auto input = [&](unsigned slot) { return values[slot]; };
    std::vector<jet::test::bounded> scratch;
    std::vector<jet::test::complex_value> own;
    const jet::test::bounded ref = jet::test::evaluate_element(d, 0, input, nullptr, scratch);
    CHECK(ref.determined());
    CHECK(jet::test::evaluate_element_in_own_dtypes(d, 0, input, nullptr, own) == ref.value);
    return ref.value;
  };
  const dtype i64 = dtype::int64, i32 = dtype::int32, f64 = dtype::float64, f32 = dtype::float32;
  constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
  // Integers into narrower integers wrap, stored or cast (fuzz cases 7258500695581219828, 3279816509721475205).
  CHECK(evaluate(op_id::max, {i64, i64}, {i64, i64}, i64, i32, {int64_max, int64_max}) == -1);
  CHECK(evaluate(op_id::max, {i64, i64}, {i64, i64}, i64, i32, {-2147483649.0L, -2147483649.0L}) == 2147483647);
  CHECK(evaluate(op_id::cast, {i64}, {i64}, i32, i32, {1e10L}) == 1410065408);
  CHECK(evaluate(op_id::cast, {dtype::uint64}, {dtype::uint64}, dtype::int8, dtype::int8, {18446744073709551615.0L}) ==
        -1);
  CHECK(evaluate(op_id::cast, {dtype::int16}, {dtype::int16}, dtype::uint8, dtype::uint8, {-300}) == 212);
  // Floating values saturate and NaN is 0, as operands too (fuzz case 7043010981146226037).
  CHECK(evaluate(op_id::cast, {f64}, {f64}, i32, i32, {1e300L}) == 2147483647);
  CHECK(evaluate(op_id::add, {f64, f64}, {f64, f64}, f64, i64, {NAN, 1}) == 0);
  auto philox = [](long double counter, long double seed) {
    return static_cast<long double>(
        jet::host::philox_uniform(static_cast<std::int64_t>(counter), static_cast<std::int64_t>(seed)));
  };
  CHECK(evaluate(op_id::philox_uniform, {f64, f32}, {i64, i64}, f32, f32, {NAN, -2.75f}) == philox(0, -2));
  CHECK(evaluate(op_id::philox_uniform, {f32, f64}, {i64, i64}, f32, f32, {1e30f, -INFINITY}) ==
        philox(int64_max, std::numeric_limits<std::int64_t>::lowest()));
}
