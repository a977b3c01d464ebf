// The fuzzer's parts that need no GPU: random expressions (reproducible, well typed, within the
// limits, every op and dtype reached), their generated sources (NVRTC compiles every one for sm_90,
// and each is made of jet's own words only), and the run-time host evaluation of random cases
// (hand-made ones: test_fuzz_reference.cpp).
#include "support/catch.hpp"
#include "support/host_evaluation.hpp"
#include "support/nvrtc.hpp"
#include "support/operands.hpp"
#include "support/random_expression.hpp"
#include "support/reference.hpp"
#include "support/sanitized.hpp"
#include "support/unfused.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "compile/compiler.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using jet::test::make_random_expression;
using jet::test::random_expression;

namespace {

// A fixed run seed: CI compiles the same kernels every time.
constexpr std::uint64_t cpu_run_seed = 20240611;

std::vector<random_expression> random_expressions(std::size_t count) {
  std::vector<random_expression> r;
  for (std::size_t i = 0; i < count; ++i) r.push_back(make_random_expression(jet::test::case_seed(cpu_run_seed, i)));
  return r;
}

// A random launch variant for d, as the planner could choose one: slots of one dtype sharing an
// input, strided, broadcast and gathered accesses, the scalar path, 64-bit indices, aliasing, tiles,
// rows.
jet::detail::variant_key random_variant(const jet::detail::kernel_desc& d, jet::test::chooser& c) {
  using jet::detail::access;
  jet::detail::variant_key v;
  v.rank = static_cast<std::uint8_t>(1 + c.below(3));
  v.index32 = c.chance(0.8);
  v.out_aliases_input = c.chance(0.1);
  v.vec = static_cast<std::uint8_t>(c.chance(0.5) ? jet::detail::max_vector_width(d) : 1);
  std::uint8_t distinct = 0;
  for (unsigned k = 0; k < d.input_count; ++k) {
    const unsigned earlier = static_cast<unsigned>(c.below(k + 1));
    const bool share = earlier < k && d.input_types[earlier] == d.input_types[k] && c.chance(0.3);
    v.unique_of[k] = share ? v.unique_of[earlier] : distinct++;
  }
  const std::vector<access> inputs = v.vec == 1    ? std::vector{access::linear, access::gather}
                                     : v.rank == 1 ? std::vector{access::linear, access::broadcast}
                                                   : std::vector{access::linear, access::unit, access::broadcast};
  const std::vector<access> outputs = v.vec == 1    ? std::vector{access::linear, access::gather}
                                      : v.rank == 1 ? std::vector{access::linear}
                                                    : std::vector{access::linear, access::unit};
  for (unsigned k = 0; k < distinct; ++k) v.input_access[k] = c.pick(inputs);
  v.output_access[0] = c.pick(outputs);
  if (v.rank >= 2 && c.chance(0.25)) {  // tiled: every operand transposed or gathered
    v.tiled = true;
    v.vec = 1;
    const std::vector tiled{access::transposed, access::gather};
    // Transposed operands' tiles within the shared memory a kernel may declare, as the planner
    // keeps them (a tiled kernel of many wide operands does not fit 48 KiB).
    std::size_t shared = 0;
    auto pick_tiled = [&](jet::dtype t) {
      const std::size_t tile = jet::detail::tile_bytes(static_cast<int>(jet::size_of(t)));
      if (shared + tile > jet::detail::shared_memory_limit) return access::gather;
      const access a = c.pick(tiled);
      if (a == access::transposed) shared += tile;
      return a;
    };
    for (unsigned k = 0; k < distinct; ++k) {
      const unsigned slot = static_cast<unsigned>(std::find(v.unique_of, v.unique_of + d.input_count, k) - v.unique_of);
      v.input_access[k] = pick_tiled(d.input_types[slot]);
    }
    for (unsigned slot = 0; slot < d.input_count; ++slot)  // a counter reads no memory to transpose
      if (jet::detail::is_counter(d, slot)) v.input_access[v.unique_of[slot]] = access::gather;
    v.output_access[0] = pick_tiled(d.out_types[0]);
  } else if (v.rank >= 2 && c.chance(0.25)) {  // rows: any access but transposed; vectors only where contiguous
    v.rows = true;
    const std::vector<access> row_inputs =
        v.vec == 1 ? std::vector{access::linear, access::unit, access::broadcast, access::gather}
                   : std::vector{access::linear, access::unit, access::broadcast};
    const std::vector<access> row_outputs = v.vec == 1 ? std::vector{access::linear, access::unit, access::gather}
                                                       : std::vector{access::linear, access::unit};
    for (unsigned k = 0; k < distinct; ++k) v.input_access[k] = c.pick(row_inputs);
    v.output_access[0] = c.pick(row_outputs);
  }
  return v;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every word jet can write into a kernel: those of the code generator's string literals, of the op
// table (its CUDA spellings and helpers, its tags as jet_<tag>), of the dtypes' names, and the
// 16-bit conversions' names it makes of them (jet_float16_to_float, jet_float_to_bfloat16).
std::set<std::string> jet_vocabulary() {
  std::set<std::string> words;
  const std::regex word("[A-Za-z_][A-Za-z0-9_]*");
  auto add_words = [&](const std::string& text) {
    for (std::sregex_iterator it(text.begin(), text.end(), word), end; it != end; ++it) words.insert(it->str());
  };
  const std::regex literal(R"__(R"cuda\(([\s\S]*?)\)cuda"|"((?:[^"\\\n]|\\.)*)")__");
  for (const char* file : {"src/codegen/spelling.hpp", "src/codegen/spelling.cpp", "src/codegen/source_text.cpp",
                           "src/codegen/kernel_parts.hpp", "src/codegen/kernel_parts.cpp",
                           "src/codegen/elementwise.cpp", "src/codegen/reduction.cpp", "src/codegen/complex_source.hpp",
                           "include/jet/ops.def", "include/jet/dtype.hpp"}) {
    const std::string text = read_file(std::string(JET_SOURCE_DIR) + "/" + file);
    for (std::sregex_iterator it(text.begin(), text.end(), literal), end; it != end; ++it) add_words(it->str());
  }
  for (const auto& op : jet::test::op_table()) {
    words.insert(op.name);
    words.insert(std::string("jet_") + op.name);
  }
  for (const jet::dtype t : jet::test::all_dtypes) {
    words.insert("jet_" + std::string(jet::name(t)) + "_to_float");
    words.insert("jet_float_to_" + std::string(jet::name(t)));
  }
  return words;
}

// What in `source` jet would not have written: words outside its vocabulary and the names it
// numbers (t3, x0, stored_x0, in1, tile_in2, in0_row, ...), string literals other than extern "C" and, in an
// asm statement, the 16-bit conversions' instruction and operands (made of its vocabulary's words),
// preprocessor lines other than #pragma unroll, characters outside printable ASCII.
std::vector<std::string> foreign_tokens(const std::string& source, const std::set<std::string>& vocabulary) {
  static const std::regex numbered(
      "(t|x|stored_x|s|in|out|is|os|o|v|r|result|base_in|base_out|tile_in|tile_out)[0-9]+(_row|_at)?");
  static const std::regex word("[A-Za-z_][A-Za-z0-9_]*");
  auto known_words = [&](const std::string& text) {
    for (std::sregex_iterator it(text.begin(), text.end(), word), end; it != end; ++it)
      if (!vocabulary.count(it->str())) return false;
    return true;
  };
  static const std::regex token(R"__([A-Za-z_][A-Za-z0-9_]*|[0-9][0-9A-Za-z.]*|"[^"\n]*"|\S)__");
  static const std::string punctuation = "{}()[]<>;:,.=+-*/%&|^!~?'";
  std::vector<std::string> foreign;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line[first] == '#' && !line.starts_with("#pragma unroll"))
      foreign.push_back(line);
    for (std::sregex_iterator it(line.begin(), line.end(), token), end; it != end; ++it) {
      const std::string t = it->str();
      const unsigned char head = static_cast<unsigned char>(t[0]);
      const bool known = std::isalpha(head) || head == '_' ? vocabulary.count(t) || std::regex_match(t, numbered)
                         : std::isdigit(head)              ? true
                         : head == '"' ? t == "\"C\"" || (line.find("asm(") != std::string::npos && known_words(t))
                         : head == '#' ? it->position() == static_cast<long>(first)
                                       : punctuation.find(t[0]) != std::string::npos;
      if (!known) foreign.push_back(t);
    }
  }
  return foreign;
}

// The PTX of k's kernel (its default variant) for sm_90.
std::string ptx_of(const jet::detail::kernel_desc& k) {
  const jet::test::nvrtc_output out =
      jet::test::nvrtc_compile(jet::detail::generate_source(k, jet::detail::default_variant(k)));
  INFO(out.log);
  REQUIRE(out.compiled);
  REQUIRE(out.ptx.find(".entry") != std::string::npos);
  return out.ptx;
}

}  // namespace

TEST_CASE("random expressions: reproducible, well typed, within the limits, every op and dtype reached",
          "[cpu][fuzz]") {
  const std::size_t count = 2000;
  const auto expressions = random_expressions(count);
  jet::test::coverage coverage;
  std::set<jet::dtype> node_dtypes, input_dtypes, output_dtypes;
  std::set<std::uint64_t> hashes;
  std::set<std::string> forms;
  std::size_t broadcast = 0, misaligned = 0, empty = 0, with_repeats = 0, with_names = 0, holding = 0, apart = 0;
  std::size_t complex_trees = 0;
  std::map<jet::detail::op_id, std::size_t> trees_with_complex_op;  // an op on complex operands, or making them
  for (const random_expression& r : expressions) {
    const auto d = r.desc();
    INFO("seed " << r.seed << "\n" << r.text());
    CHECK(r.depth() <= 8);
    CHECK(r.operands.size() <= 6);
    CHECK(d.input_count >= 1);
    CHECK(d.input_count <= jet::detail::max_inputs);
    CHECK(d.scalar_count <= jet::detail::max_scalars);
    CHECK(r.nodes.back().op != jet::detail::op_id::input);
    coverage.add(r);
    std::set<jet::detail::op_id> complex_ops;
    for (const auto& n : r.nodes)
      if (n.op != jet::detail::op_id::input && n.op != jet::detail::op_id::scalar && jet::test::has_complex(n))
        complex_ops.insert(n.op);
    complex_trees += !complex_ops.empty();
    for (const auto op : complex_ops) ++trees_with_complex_op[op];
    for (const auto& n : r.nodes) {
      node_dtypes.insert(n.type);
      if (n.op == jet::detail::op_id::input || n.op == jet::detail::op_id::scalar) continue;
      // Typed as the templates type: resolve again from the operands.
      const auto& op = jet::test::op_for(n.op);
      jet::dtype in[3];
      bool weak[3];
      for (int k = 0; k < n.arity; ++k) {
        in[k] = r.nodes[n.arg[k]].type;
        weak[k] = r.nodes[n.arg[k]].op == jet::detail::op_id::scalar;
      }
      CHECK(n.arity == op.arity);
      CHECK(std::find(weak, weak + n.arity, false) != weak + n.arity);  // an array operand at least
      const auto t = jet::detail::resolve(op.rule, op.arity, in, weak, n.type);
      CHECK(jet::detail::accepts(op.domain, op.rule, op.arity, t));  // in the op's domain
      CHECK(t.result == n.type);
      CHECK(std::equal(t.args, t.args + n.arity, n.arg_type));
    }
    for (unsigned k = 0; k < d.input_count; ++k) input_dtypes.insert(d.input_types[k]);
    output_dtypes.insert(r.out_type[0]);
    hashes.insert(d.hash);
    for (const auto& o : r.operands) {
      forms.insert(o.where.form);
      broadcast += o.where.view.extents.size() < r.shape.size();
      misaligned += o.where.first % (16 / jet::size_of(o.type)) != 0;
    }
    empty += r.shape.size() == 0;
    // Repeats: as the types list them, and holding or not for the operands drawn.
    with_repeats += d.repeat_count > 0;
    with_names += std::any_of(r.nodes.begin(), r.nodes.end(), [](const jet::detail::node& n) { return n.named; });
    for (unsigned k = 0; k < d.repeat_count; ++k) {
      const jet::detail::repeat& x = d.repeats[k];
      bool same = std::equal(r.scalar_values.begin() + x.scalar_first,
                             r.scalar_values.begin() + x.scalar_first + x.scalar_count,
                             r.scalar_values.begin() + x.same_scalar_first);
      for (unsigned i = 0; i < x.input_count; ++i)
        same = same && r.slot_operand[x.input_first + i] == r.slot_operand[x.same_input_first + i];
      (same ? holding : apart) += 1;
    }
  }
  CHECK(with_repeats > count / 10);  // repeated subtrees and jet::let values are drawn
  CHECK(with_names > count / 20);
  CHECK(holding > count / 10);
  CHECK(apart > count / 100);
  CHECK(coverage.rare() == "");  // every op and every dtype in at least 1% of the trees
  // A sensible share of the trees is complex, and every op that takes complex operands is drawn on them.
  CHECK(complex_trees * 10 >= count);
  CHECK(complex_trees * 4 <= count);
  for (const auto& op : jet::test::op_table())
    if (jet::detail::accepts(op.domain, jet::dtype::complex64) || op.rule == jet::detail::rule::make_complex) {
      INFO(op.name << " on complex operands in " << trees_with_complex_op[op.id] << " of " << count << " trees");
      CHECK(trees_with_complex_op[op.id] * 500 >= count);
    }
  CHECK(node_dtypes.size() == std::size(jet::test::all_dtypes));
  CHECK(input_dtypes.size() == std::size(jet::test::all_dtypes));
  CHECK(output_dtypes.size() == std::size(jet::test::all_dtypes));
  CHECK(hashes.size() >= count * 9 / 10);  // small trees repeat
  CHECK(forms.size() ==
        std::set<std::string>(std::begin(jet::test::operand_forms), std::end(jet::test::operand_forms)).size());
  CHECK(broadcast > count / 10);
  CHECK(misaligned > count / 10);
  CHECK(empty > 0);

  const random_expression again = make_random_expression(expressions[7].seed);
  CHECK(again.nodes == expressions[7].nodes);
  CHECK(again.desc().hash == expressions[7].desc().hash);
  CHECK(again.text() == expressions[7].text());
  CHECK(again.operands[0].values == expressions[7].operands[0].values);
}

TEST_CASE("a random expression prints as C++ with its operands' dtypes, shapes and layouts", "[cpu][fuzz]") {
  const random_expression r = make_random_expression(jet::test::case_seed(cpu_run_seed, 3));
  const std::string text = r.text();
  CAPTURE(text);
  CHECK(text.find("jet::view<") != std::string::npos);
  CHECK(text.find("out = ") != std::string::npos);
  CHECK(text.find("in0") == std::string::npos);  // slots are named after their operands
  CHECK(text.find("shape " + r.shape.to_string()) != std::string::npos);
}

TEST_CASE("every random kernel, fused and unfused, compiles for sm_90 and is made of jet's words only",
          "[cpu][fuzz][compile]") {
  const std::set<std::string> vocabulary = jet_vocabulary();
  REQUIRE(vocabulary.count("jet_kernel"));
  // 150 expressions, each in a random variant, and each distinct kernel of their unfused steps.
  std::vector<std::pair<std::string, std::string>> kernels;  // source, what it came from
  std::set<std::string> seen;
  for (const random_expression& r : random_expressions(150)) {
    jet::test::chooser c(r.seed);
    const auto d = r.desc();
    const std::string label = "seed " + std::to_string(r.seed) + "\n" + r.text();
    kernels.emplace_back(jet::detail::generate_source(d, random_variant(d, c)), label);
    for (const auto& step : jet::test::unfused_steps(d)) {
      const auto sd = step.desc();
      std::string source = jet::detail::generate_source(sd, jet::detail::default_variant(sd));
      if (seen.insert(source).second) kernels.emplace_back(std::move(source), "an unfused step of " + label);
    }
  }
  std::size_t foreign = 0;
  for (const auto& [source, label] : kernels) {
    const std::vector<std::string> tokens = foreign_tokens(source, vocabulary);
    if (!tokens.empty() && foreign++ < 3) {
      std::string list;
      for (const std::string& t : tokens) list += " [" + t + "]";
      FAIL_CHECK("not written by jet:" << list << "\nin the kernel of " << label << "\n" << source);
    }
  }
  CHECK(foreign == 0);

  // NVRTC in as many threads as there are cores (CI has 2); built with sanitizers, a part
  // (support/sanitized.hpp).
  const std::size_t stride = jet::test::nvrtc_stride;
  std::atomic<std::size_t> next{0}, failed{0};
  std::mutex report;
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < std::max(1u, std::thread::hardware_concurrency()); ++w)
    pool.emplace_back([&] {
      for (std::size_t i; (i = stride * next++) < kernels.size();) {
        try {
          if (jet::detail::compile_to_cubin(kernels[i].first, 90, kernels[i].second).image.empty()) ++failed;
        } catch (const std::exception& e) {
          std::lock_guard lock(report);
          if (failed++ < 3) std::printf("%s\n", e.what());
        }
      }
    });
  for (auto& t : pool) t.join();
  INFO(kernels.size() << " kernels");
  CHECK(failed == 0);
  CHECK(kernels.size() > 150);
}

TEST_CASE("abs of int16's lowest wraps before it widens, and no PTX abs.s16 computes it", "[cpu][fuzz][compile]") {
  // The GPU fuzzer's second run (tests/README.md): fused, abs(b) of b = -32768 (int16) was +32768
  // in abs(b) + a (int32), flipping the comparison; the unfused steps store abs(b) as int16
  // (-32768) and agreed with the host evaluation. NVVM had made the int16 abs PTX's abs.s16,
  // which ptxas computes in a 32-bit register (sign-extend, IABS) and then takes for a
  // sign-extended 16-bit value, with or without --fmad=false.
  using jet::dtype;
  using jet::detail::op_id;
  const auto a = jet::test::fake_view<std::int32_t>();
  const auto b = jet::test::fake_view<std::int16_t>(8, 0x20000);
  const jet::detail::kernel_desc& d =
      jet::test::desc_of(b < jet::clamp(jet::pow(b, a), -jet::relu(jet::abs(b) + a), jet::exp(a)));
  // abs computes in int16 and its result converts to int32 for the add; the floating nodes are float64.
  auto node_of = [&](op_id op) {
    for (unsigned i = 0; i < d.node_count; ++i)
      if (d.nodes[i].op == op) return d.nodes[i];
    FAIL("no such node");
    return jet::detail::node{};
  };
  CHECK(node_of(op_id::abs).type == dtype::int16);
  CHECK(node_of(op_id::add).arg_type[0] == dtype::int32);
  CHECK(node_of(op_id::pow).type == dtype::float64);
  CHECK(node_of(op_id::clamp).type == dtype::float64);
  CHECK(node_of(op_id::less).arg_type[0] == dtype::float64);

  // The elements the GPU got wrong fused: b = -32768, so abs(b) + a = a - 32768, exactly; the
  // host evaluation determines each (bound 0), and an evaluation in the nodes' own dtypes agrees.
  const std::pair<long double, long double> wrong_on_gpu[] = {{2147483647, 0}, {32767, 1}, {65535, 1}, {29, 1}};
  std::vector<jet::test::bounded> scratch;
  std::vector<jet::test::complex_value> own;
  for (const auto& [a_value, want] : wrong_on_gpu) {
    auto input = [&, a_value = a_value](unsigned slot) {
      return d.input_types[slot] == dtype::int16 ? -32768 : a_value;
    };
    INFO("a = " << static_cast<double>(a_value));
    const jet::test::bounded ref = jet::test::evaluate_element(d, 0, input, nullptr, scratch);
    CHECK(ref.value == want);
    CHECK(ref.radius == 0);
    CHECK(jet::test::evaluate_element_in_own_dtypes(d, 0, input, nullptr, own) == want);
    for (unsigned k = 0; k < d.node_count; ++k)
      if (d.nodes[k].op == op_id::abs) CHECK(scratch[k].value == -32768);
  }

  // Neither the fused kernel nor the unfused abs step computes abs with PTX's abs.
  CHECK(ptx_of(d).find("abs.s") == std::string::npos);
  std::size_t abs_steps = 0;
  for (const jet::test::unfused_step& step : jet::test::unfused_steps(d))
    if (step.nodes.back().op == op_id::abs) {
      ++abs_steps;
      CHECK(ptx_of(step.desc()).find("abs.s") == std::string::npos);
    }
  CHECK(abs_steps == 1);
}

TEST_CASE("abs of the lowest int64 stays negative where it converts to float64", "[cpu][fuzz][compile]") {
  // The interpreted fuzzer's run of 2026-12-03 (tests/README.md): fused, sigmoid(exp(abs(a))) of
  // a = lowest int64 was 1, not 0.5. NVVM had made the int64 abs PTX's abs.s64, and ptxas, taking
  // that for never negative, dropped exp's select of 0 for a negative argument (-2^63): exp's
  // result was x + inf. The unfused steps, which store abs(a) first, agreed with the host.
  using jet::dtype;
  using jet::detail::op_id;
  const jet::detail::kernel_desc& d =
      jet::test::desc_of(jet::sigmoid(jet::exp(jet::abs(jet::test::fake_view<std::int64_t>()))));
  for (unsigned i = 0; i < d.node_count; ++i)
    if (d.nodes[i].op == op_id::abs) CHECK(d.nodes[i].type == dtype::int64);
  // The host evaluation of a = lowest: abs(a) is lowest, exp(-2^63) is 0, sigmoid(0) is 0.5.
  std::vector<jet::test::bounded> scratch;
  const jet::test::bounded ref = jet::test::evaluate_element(
      d, 0, [](unsigned) { return static_cast<long double>(std::numeric_limits<std::int64_t>::lowest()); }, nullptr,
      scratch);
  CHECK(ref.value == 0.5);
  // The fused kernel's PTX computes no abs, and keeps a select on the sign of abs(a).
  const std::string ptx = ptx_of(d);
  CHECK(ptx.find("abs.s") == std::string::npos);
  CHECK(ptx.find("setp.lt.s64") != std::string::npos);
}

TEST_CASE("an evaluation in the nodes' own dtypes passes the fuzzer's judge", "[cpu][fuzz][reference]") {
  // The host's float32 math in place of the GPU's: the bound must cover it, the NaNs must match.
  // Complex nodes compute in std::complex<float> and <double> (GCC's Annex G arithmetic, glibc's
  // functions), which the complex bound must cover as well.
  std::size_t elements = 0, determined = 0, failed = 0, complex_elements = 0, complex_determined = 0;
  std::vector<jet::test::bounded> scratch;
  std::vector<jet::test::complex_value> own;
  for (const random_expression& r : random_expressions(600)) {
    const auto d = r.desc();
    const bool complex_tree = std::any_of(r.nodes.begin(), r.nodes.end(), jet::test::has_complex);
    for (std::size_t i = 0; i < r.shape.size(); ++i) {
      auto input = [&](unsigned slot) {
        const auto& o = r.operands[r.slot_operand[slot]];
        return o.values[o.where.first + jet::test::offset_of(o.where.view, i, &r.shape)];
      };
      const auto ref = jet::test::evaluate_element(d, 0, input, r.scalar_values.data(), scratch);
      const auto got = jet::test::evaluate_element_in_own_dtypes(d, 0, input, r.scalar_values.data(), own);
      ++elements;
      determined += ref.determined();
      complex_elements += complex_tree;
      complex_determined += complex_tree && ref.determined();
      const jet::dtype out = r.out_type[0];
      if (const char* wrong = jet::test::misjudged(out, ref, got, got); wrong && failed++ < 5)
        FAIL_CHECK("seed " << r.seed << ", element " << i << ": " << wrong << ": reference "
                           << jet::test::reference_text(out, ref) << ", in own dtypes "
                           << jet::test::value_text(out, got) << "\n"
                           << r.text());
    }
  }
  INFO(determined << " of " << elements << " elements determined; " << complex_determined << " of " << complex_elements
                  << " in trees with complex nodes");
  CHECK(failed == 0);
  CHECK(determined * 3 >= elements * 2);
  CHECK(complex_determined * 3 >= complex_elements);
}

TEST_CASE("every random case, fused and unfused, passes the core's checks and planning", "[.][no_device_plan]") {
  // With no driver (CTest points JET_CUDA_DRIVER at a library that does not exist), evaluate()
  // checks shapes, pointers and outputs and plans the launch, then finds no device: no_device, and
  // nothing earlier, means the GPU test's cases are all valid evaluations. The addresses are laid
  // out as the GPU test's allocations and never dereferenced.
  REQUIRE_FALSE(jet::device_available());
  std::size_t planned = 0;
  for (const random_expression& r : random_expressions(2000)) {
    INFO("seed " << r.seed << "\n" << r.text());
    const auto d = r.desc();
    auto address = [](std::size_t allocation) {
      return reinterpret_cast<char*>(std::uintptr_t{1} << 32) + (allocation << 24);
    };
    std::vector<const void*> inputs;
    for (unsigned slot = 0; slot < d.input_count; ++slot) {
      const auto& o = r.operands[r.slot_operand[slot]];
      inputs.push_back(address(r.slot_operand[slot]) + o.where.first * jet::size_of(o.type));
    }
    const std::vector<const jet::detail::layout*> layouts = r.input_layouts();
    void* out = address(7) + r.output.first * jet::size_of(r.out_type[0]);
    jet::detail::kernel_slot slot;
    const jet::detail::evaluation fused{d, slot, &out, &r.output.view, inputs.data(), layouts.data(), r.scalars.data()};
    if (r.shape.size() == 0)
      CHECK_NOTHROW(jet::detail::evaluate(fused));
    else
      CHECK_THROWS_AS(jet::detail::evaluate(fused), jet::no_device);
    std::size_t arrays = 8;
    jet::test::evaluate_unfused(
        d, inputs.data(), layouts.data(), r.scalars.data(), [&](std::size_t) -> void* { return address(arrays++); },
        [&](const jet::detail::evaluation& e) {
          // A step of an empty expression may still have elements (a row operand of a (0, C) result).
          if (jet::detail::broadcast_shape(e.desc, e.input_layouts).size() == 0)
            CHECK_NOTHROW(jet::detail::evaluate(e));
          else
            CHECK_THROWS_AS(jet::detail::evaluate(e), jet::no_device);
        });
    ++planned;
  }
  CHECK(planned == 2000);
}
