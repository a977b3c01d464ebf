// The interpreter (README, "First results without waiting for the compiler"), with no GPU: its
// source compiles for sm_90 without spills, expressions encode to the expected
// instruction lists, the ones it cannot express say why, and the jit policy parses.
#include "support/catch.hpp"
#include "support/nvrtc.hpp"
#include "support/operands.hpp"
#include "support/planned.hpp"
#include "support/sanitized.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "compile/compiler.hpp"
#include "interpreter/encoder.hpp"
#include "interpreter/launcher.hpp"
#include "interpreter/source.hpp"
#include "settings.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

JET_FUNCTION(interpreter_test_twice, float(float a), "return 2.0f * a;");

namespace {

using jet::detail::encoding;
using jet::detail::instruction;
using jet::detail::op_id;

// NVRTC's log for `source` compiled for sm_90 with jet's options and ptxas reporting its resource
// use; the compile must succeed.
std::string compile_verbose(const std::string& source) {
  const jet::test::nvrtc_output out = jet::test::nvrtc_compile(source, {"--ptxas-options=-v"});
  INFO(out.log);
  REQUIRE(out.compiled);
  return out.log;
}

template <class Out = float, class E> encoding encode(const E& e) {
  using bound = jet::detail::bound_one<Out, E>;
  const bound b(e);
  return jet::detail::encode_for_interpreter(bound::kernel::desc, b.values.scalar.data(), nullptr);
}

std::uint8_t id(op_id op) { return static_cast<std::uint8_t>(op); }
std::uint8_t id(jet::dtype t) { return static_cast<std::uint8_t>(t); }

// The instructions as (op, dst, a, b, c, type) tuples, for comparing.
std::vector<std::vector<int>> listing(const encoding& e) {
  std::vector<std::vector<int>> rows;
  for (unsigned i = 0; i < e.code.count; ++i) {
    const instruction& in = e.code.code[i];
    rows.push_back({in.op, in.dst, in.a, in.b, in.c, in.type});
  }
  return rows;
}

constexpr int none = 255;

}  // namespace

TEST_CASE("every family's interpreter compiles for sm_90 without spills, its program as the host lays it out",
          "[cpu][interpreter][compile]") {
  for (std::size_t k = 0; k < std::size(jet::detail::interpreter_families); k += jet::test::nvrtc_stride) {
    const jet::detail::interpreter_family& f = jet::detail::interpreter_families[k];  // sanitized: a part
    INFO("family " << f.name);
    std::string source = jet::detail::interpreter_source(f);
    // The device's jet_program is the host's program, byte for byte (interpreter/program.hpp checks the
    // host's offsets).
    source += "static_assert(sizeof(jet_program) == " + std::to_string(sizeof(jet::detail::program)) + ", \"size\");\n";
    const std::string log = compile_verbose(source);
    INFO(log);
    // ptxas, of the kernel itself: "N bytes stack frame, M bytes spill stores". In a core family
    // the accumulator and an instruction's operands stay in machine registers: no spill, and the
    // only stack is sin's and cos's (their reduction of huge arguments keeps a few words there:
    // 32 bytes in float32, 40 in float64, as in every kernel that calls them). A math family's
    // calls save some of the caller's registers around them: a little stack, a few spills.
    const auto number_before = [&](std::size_t at) {
      REQUIRE(at != std::string::npos);
      const std::size_t digits = log.find_last_not_of("0123456789", at - 1) + 1;
      return std::stoi(log.substr(digits, at - digits));
    };
    const std::size_t entry = log.find("Function properties for jet_interpret");
    REQUIRE(entry != std::string::npos);
    const int stack = number_before(log.find(" bytes stack frame", entry));
    const int spills = number_before(log.find(" bytes spill stores", entry));
    if (f.math || jet::is_complex(f.compute)) {  // calls: a complex family calls every long op
      CHECK(stack <= 128);
      CHECK(spills <= 64);
    } else {
      CHECK(stack == (f.compute == jet::dtype::float32 ? 32 : f.compute == jet::dtype::float64 ? 40 : 0));
      CHECK(spills == 0);
    }
    // The float32 interpreter (the bandwidth benchmark's) fits 4 blocks of 128 threads on an SM
    // or more: with two 64-byte loads in flight per thread, at least 64 KiB in flight per SM.
    const std::size_t used = log.find("Used ");
    REQUIRE(used != std::string::npos);
    const int registers = std::stoi(log.substr(used + 5));
    if (f.compute == jet::dtype::float32) CHECK(registers <= 128);
    // One case per op of the table the family has, generated from ops.def.
    std::size_t ops = 0;
    jet::ops::for_each_op([&](auto op) {
      using Op = decltype(op);
      if (!jet::detail::interpretable_op(Op::id, f)) return;
      ++ops;
      CHECK(source.find("case " + std::to_string(static_cast<int>(Op::id)) + ":") != std::string::npos);
    });
    CHECK(ops >= (jet::is_floating(f.compute) ? 28u : 15u));
    CHECK(source.find("#include") == std::string::npos);
  }
}

