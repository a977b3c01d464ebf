// One evaluation: check shapes, plan the launch from the operands' layouts and addresses (which
// inputs are the same memory, how each is indexed, whether vectors fit), find the kernel, launch it
// once.
#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "compile/cached_compile.hpp"
#include "driver/driver.hpp"
#include "driver/stream.hpp"
#include "driver/workspace.hpp"
#include "interpreter/encoder.hpp"
#include "interpreter/launcher.hpp"
#include "interpreter/source.hpp"
#include "kernel_cache.hpp"
#include "settings.hpp"
#include "stats.hpp"
#include "launch/arguments.hpp"
#include "launch/launch_memo.hpp"
#include "launch/planner.hpp"

#include <jet/detail/rules.hpp>
#include <jet/error.hpp>
#include <jet/detail/core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace jet::detail {
namespace {

unsigned max_reduction_blocks() {
  return static_cast<unsigned>(properties().multiprocessors) * reduction_blocks_per_sm;
}

// Why the interpreter cannot run this evaluation as planned (empty when it can): it reads
// operands one way only, contiguous (a strided or broadcast operand compiles instead).
std::string interpreter_refusal(const evaluation& e, const plan& p, encoding& code) {
  const variant_key& v = p.variant;
  if (uses_index_space(e.desc, v)) return "an operand is strided or broadcast";
  code = encode_for_interpreter(e.desc, e.scalars, v.unique_of, v.shared);
  return code.family ? std::string() : code.reason;
}

// The compiled kernel to launch, or null when the interpreter runs the evaluation (`code`), as
// the jit policy decides. Under async, a kernel the disk cache holds is loaded at once, and while
// the interpreter itself is not ready (compiling in the background, once per machine) the
// expression compiles here: neither waits for the interpreter's much longer compile.
CUfunction choose_kernel(const evaluation& e, const plan& p, encoding& code) {
  const kernel_desc& d = e.desc;
  const variant_key& v = p.variant;
  const jit_policy policy = current_jit_policy();
  if (policy == jit_policy::sync) return find_kernel(d, e.slot, v);
  if (policy == jit_policy::async) {
    if (CUfunction f = find_in_slot(e.slot, v)) return f;
    if (CUfunction f = find_stored_kernel(d, e.slot, v)) return f;
  }
  std::string refusal = interpreter_refusal(e, p, code);
  if (refusal.empty() && policy == jit_policy::async && !interpreter_ready(*code.family))
    refusal = "the interpreter is still compiling";
  if (!refusal.empty()) {
    log_info("compiling `" + describe(d) + "` rather than interpreting it: " + refusal);
    return find_kernel(d, e.slot, v);
  }
  return policy == jit_policy::async ? find_ready_kernel(d, e.slot, v) : nullptr;
}

void launch(CUfunction f, unsigned long long blocks, unsigned threads, kernel_arguments& a, unsigned rows = 1) {
  launch_kernel(f, blocks, threads, a.params, rows);
  stats_counters().launches.fetch_add(1, std::memory_order_relaxed);
}

void launch(const evaluation& e, const plan& p) {
  const variant_key& v = p.variant;
  encoding code;
  CUfunction f = choose_kernel(e, p, code);
  if (!f) return launch_interpreter(code, e.outputs, p.distinct, p.n);

  kernel_arguments a;
  pack_outputs(e, p, a);
  pack_inputs(e, p, p.n, a);
  const launch_grid grid = grid_of(v, p.n, p.extents);
  launch(f, grid.blocks, grid.threads, a, grid.rows);
  remember_launch(e, p, f, grid);
}

// out = in, for any layouts: how a temporary reaches an output it could not be written to directly.
void copy(void* out, const layout& out_layout, const void* in, const layout& in_layout, dtype t) {
  struct copy_kernel {
    node nodes[1];
    dtype types[1];
    std::uint16_t roots[1] = {0};
    kernel_desc desc;
    kernel_slot slot;
  };
  static copy_kernel kernels[dtype_count];
  static std::once_flag made[dtype_count];
  copy_kernel& k = kernels[static_cast<int>(t)];
  std::call_once(made[static_cast<int>(t)], [&] {
    k.nodes[0] = node{op_id::input, t};
    k.types[0] = t;
    k.desc = {.nodes = k.nodes,
              .node_count = 1,
              .input_count = 1,
              .scalar_count = 0,
              .input_types = k.types,
              .counter_slots = 0,
              .out_count = 1,
              .out_nodes = k.roots,
              .out_types = k.types,
              .functions = nullptr,
              .function_count = 0,
              .hash = hash_desc(std::array<node, 1>{k.nodes[0]}, std::array<std::uint16_t, 1>{0},
                                std::array<dtype, 1>{t}, std::array<const user_function*, 0>{}, 0)};
  });
  void* outputs[] = {out};
  const void* inputs[] = {in};
  const layout* input_layouts[] = {&in_layout};
  evaluate({k.desc, k.slot, outputs, &out_layout, inputs, input_layouts, nullptr});
}

}  // namespace

