// Every generated source of a fixed corpus, against the hashes checked in under tests/snapshots/:
// every op in every dtype, the kernels the planner chooses for 300 fixed fuzzer cases (linear,
// strided, tiled and rows kernels, misaligned and transposed operands and outputs) and each of
// their unfused steps, every reduction of those cases over all elements and along an inner and an
// outer axis, and each interpreter family's kernel. A change to the code generator or the planner
// that alters any of them fails here, naming what changed; one meant to alter them says why in its
// commit and rewrites the file: JET_WRITE_SNAPSHOT=1 build/tests/jet_cpu_tests "[snapshot]".
#include "support/catch.hpp"
#include "support/random_expression.hpp"
#include "support/runtime_desc.hpp"
#include "support/unfused.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "interpreter/encoder.hpp"
#include "interpreter/launcher.hpp"
#include "interpreter/source.hpp"
#include "launch/planner.hpp"

#include <jet/jet.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using jet::dtype;
using jet::detail::kernel_desc;
using jet::detail::reduction_id;
using jet::test::random_expression;

const std::string snapshot_path = std::string(JET_SOURCE_DIR) + "/tests/snapshots/generated_sources.txt";
constexpr std::uint64_t snapshot_run_seed = 20261203;
constexpr std::size_t snapshot_cases = 300;