TEST_CASE("relu(x + y) encodes as one load of both, a fetch, two ops in the accumulator and a store",
          "[cpu][interpreter][encoding]") {
  auto x = jet::test::fake_view<float>(), y = jet::test::fake_view<float>();
  const encoding e = encode(jet::relu(x + y));
  REQUIRE(e.family);
  CHECK(e.family->name == "float32");
  CHECK(e.input_count == 2);
  const int f32 = id(jet::dtype::float32), acc = jet::detail::interpreter_accumulator;
  CHECK(listing(e) == std::vector<std::vector<int>>{
                          {id(op_id::input), 0, 0, 1, 1, f32},  // x into r0, y into r1
                          {jet::detail::fetch_op, none, 0, none, none, 0},
                          {id(op_id::add), none, acc, 1, none, f32},
                          {id(op_id::relu), none, acc, none, none, f32},  // the sum is read once, here: never saved
                          {jet::detail::store_op, 0, acc, none, none, f32},
                      });
  // One input alone loads twice into one register; a value read other than by the next op as its
  // first operand is saved to a register.
  CHECK(listing(encode(jet::exp(x)))[0] == std::vector<int>{id(op_id::input), 0, 0, 0, 0, f32});
  const auto rows = listing(encode(x + x * y));
  CHECK(std::count(rows.begin(), rows.end(), std::vector<int>{jet::detail::save_op, 1, none, none, none, 0}) == 1);
}

TEST_CASE("scalars are converted on the host as the fused kernel converts them", "[cpu][interpreter][encoding]") {
  auto x = jet::test::fake_view<float>();
  const encoding e = encode(x * 3 + 0.1);  // an int32 and a float64 scalar, both used as float32
  REQUIRE(e.family);
  float values[2];
  std::memcpy(&values[0], &e.code.scalars[0], sizeof(float));
  std::memcpy(&values[1], &e.code.scalars[1], sizeof(float));
  CHECK(values[0] == 3.0f);
  CHECK(values[1] == static_cast<float>(0.1));
  // Both are read straight from their slots by the ops' scalar cases: no instruction moves them.
  const int scalar0 = jet::detail::interpreter_scalar_operand;
  CHECK(listing(e)[2] == std::vector<int>{id(op_id::mul) | jet::detail::scalar_second_op, none,
                                          jet::detail::interpreter_accumulator, scalar0, none,
                                          id(jet::dtype::float32)});
  CHECK(listing(e)[3][0] == (id(op_id::add) | jet::detail::scalar_second_op));
  CHECK(listing(e)[3][3] == scalar0 + 1);
  auto d = jet::test::fake_view<double>();
  const encoding w = encode<double>(jet::where(d, d, -d));  // the condition as a bool: a cast to bool
  REQUIRE(w.family);
  CHECK(w.family->name == "float64");
  bool cast_to_bool = false;
  for (const auto& row : listing(w)) cast_to_bool |= row[0] == id(op_id::cast) && row[5] == id(jet::dtype::boolean);
  CHECK(cast_to_bool);
}

TEST_CASE("16-bit floats, bool and integers each have their family", "[cpu][interpreter][encoding]") {
  auto h = jet::test::fake_view<jet::float16>();
  auto bf = jet::test::fake_view<jet::bfloat16>();
  auto f = jet::test::fake_view<float>();
  auto flags = jet::test::fake_view<bool>();
  auto i = jet::test::fake_view<std::int32_t>();
  auto l = jet::test::fake_view<std::int64_t>();
  CHECK(encode<jet::float16>(jet::where(flags, h * 2.0, jet::cast<jet::float16>(f) - bf)).family->name == "float32");
  CHECK(encode<bool>(h < bf).family->name == "float32");
  CHECK(encode<std::int32_t>(jet::abs(i) / 3 + i * 0).family->name == "int32");
  CHECK(encode<std::int64_t>(jet::clamp(l, -5, 5) * 7L).family->name == "int64");
  CHECK(encode<std::int64_t>(l & 0xff).family->name == "int64");  // an op of integers only
  // A bool is held as 0 or 1 of the compute type, where ~1 is -2: ~ of a bool runs as logical not.
  const encoding inverted = encode<bool>(~flags);
  REQUIRE(inverted.family);
  const auto rows = listing(inverted);
  CHECK(std::any_of(rows.begin(), rows.end(), [](const auto& row) { return row[0] == id(op_id::logical_not); }));
  CHECK(std::none_of(rows.begin(), rows.end(), [](const auto& row) { return row[0] == id(op_id::bitwise_not); }));
  CHECK(encode<bool>(flags == flags).family);  // bool throughout: any family
}

