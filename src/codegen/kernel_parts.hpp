// The pieces of source every fused kernel of (d, v) shares, elementwise or reduction: its inputs
// and their parameters, how they are loaded, and the element function that computes the
// expression's values from them.
#pragma once

#include "codegen/geometry.hpp"
#include "codegen/source_text.hpp"
#include "codegen/spelling.hpp"

#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/core.hpp>

#include <array>
#include <string>
#include <string_view>

namespace jet::detail {

// The cost of a formula (its computed nodes' op_cost, spelling.hpp: a plain op 1, sin 64)
// above which its kernel computes it in one __noinline__ function (JET_OUTLINE_COST replaces it):
// two sines' worth, past which NVRTC's time on the inlined copies outweighs a call per element.
inline constexpr unsigned outline_cost = 128;

// The dtype of distinct input k, and of scalar slot k.
dtype distinct_type(const kernel_desc& d, const variant_key& v, unsigned k);
dtype scalar_type(const kernel_desc& d, unsigned k);

// The pieces of source every kernel of (d, v) shares: its inputs, how they are loaded, and the
// element function that computes the expression's values from them.
struct kernel_parts {
  const kernel_desc& d;
  const variant_key& v;
  unsigned inputs = distinct_inputs(d, v);
  bool indexed = uses_index_space(d, v);
  std::string rank = number(v.rank);
  std::string restrict_ = v.out_aliases_input ? "" : " __restrict__";
  std::array<bool, max_scalars> scalar_taken = [this] {
    std::array<bool, max_scalars> taken;
    scalar_parameters(d, v, taken.data());
    return taken;
  }();

  std::string in_type(unsigned k) const { return storage_type(distinct_type(d, v, k)); }
  std::string out_type(unsigned k) const { return storage_type(d.out_types[k]); }
  static std::string vec_type(const std::string& t) { return "jet_vec<" + t + ", vec>"; }
  bool counter_input(unsigned k) const {
    unsigned slot = 0;
    while (v.unique_of[slot] != k) ++slot;
    return is_counter(d, slot);
  }
  // The scalar parameters, each after a comma: `type sK` (declarations) or `sK`.
  std::string scalar_params(const char* qualifier) const;
  std::string scalar_args() const {
    std::string args;
    for (unsigned k = 0; k < d.scalar_count; ++k)
      if (scalar_taken[k]) args += ", s" + number(k);
    return args;
  }
  // The multi-index of element i, for strided operands.
  void unravel(source_writer& w) const {
    if (!indexed) return;
    w.line("index idx[", rank, "];");
    w.line("jet_unravel<index, ", rank, ">(index(i), extents, idx);");
  }
  // The type of the multi-index's elements: 32 bits where every element's index fits.
  void declare_index(source_writer& w) const {
    w.line("using index = ", v.index32 ? "unsigned" : "unsigned long long", ";");
  }

  // Everything before the __global__ function: helpers, the ops used, and jet_element, which
  // computes one element of every output from stored values: one named temporary per node.
  void prelude(source_writer& w, const std::string& what) const;

  // The parameters of the distinct inputs (each with its strides when not linear) and scalars,
  // each after a comma.
  std::string input_params() const;
  // The kernel's first lines, up to its body: launched with `threads` threads a block, its
  // parameters the outputs (`outputs`), the inputs and scalars, n, the index space's extents where
  // an operand is strided, then `more`.
  void open_kernel(source_writer& w, unsigned threads, const std::string& outputs, std::string_view more) const;

  // A full tile at `base`: every load of the thread in flight before the first use, into vK[ilp].
  void tile_loads(source_writer& w, const kernel_shape& shape) const;

  // jet_element's input arguments for element j of the k-th loaded vector.
  std::string tile_args() const {
    const std::string values =
        join(inputs, [](unsigned k) { return std::string("v").append(number(k)).append("[k].v[j]"); });
    return (inputs ? ", " + values : values) + scalar_args();
  }
  // jet_element's input arguments for element i, read one at a time (`offset` maps input k's
  // strides to its offset; linear inputs are at i).
  template <class Offset> std::string element_args(Offset offset) const {
    const std::string values = join(inputs, [&](unsigned k) {
      const bool linear = v.input_access[k] == access::linear;
      const std::string at = linear ? std::string("i") : offset(k);
      return counter_input(k) ? (linear ? "(long long)i" : at) : "in" + number(k) + "[" + at + "]";
    });
    return (inputs ? ", " + values : values) + scalar_args();
  }
  std::string strided_offset(unsigned k) const { return "jet_offset(idx, is" + number(k) + ")"; }
};

// The constants of a kernel's shape: threads, ilp, vec, and `tile` (its name) their product.
void declare_shape(source_writer& w, const kernel_shape& shape, std::string_view tile);

}  // namespace jet::detail