std::string hash_of(const std::string& source) {
  std::uint64_t h = jet::detail::fnv1a_basis;
  for (unsigned char c : source) h = jet::detail::fnv1a(h, c);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

using snapshot = std::map<std::string, std::string>;  // what the source is of -> its hash

// op applied to inputs of dtype t (a cast casts to t), for each t in its domain.
void add_every_op(snapshot& s) {
  for (const auto& op : jet::test::op_table())
    for (dtype t : jet::test::all_dtypes) {
      std::vector<jet::detail::node> nodes;
      dtype in[3];
      bool weak[3] = {};
      for (int k = 0; k < op.arity; ++k) {
        jet::detail::node leaf{jet::detail::op_id::input, t};
        leaf.arg[0] = static_cast<std::uint16_t>(k);
        nodes.push_back(leaf);
        in[k] = t;
      }
      const jet::detail::typing typed = jet::detail::resolve(op.rule, op.arity, in, weak, t);
      if (!jet::detail::accepts(op.domain, op.rule, op.arity, typed)) continue;
      jet::detail::node n{op.id, typed.result, static_cast<std::uint8_t>(op.arity)};
      for (int k = 0; k < op.arity; ++k) {
        n.arg_type[k] = typed.args[k];
        n.arg[k] = static_cast<std::uint16_t>(k);
      }
      nodes.push_back(n);
      const std::vector<dtype> input_types(op.arity, t);
      const std::array<std::uint16_t, 1> out_node{static_cast<std::uint16_t>(op.arity)};
      const std::array<dtype, 1> out_type{typed.result};
      const kernel_desc d = jet::test::runtime_desc(nodes, input_types, 0, out_node, out_type);
      s["op " + std::string(op.name) + " " + std::string(jet::name(t))] =
          hash_of(jet::detail::generate_source(d, jet::detail::default_variant(d)));
    }
}

// Where case r's operands and output lie: distinct allocations, each at its placement's offset.
struct case_addresses {
  std::vector<const void*> inputs;
  void* output;
};
case_addresses addresses_of(const random_expression& r) {
  auto allocation = [](std::size_t k) { return reinterpret_cast<char*>(std::uintptr_t{1} << 32) + (k << 24); };
  case_addresses a;
  for (std::uint8_t operand : r.slot_operand)
    a.inputs.push_back(allocation(operand) + r.operands[operand].where.first * jet::size_of(r.operands[operand].type));
  a.output = allocation(7) + r.output.first * jet::size_of(r.out_type[0]);
  return a;
}

// The planned kernel of each case, its unfused steps' kernels, and its reductions.
void add_fuzz_cases(snapshot& s) {
  for (std::size_t i = 0; i < snapshot_cases; ++i) {
    const random_expression r = jet::test::make_random_expression(jet::test::case_seed(snapshot_run_seed, i));
    const std::string label = "case " + std::to_string(i);
    const kernel_desc d = r.desc();
    case_addresses at = addresses_of(r);
    const std::vector<const jet::detail::layout*> layouts = r.input_layouts();
    jet::detail::kernel_slot slot;
    const jet::detail::evaluation e{
        d, slot, &at.output, &r.output.view, at.inputs.data(), layouts.data(), r.scalars.data()};
    if (r.shape.size() != 0)
      s[label + " fused"] = hash_of(jet::detail::generate_source(d, jet::detail::planned_variant(e)));
    int step = 0;
    for (const auto& unfused : jet::test::unfused_steps(d)) {
      const kernel_desc sd = unfused.desc();
      s[label + " step " + std::to_string(step++)] =
          hash_of(jet::detail::generate_source(sd, jet::detail::default_variant(sd)));
    }
    for (reduction_id rid :
         {reduction_id::sum, reduction_id::prod, reduction_id::mean, reduction_id::norm2, reduction_id::max,
          reduction_id::min, reduction_id::any, reduction_id::all, reduction_id::argmax, reduction_id::argmin}) {
      kernel_desc rd = d;
      rd.reduction = rid;
      const int rank = r.shape.rank();
      for (std::optional<int> axis : {jet::detail::all_axes, std::optional<int>(0), std::optional<int>(rank - 1)}) {
        const std::string what = label + " reduction " + std::to_string(static_cast<int>(rid)) + " axis " +
                                 (axis ? std::to_string(*axis) : std::string("all"));
        try {
          const jet::detail::layout out =
              jet::detail::layout::contiguous(jet::detail::reduced_shape(rd, layouts.data(), axis));
          void* outputs[] = {nullptr};
          const jet::detail::evaluation re{rd, slot, outputs, &out, at.inputs.data(), layouts.data(), r.scalars.data()};
          const auto launch = jet::detail::planned_reduction(re, axis, 132);
          s[what] = launch.blocks ? hash_of(jet::detail::generate_source(rd, launch.variant)) : "no-launch";
        } catch (const jet::error& error) {
          s[what] = "refused";
        }
      }
    }
  }
}

void add_interpreters(snapshot& s) {
  for (const auto& family : jet::detail::interpreter_families)
    s["interpreter " + std::string(family.name)] = hash_of(jet::detail::interpreter_source(family));
}

snapshot read_snapshot() {
  snapshot s;
  std::ifstream in(snapshot_path);
  for (std::string line; std::getline(in, line);) {
    const auto space = line.rfind(' ');
    if (space != std::string::npos) s[line.substr(0, space)] = line.substr(space + 1);
  }
  return s;
}

}  // namespace

TEST_CASE("every generated source of the snapshot corpus is the one checked in", "[cpu][snapshot]") {
  snapshot now;
  add_every_op(now);
  add_fuzz_cases(now);
  add_interpreters(now);
  if (std::getenv("JET_WRITE_SNAPSHOT")) {
    std::ofstream out(snapshot_path);
    for (const auto& [what, hash] : now) out << what << ' ' << hash << '\n';
    WARN("wrote " << now.size() << " hashes to " << snapshot_path);
    return;
  }
  const snapshot before = read_snapshot();
  REQUIRE(before.size() > 1000);
  std::size_t changed = 0;
  std::ostringstream report;
  for (const auto& [what, hash] : now) {
    const auto was = before.find(what);
    const std::string old = was == before.end() ? "(absent)" : was->second;
    if (old != hash && changed++ < 20) report << "  " << what << ": " << old << " -> " << hash << '\n';
  }
  for (const auto& [what, hash] : before)
    if (!now.count(what) && changed++ < 20) report << "  " << what << ": no longer generated\n";
  INFO(changed << " of " << now.size() << " sources changed:\n" << report.str());
  CHECK(changed == 0);
}