TEST_CASE("complex expressions run on the complex families: each op on complex values or on real parts",
          "[cpu][interpreter][encoding]") {
  using cf = std::complex<float>;
  using cd = std::complex<double>;
  const auto z = jet::test::fake_view<cf>(8, 0x10000), w = jet::test::fake_view<cf>(8, 0x20000);
  const auto x = jet::test::fake_view<float>(8, 0x30000), y = jet::test::fake_view<float>(8, 0x40000);
  const auto zd = jet::test::fake_view<cd>(8, 0x50000);
  CHECK(encode<cf>(z * w + z).family->name == "complex64");
  CHECK(encode<cd>(zd * 2.0 + jet::conj(zd)).family->name == "complex128");
  CHECK(encode<bool>(z == w).family->name == "complex64");
  CHECK(encode<cf>(z * jet::tan(x)).family->name == "complex64");  // tan takes complex operands: real ones too
  CHECK(encode<jet::bfloat16>(jet::abs(z) + jet::cast<jet::bfloat16>(x)).family->name == "complex64");
  // The first-result benchmark's mixer: x + 2 on real parts, the product and exp on complex
  // values, abs of a complex value to a real one.
  const encoding mixer =
      encode<float>(jet::abs(jet::make_complex(x, y) * jet::exp(jet::make_complex(0.f, y)) / (x + 2.f)));
  REQUIRE(mixer.family);
  CHECK(mixer.family->name == "complex64");
  const auto type_of = [&](op_id op) {
    const auto rows = listing(mixer);
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return (r[0] & 127) == id(op); });
    REQUIRE(row != rows.end());
    return (*row)[5];
  };
  CHECK(type_of(op_id::add) == id(jet::dtype::float32));
  CHECK(type_of(op_id::make_complex) == id(jet::dtype::float32));  // of real operands, to a complex value
  CHECK(type_of(op_id::mul) == id(jet::dtype::complex64));
  CHECK(type_of(op_id::exp) == id(jet::dtype::complex64));
  CHECK(type_of(op_id::div) == id(jet::dtype::complex64));  // a complex by a real, promoted
  CHECK(type_of(op_id::abs) == id(jet::dtype::complex64));
  // Scalars in the compute type: a complex64 in one slot, a real one as (value, 0); a complex128
  // in two.
  const encoding scaled = encode<cf>(z * cf(0.5f, 3.f) + 2);
  REQUIRE(scaled.family);
  cf slots[2];
  std::memcpy(slots, scaled.code.scalars, sizeof slots);
  CHECK(slots[0] == cf(0.5f, 3.f));
  CHECK(slots[1] == cf(2.f, 0.f));
  const encoding wide = encode<cd>(zd * cd(1.5, -2) - cd(1.5, -2) + 1.5);
  REQUIRE(wide.family);
  cd pairs[2];
  std::memcpy(pairs, wide.code.scalars, sizeof pairs);
  CHECK(pairs[0] == cd(1.5, -2));  // one value, once
  CHECK(pairs[1] == cd(1.5, 0));
}

TEST_CASE("what the interpreter cannot express names its reason", "[cpu][interpreter][encoding]") {
  auto x = jet::test::fake_view<float>();
  auto d = jet::test::fake_view<double>();
  auto i = jet::test::fake_view<std::int32_t>();
  auto u = jet::test::fake_view<std::uint32_t>();
  auto reason = [](const encoding& e) {
    CHECK_FALSE(e.family);
    return e.reason;
  };
  CHECK(reason(encode(interpreter_test_twice(x))) == "it calls a user function");
  CHECK(reason(encode(jet::random_uniform(jet::shape{8}, 1))) == "it reads jet::counter");
  CHECK(reason(encode<double>(x + d)) == "it computes in both float32 and float64");
  CHECK(reason(encode<double>(jet::exp(i))) == "it computes in both int32 and float64");
  CHECK(reason(encode<std::uint32_t>(u + u)) == "no interpreter computes in uint32");
  CHECK(reason(encode<std::int32_t>(x + x)) == "the float32 interpreter stores no int32");
  CHECK(reason(encode<std::int32_t>(i * 1.5f)).find("computes in both") != std::string::npos);
  const auto z = jet::test::fake_view<std::complex<float>>();
  CHECK(reason(encode<std::complex<double>>(z + d)) == "it computes in both complex64 and complex128");
  CHECK(reason(encode<std::complex<float>>(z * jet::erf(x))) == "the complex64 interpreter has no `erf`");
}

