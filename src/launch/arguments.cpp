#include "launch/arguments.hpp"

#include "codegen/geometry.hpp"

namespace jet::detail {

void pack_outputs(const evaluation& e, const plan& p, kernel_arguments& a) {
  for (unsigned k = 0; k < e.desc.out_count; ++k) {
    a.outputs[k] = e.outputs[k];
    a.params[a.count++] = &a.outputs[k];
    if (p.variant.output_access[k] != access::linear)
      a.params[a.count++] = const_cast<std::int64_t*>(p.output_strides[k]);
  }
}

void pack_inputs(const evaluation& e, const plan& p, std::size_t n, kernel_arguments& a) {
  const kernel_desc& d = e.desc;
  const variant_key& v = p.variant;
  for (unsigned k = 0; k < p.distinct_count; ++k) {
    a.inputs[k] = p.distinct[k];
    if (!is_counter(d, p.distinct_slot[k])) a.params[a.count++] = &a.inputs[k];
    if (v.input_access[k] != access::linear) a.params[a.count++] = const_cast<std::int64_t*>(p.input_strides[k]);
  }
  bool taken[max_scalars];
  scalar_parameters(d, v, taken);
  for (unsigned k = 0; k < d.scalar_count; ++k)
    if (taken[k]) a.params[a.count++] = const_cast<scalar_value*>(&e.scalars[k]);
  a.n = n;
  a.params[a.count++] = &a.n;
  if (uses_index_space(d, v)) a.params[a.count++] = const_cast<std::int64_t*>(p.extents);
}

}  // namespace jet::detail
