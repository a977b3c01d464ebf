#include "launch/launch_memo.hpp"

#include "driver/driver.hpp"
#include "driver/stream.hpp"
#include "interpreter/launcher.hpp"
#include "launch/arguments.hpp"
#include "stats.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace jet::detail {

// One per kernel slot, made at its first compiled launch. Written and read under `lock`: a thread
// that finds it taken plans its evaluation as usual.
struct launch_memo {
  std::mutex lock;
  bool valid = false;
  int device = -1;
  jit_policy policy{};
  CUfunction function = nullptr;
  launch_grid grid{};
  std::vector<const void*> inputs;
  std::vector<const layout*> input_layouts;
  std::vector<const layout*> layout_objects;  // the distinct objects input_layouts points to
  std::vector<layout> layouts;                // what each of them held
  jet::shape broadcast;                       // the inputs' broadcast shape
  std::vector<scalar_value> scalars;
  void* outputs[max_outputs];
  layout output_layouts[max_outputs];
  plan p;
  kernel_arguments arguments;  // pointing into p, scalars, outputs and itself
};

namespace {

// More distinct layout objects than this (views each copied into the expression, say) are not
// remembered: comparing them would cost what planning costs.
constexpr std::size_t max_layout_objects = 16;

bool same_layout(const layout& a, const layout& b) {
  return a.extents == b.extents &&
         std::equal(a.strides.begin(), a.strides.begin() + a.extents.rank(), b.strides.begin());
}

bool same_bytes(const void* a, const void* b, std::size_t bytes) { return bytes == 0 || std::memcmp(a, b, bytes) == 0; }

// Whether `layouts` are the memo's layout objects, still holding what they held.
bool same_input_layouts(const launch_memo& m, const kernel_desc& d, const layout* const* layouts) {
  if (!m.valid || !same_bytes(m.input_layouts.data(), layouts, d.input_count * sizeof(const layout*))) return false;
  for (std::size_t k = 0; k < m.layout_objects.size(); ++k)
    if (!same_layout(*m.layout_objects[k], m.layouts[k])) return false;
  return true;
}

bool matches(const launch_memo& m, const evaluation& e) {
  const kernel_desc& d = e.desc;
  if (!m.valid || m.device != properties().ordinal || m.policy != current_jit_policy()) return false;
  if (!same_bytes(m.inputs.data(), e.inputs, d.input_count * sizeof(const void*)) ||
      !same_bytes(m.scalars.data(), e.scalars, d.scalar_count * sizeof(scalar_value)) ||
      !same_input_layouts(m, d, e.input_layouts))
    return false;
  for (unsigned k = 0; k < d.out_count; ++k)
    if (m.outputs[k] != e.outputs[k] || !same_layout(m.output_layouts[k], e.output_layouts[k])) return false;
  return true;
}

// The distinct layout objects of e's inputs, or false when there are more than max_layout_objects.
bool find_layout_objects(const evaluation& e, std::vector<const layout*>& objects) {
  objects.clear();
  for (unsigned k = 0; k < e.desc.input_count; ++k) {
    if (std::find(objects.begin(), objects.end(), e.input_layouts[k]) != objects.end()) continue;
    if (objects.size() == max_layout_objects) return false;
    objects.push_back(e.input_layouts[k]);
  }
  return true;
}

}  // namespace

bool launch_again(const evaluation& e) {
  launch_memo* m = e.slot.memo.load(std::memory_order_acquire);
  if (!m) return false;
  const std::unique_lock lock(m->lock, std::try_to_lock);
  if (!lock || !matches(*m, e)) return false;
  stats_counters().memory_hits.fetch_add(1, std::memory_order_relaxed);
  launch_kernel(m->function, m->grid.blocks, m->grid.threads, m->arguments.params, m->grid.rows);
  stats_counters().launches.fetch_add(1, std::memory_order_relaxed);
  return true;
}

jet::shape broadcast_shape(const kernel_desc& desc, kernel_slot& slot, const layout* const* inputs) {
  if (launch_memo* m = slot.memo.load(std::memory_order_acquire)) {
    const std::unique_lock lock(m->lock, std::try_to_lock);
    if (lock && same_input_layouts(*m, desc, inputs)) return m->broadcast;
  }
  return broadcast_shape(desc, inputs);
}

void remember_launch(const evaluation& e, const plan& p, CUfunction f, const launch_grid& g) {
  const kernel_desc& d = e.desc;
  launch_memo* m = e.slot.memo.load(std::memory_order_acquire);
  if (!m) {
    auto made = std::make_unique<launch_memo>();
    if (e.slot.memo.compare_exchange_strong(m, made.get(), std::memory_order_acq_rel)) m = made.release();
  }
  const std::unique_lock lock(m->lock, std::try_to_lock);
  if (!lock) return;
  m->valid = false;
  if (!find_layout_objects(e, m->layout_objects)) return;
  m->layouts.clear();
  for (const layout* l : m->layout_objects) m->layouts.push_back(*l);
  m->broadcast = broadcast_shape(d, e.input_layouts);
  m->inputs.assign(e.inputs, e.inputs + d.input_count);
  m->input_layouts.assign(e.input_layouts, e.input_layouts + d.input_count);
  m->scalars.assign(e.scalars, e.scalars + d.scalar_count);
  std::copy(e.outputs, e.outputs + d.out_count, m->outputs);
  std::copy(e.output_layouts, e.output_layouts + d.out_count, m->output_layouts);
  m->p = p;
  const evaluation remembered{
      d, e.slot, m->outputs, m->output_layouts, m->inputs.data(), m->input_layouts.data(), m->scalars.data()};
  m->arguments.count = 0;
  pack_outputs(remembered, m->p, m->arguments);
  pack_inputs(remembered, m->p, m->p.n, m->arguments);
  m->function = f;
  m->grid = g;
  m->device = properties().ordinal;
  m->policy = current_jit_policy();
  m->valid = true;
}

}  // namespace jet::detail