namespace {

// Sixteen distinct float views, 4 KiB apart, in order or reversed.
std::array<jet::view<float>, 16> sixteen_views(bool reversed) {
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::array{jet::test::fake_view<float>(8, 0x1000 * (reversed ? 16 - K : K + 1))...};
  }
  (std::make_index_sequence<16>{});
}

// The sum of v * 2 over views vs, left to right.
template <std::size_t N> auto doubled_sum(const std::array<jet::view<float>, N>& vs) {
  return std::apply([](const auto&... v) { return (... + (v * 2.f)); }, vs);
}

}  // namespace

TEST_CASE("registers: loads first when they fit, else each before its first use, else a reason",
          "[cpu][interpreter][encoding]") {
  const auto v = sixteen_views(false), reversed = sixteen_views(true);  // sixteen distinct operands
  // Where the program loads its operands: all before its first op, or not.
  const auto loads_first = [](const encoding& e) {
    const auto rows = listing(e);
    const auto is_load = [](const std::vector<int>& row) { return row[0] == id(op_id::input); };
    const auto first_op = std::find_if(rows.begin(), rows.end(), [&](const std::vector<int>& row) {
      return !is_load(row) && row[0] != jet::detail::fetch_op;
    });
    return std::find_if(first_op, rows.end(), is_load) == rows.end();
  };
  const auto out = jet::test::fake_view<float>(8, 0x90000);
  const encoding few = encode(v[0] + v[1] + v[2]);
  REQUIRE(few.family);
  CHECK(loads_first(few));
  // Sixteen operands and a value computed once from two of them, with both read again at the end:
  // seventeen live values if all are loaded first, four if each is loaded when first read.
  const auto p = jet::exp(v[0] * v[1]);
  const auto rest = std::apply([](const auto&, const auto&, const auto&... x) { return (... + x); }, v);
  const encoding many = jet::test::planned_encoding_of(jet::tuple(p + rest + p * v[0] * v[1]), out);
  REQUIRE(many.family);
  CHECK_FALSE(loads_first(many));
  // Sixteen products, each used again after all of them: computed once (they repeat over the same
  // operands), they are sixteen values held at once besides the first sum.
  const encoding held = jet::test::planned_encoding_of(jet::tuple(doubled_sum(v) * doubled_sum(reversed)), out);
  CHECK_FALSE(held.family);
  CHECK(held.reason == "it needs more than the interpreter's 16 registers");
  // Eight outputs of two operands are stored as they are computed.
  using namespace jet::detail;
  const auto &a = v[0], &b = v[1];
  using tie8 = bound<roots<decltype(a + b), decltype(a - b), decltype(a * b), decltype(a / b), decltype(b + a),
                           decltype(b - a), decltype(b * a), decltype(b / a)>,
                     float, float, float, float, float, float, float, float>;
  const std::uint8_t two_arrays[16] = {0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0};  // a, b as distinct inputs
  CHECK(encode_for_interpreter(tie8::kernel::desc, nullptr, two_arrays).family);
}

TEST_CASE("JET_JIT and jet::set_jit_policy choose sync, async or interpret", "[cpu][interpreter][policy]") {
  using jet::jit_policy;
  CHECK(jet::detail::parse_jit_policy("sync") == jit_policy::sync);
  CHECK(jet::detail::parse_jit_policy("async") == jit_policy::async);
  CHECK(jet::detail::parse_jit_policy("interpret") == jit_policy::interpret);
  CHECK(jet::detail::parse_jit_policy("Async") == jit_policy::async);  // words ignore case
  CHECK_FALSE(jet::detail::parse_jit_policy(""));
  const jit_policy before = jet::get_jit_policy();
  jet::set_jit_policy(jit_policy::interpret);
  CHECK(jet::get_jit_policy() == jit_policy::interpret);
  jet::set_jit_policy(before);
  CHECK(jet::get_jit_policy() == before);
}