void reduce(const evaluation& e, std::optional<int> axis) {
  const reduction_plan r = plan_reduction(e, axis, static_cast<unsigned>(properties().multiprocessors));
  if (r.blocks == 0) return;  // no results
  check_pointers(e, broadcast_shape(e.desc, e.input_layouts));
  kernel_arguments a;
  void* out = e.outputs[0];
  a.params[a.count++] = &out;
  CUfunction f = find_kernel(e.desc, e.slot, r.p.variant);
  pack_inputs(e, r.p, r.p.n, a);
  workspace w{};
  unsigned lanes = r.lanes;
  if (r.p.variant.axis == reduce_axis::all) {
    w = reduction_workspace(current_stream_handle(), max_accumulator_bytes * max_reduction_blocks());
    a.params[a.count++] = &w.partials;
    a.params[a.count++] = &w.ticket;
  } else if (r.p.variant.axis == reduce_axis::inner) {
    a.params[a.count++] = &lanes;
  }
  launch(f, r.blocks, reduction_threads, a);
}

void evaluate(const evaluation& e) {
  if (launch_again(e)) return;
  const jet::shape s = index_space(e);
  check_pointers(e, s);
  if (s.size() == 0) return;
  const plan p = make_plan(e, s);
  const kernel_desc& d = e.desc;
  if (std::none_of(p.output_needs_temporary, p.output_needs_temporary + d.out_count, [](bool b) { return b; }))
    return launch(e, p);

  // An output overlaps an input at another place (x[1:] = x[:-1] + y): evaluate into a contiguous
  // temporary, then copy, so that no element is read after it was overwritten. The temporary is
  // allocated and freed in order on the stream (capturable, no synchronization).
  struct temporary {
    void* p = nullptr;
    std::size_t bytes = 0;
    ~temporary() { device_free(p, bytes); }
  } temporaries[max_outputs];
  void* outputs[max_outputs];
  layout layouts[max_outputs];
  for (unsigned k = 0; k < d.out_count; ++k) {
    outputs[k] = e.outputs[k];
    layouts[k] = e.output_layouts[k];
    if (p.output_needs_temporary[k]) {
      temporaries[k].bytes = bytes_of(s, size_of(d.out_types[k]));
      outputs[k] = temporaries[k].p = device_alloc(temporaries[k].bytes);
      layouts[k] = layout::contiguous(s);
    }
  }
  const evaluation into{d, e.slot, outputs, layouts, e.inputs, e.input_layouts, e.scalars};
  launch(into, make_plan(into, s));
  for (unsigned k = 0; k < d.out_count; ++k)
    if (p.output_needs_temporary[k]) copy(e.outputs[k], e.output_layouts[k], outputs[k], layouts[k], d.out_types[k]);
}

namespace {

// The launch variant of e stored into fresh contiguous arrays of its broadcast shape.
variant_key variant_into_fresh_arrays(const evaluation& e) {
  const jet::shape s = broadcast_shape(e.desc, e.input_layouts);
  void* outputs[max_outputs] = {};
  layout layouts[max_outputs];
  for (unsigned k = 0; k < e.desc.out_count; ++k) layouts[k] = layout::contiguous(s);
  const evaluation planned{e.desc, e.slot, outputs, layouts, e.inputs, e.input_layouts, e.scalars};
  return make_plan(planned, s).variant;
}

compiled_kernel compile_source(const kernel_desc& desc, std::string source, arch target) {
  cached_cubin binary = cached_compile(source, target.value, describe(desc), {desc.node_count, desc.function_count});
  return {target, std::move(source), std::move(binary.image), binary.compile_ms, binary.from_disk};
}

}  // namespace

void precompile(const evaluation* evaluations, std::size_t count) {
  std::vector<kernel_request> requests;
  for (std::size_t i = 0; i < count; ++i)
    requests.push_back({&evaluations[i].desc, &evaluations[i].slot, variant_into_fresh_arrays(evaluations[i])});
  find_kernels_in_parallel(requests.data(), requests.size());
}

std::string source_of(const evaluation& e) { return generate_source(e.desc, variant_into_fresh_arrays(e)); }

std::string expression_text(const kernel_desc& desc) { return describe(desc); }

compiled_kernel compile_for(const evaluation& e, arch target) { return compile_source(e.desc, source_of(e), target); }

compiled_kernel compile_for(const kernel_desc& desc, arch target) {
  return compile_source(desc, generate_source(desc, default_variant(desc)), target);
}

}  // namespace jet::detail