namespace {

// The values the program `e` stores, run symbolically: every value is the text of its expression
// (an input as in<k>, with k its distinct input; a scalar as s).
std::vector<std::string> run_symbolically(const encoding& e) {
  using namespace jet::detail;
  std::string reg[interpreter_registers], acc;
  std::vector<std::string> out(e.output_count);
  auto operand = [&](int k) -> std::string {
    if (k == interpreter_accumulator) return acc;
    if (k >= interpreter_scalar_operand && k < interpreter_no_operand) return "s";
    REQUIRE(k < static_cast<int>(interpreter_registers));
    return reg[k];
  };
  for (unsigned i = 0; i < e.code.count; ++i) {
    const instruction& in = e.code.code[i];
    if (in.op == id(op_id::input)) {
      reg[in.dst] = "in" + std::to_string(in.a);
      reg[in.c] = "in" + std::to_string(in.b);
    } else if (in.op == fetch_op) {
      acc = operand(in.a);
    } else if (in.op == save_op) {
      reg[in.dst] = acc;
    } else if (in.op == store_op) {
      out.at(in.dst) = operand(in.a);
    } else {
      const op_id op = op_id(in.op & ~scalar_second_op);
      std::string text = std::string(op_tag(op)) + "(" + acc;
      if (in.op & scalar_second_op)
        text += ",s";
      else if (in.b != interpreter_no_operand)
        text += "," + operand(in.b);
      if (in.c != interpreter_no_operand) text += "," + operand(in.c);
      acc = text + ")";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("random expressions run on the accumulator machine compute what they say", "[cpu][interpreter][encoding]") {
  // Float32 trees of unary, binary and ternary ops over four input slots (two distinct arrays)
  // and scalars, with up to three outputs: the encoding, run symbolically, stores each output's
  // expression. Checks the loads, fetches, saves, register reuse and scalar operands.
  using jet::detail::node;
  const op_id ops[] = {op_id::add, op_id::sub, op_id::mul, op_id::max, op_id::neg, op_id::exp, op_id::sin, op_id::fma};
  const std::uint8_t unique_of[4] = {0, 1, 0, 1};
  std::uint64_t state = 12345;
  auto next = [&](unsigned bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<unsigned>((state >> 33) % bound);
  };
  int encoded = 0;
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<node> nodes;
    std::vector<std::string> text;
    const jet::dtype f32 = jet::dtype::float32;
    std::function<std::uint16_t(int)> grow = [&](int depth) -> std::uint16_t {
      node n;
      n.type = f32;
      const unsigned pick = depth == 0 ? next(3) : 3 + next(8);
      std::string t;
      if (pick < 3) {
        n.op = pick == 2 ? op_id::scalar : op_id::input;
        n.arg[0] = static_cast<std::uint16_t>(pick == 2 ? 0 : next(4));
        t = pick == 2 ? "s" : "in" + std::to_string(unique_of[n.arg[0]]);
      } else {
        n.op = ops[pick - 3];
        n.arity = n.op == op_id::fma ? 3 : n.op == op_id::neg || n.op == op_id::exp || n.op == op_id::sin ? 1 : 2;
        t = std::string(jet::detail::op_tag(n.op)) + "(";
        for (int k = 0; k < n.arity; ++k) {
          n.arg_type[k] = f32;
          n.arg[k] = grow(static_cast<int>(next(static_cast<unsigned>(depth))));
          t += (k ? "," : "") + text[n.arg[k]];
        }
        t += ")";
      }
      nodes.push_back(n);
      text.push_back(t);
      return static_cast<std::uint16_t>(nodes.size() - 1);
    };
    const unsigned outputs = 1 + next(3);
    std::vector<std::uint16_t> roots;
    for (unsigned k = 0; k < outputs; ++k) roots.push_back(grow(1 + static_cast<int>(next(5))));
    const jet::dtype input_types[4] = {f32, f32, f32, f32}, out_types[3] = {f32, f32, f32};
    jet::detail::kernel_desc d{};
    d.nodes = nodes.data();
    d.node_count = static_cast<std::uint32_t>(nodes.size());
    d.input_count = 4;
    d.scalar_count = 1;
    d.input_types = input_types;
    d.out_count = outputs;
    d.out_nodes = roots.data();
    d.out_types = out_types;
    const encoding e = jet::detail::encode_for_interpreter(d, nullptr, unique_of);
    if (!e.family) {
      CHECK(e.reason.find("registers") != std::string::npos);
      continue;
    }
    ++encoded;
    const std::vector<std::string> stored = run_symbolically(e);
    for (unsigned k = 0; k < outputs; ++k) CHECK(stored[k] == text[roots[k]]);
  }
  CHECK(encoded > 400);
}
