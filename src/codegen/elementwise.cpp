#include "codegen/elementwise.hpp"

#include "codegen/geometry.hpp"
#include "codegen/kernel_parts.hpp"
#include "codegen/reduction.hpp"
#include "codegen/source_text.hpp"
#include "codegen/spelling.hpp"

#include <string>
#include <vector>

namespace jet::detail {
namespace {

std::string tiled_body(const kernel_parts& parts) {
  const kernel_desc& d = parts.d;
  const variant_key& v = parts.v;
  const unsigned inputs = parts.inputs;
  const std::string& rank = parts.rank;
  const std::string outer = number(v.rank - 2u), inner = number(v.rank - 1u);
  struct operand_names {
    std::string pointer, strides, base, tile, type;
    bool transposed, counter;
  };
  // An operand's offset and element at row r, column c of the tile.
  auto offset = [&](const operand_names& o) {
    return o.base + " + r * " + o.strides + ".s[" + outer + "] + c * " + o.strides + ".s[" + inner + "]";
  };
  auto element = [&](const operand_names& o) { return o.pointer + "[" + offset(o) + "]"; };
  std::vector<operand_names> ins, outs;
  for (unsigned k = 0; k < inputs; ++k) {
    const std::string kk = number(k);
    ins.push_back({"in" + kk, "is" + kk, "base_in" + kk, "tile_in" + kk, parts.in_type(k),
                   v.input_access[k] == access::transposed, parts.counter_input(k)});
  }
  for (unsigned k = 0; k < d.out_count; ++k) {
    const std::string kk = number(k);
    outs.push_back({"out" + kk, "os" + kk, "base_out" + kk, "tile_out" + kk, parts.out_type(k),
                    v.output_access[k] == access::transposed, false});
  }
  // A loop over this thread's elements of the tile whose body runs only inside the index space.
  auto pass = [](bool along_columns, const std::string& body) {
    return std::string("#pragma unroll\n  for (unsigned p = 0; p < passes; ++p) {\n") +
           (along_columns ? "    const unsigned r = lane, c = first + p * rows;\n"
                          : "    const unsigned r = first + p * rows, c = lane;\n") +
           "    if (r < rows_in && c < columns_in) {\n" + body + "    }\n  }\n";
  };

  std::string src = "  constexpr unsigned threads = " + number(tile_threads) + ", edge = " + number(tile_edge) +
                    ", rows = threads / edge, passes = edge / rows;  // rows of the tile per pass\n";
  src += std::string("  using index = ") + (v.index32 ? "unsigned" : "unsigned long long") + ";\n";
  src += "  jet_extents<" + rank + "> tiles = extents;\n";
  src += "  tiles.e[" + outer + "] = (extents.e[" + outer + "] + edge - 1) / edge;\n";
  src += "  tiles.e[" + inner + "] = (extents.e[" + inner + "] + edge - 1) / edge;\n";
  src += "  index idx[" + rank + "];  // the tile's first element\n";
  src += "  jet_unravel<index, " + rank + ">(index(blockIdx.x), tiles, idx);\n";
  src += "  idx[" + outer + "] *= edge;\n  idx[" + inner + "] *= edge;\n";
  src += "  // the tile's rows and columns inside the index space: fewer than edge at its far edges\n";
  src += "  const index rows_in = extents.e[" + outer + "] - idx[" + outer + "], columns_in = extents.e[" + inner +
         "] - idx[" + inner + "];\n";
  src += "  const unsigned lane = threadIdx.x % edge, first = threadIdx.x / edge;\n";
  for (const auto* group : {&outs, &ins})
    for (const operand_names& o : *group) src += "  const long long " + o.base + " = jet_offset(idx, " + o.strides + ");\n";
  src += "  // shared tiles [column][row], padded so that a warp reading a row of one meets each bank once\n";
  for (const auto* group : {&ins, &outs})
    for (const operand_names& o : *group)
      if (o.transposed) src += "  __shared__ " + o.type + " " + o.tile + "[edge][edge + 1];\n";

  std::string loads, registers;
  for (unsigned k = 0; k < inputs; ++k)
    if (ins[k].transposed) loads += "      " + ins[k].tile + "[c][r] = " + element(ins[k]) + ";\n";
  if (!loads.empty()) src += pass(true, loads);
  for (unsigned k = 0; k < inputs; ++k) {
    if (ins[k].transposed) continue;
    src += "  " + ins[k].type + " v" + number(k) + "[passes];\n";
    registers += "      v" + number(k) + "[p] = " + (ins[k].counter ? offset(ins[k]) : element(ins[k])) + ";\n";
  }
  if (!registers.empty()) src += "  // every load of the tile is in flight before the barrier\n" + pass(false, registers);
  if (!loads.empty()) src += "  __syncthreads();\n";

  std::string compute;
  for (unsigned k = 0; k < d.out_count; ++k) compute += "      " + outs[k].type + " result" + number(k) + ";\n";
  const std::string values = join(inputs, [&](unsigned k) { return ins[k].transposed ? ins[k].tile + "[c][r]" : "v" + number(k) + "[p]"; });
  compute += "      jet_element(" + join(d.out_count, [](unsigned k) { return "result" + number(k); }) +
             (inputs ? ", " + values : values) + parts.scalar_args() + ");\n";
  std::string stores;
  for (unsigned k = 0; k < d.out_count; ++k) {
    const std::string result = "result" + number(k);
    if (outs[k].transposed) {
      compute += "      " + outs[k].tile + "[c][r] = " + result + ";\n";
      stores += "      " + element(outs[k]) + " = " + outs[k].tile + "[c][r];\n";
    } else {
      compute += "      " + element(outs[k]) + " = " + result + ";\n";
    }
  }
  src += pass(false, compute);
  if (!stores.empty()) src += "  __syncthreads();\n" + pass(true, stores);
  return src + "}\n";
}

// A chunk of the index space's inner dimension (a row) per block, for rows at least a block's
// threads long: blocks along x take the chunks of a row, along y its rows (each every gridDim.y-th
// from its own). Each operand's place at the row is found once per row (no division for rank 2),
// and its elements follow by constant offsets along the row: no index arithmetic per element. A
// full chunk reads ilp vectors per thread, every load in flight before the first use; the last
// chunk of a row reads element by element, masked, neighbouring threads at neighbouring columns.
// An operand of a rows kernel, by its names: in0, is0 (its strides), float.
struct row_operand {
  std::string name, strides, type;
  access how;
  bool counter;  // a counter's "pointer" is its offset: its value
  std::string row() const { return name + "_row"; }
  std::string at() const { return name + "_at"; }
};

// What the parts of a rows kernel's body share: its operands and how each steps along a row.
struct rows_context {
  const kernel_parts& parts;
  std::string inner;  // the inner dimension's number
  std::vector<row_operand> ins, outs;

  // An operand's offset from its column 0 to `column`.
  std::string along(const row_operand& o, const std::string& column) const {
    if (o.how == access::broadcast) return "0";
    if (o.how == access::gather) return "(long long)(" + column + ") * " + o.strides + ".s[" + inner + "]";
    return column;  // linear or unit
  }
  // `const float* __restrict__ in0_row = in0 + ...`, or `long long in2_row = ...` for a counter.
  std::string pointer(const row_operand& o, bool output, const std::string& what, const std::string& value) const {
    const std::string type = o.counter ? "long long" : (output ? "" : "const ") + o.type + "*" + parts.restrict_;
    return "    " + type + " " + what + " = " + value + ";\n";
  }
};

// The branch for a full chunk of a row (rows_body writes the other): this thread's k-th vector at
// column c + k * threads * vec, every load in flight before the first use.
std::string rows_full_chunk(const rows_context& r) {
  const kernel_parts& parts = r.parts;
  const kernel_desc& d = parts.d;
  const std::vector<row_operand>& ins = r.ins;
  const std::vector<row_operand>& outs = r.outs;
  std::string src;
  src += "    if (columns - first >= chunk) {\n";
  src += "      const index c = first + threadIdx.x * vec;\n";
  for (const auto* group : {&outs, &ins})
    for (const row_operand& o : *group) src += "  " + r.pointer(o, group == &outs, o.at(), o.row() + " + " + r.along(o, "c"));
  src += "#pragma unroll\n      for (unsigned k = 0; k < ilp; ++k) {\n";
  for (unsigned k = 0; k < parts.inputs; ++k) {
    const row_operand& o = ins[k];
    const std::string vk = "v" + number(k) + "[k]", vt = kernel_parts::vec_type(o.type);
    if (o.counter)
      src += "#pragma unroll\n        for (unsigned j = 0; j < vec; ++j) " + vk + ".v[j] = " + o.at() + " + " +
             r.along(o, "k * threads * vec + j") + ";\n";
    else if (o.how == access::broadcast)
      src += "        { const " + o.type + " b = *" + o.at() + ";\n#pragma unroll\n          for (unsigned j = 0; j < vec; ++j) " +
             vk + ".v[j] = b; }\n";
    else if (o.how == access::gather)
      src += "        " + vk + ".v[0] = " + o.at() + "[" + r.along(o, "k * threads * vec") + "];\n";
    else
      src += "        " + vk + " = *reinterpret_cast<const " + vt + "*>(" + o.at() + " + k * threads * vec);\n";
  }
  src += "      }\n#pragma unroll\n      for (unsigned k = 0; k < ilp; ++k) {\n";
  for (unsigned k = 0; k < d.out_count; ++k) src += "        " + kernel_parts::vec_type(outs[k].type) + " r" + number(k) + ";\n";
  src += "#pragma unroll\n        for (unsigned j = 0; j < vec; ++j)\n          jet_element(" +
         join(d.out_count, [](unsigned k) { return "r" + number(k) + ".v[j]"; }) + parts.tile_args() + ");\n";
  for (unsigned k = 0; k < d.out_count; ++k) {
    const row_operand& o = outs[k];
    const std::string rk = "r" + number(k);
    if (o.how == access::gather)
      src += "        " + o.at() + "[" + r.along(o, "k * threads * vec") + "] = " + rk + ".v[0];\n";
    else
      src += "        *reinterpret_cast<" + kernel_parts::vec_type(o.type) + "*>(" + o.at() + " + k * threads * vec) = " + rk + ";\n";
  }
  src += "      }\n";
  return src;
}

std::string rows_body(const kernel_parts& parts) {
  const kernel_desc& d = parts.d;
  const variant_key& v = parts.v;
  const kernel_shape shape = shape_of(v);
  const std::string& rank = parts.rank;
  const std::string inner = number(v.rank - 1u);
  rows_context r{parts, inner, {}, {}};
  for (unsigned k = 0; k < parts.inputs; ++k)
    r.ins.push_back({"in" + number(k), "is" + number(k), parts.in_type(k), v.input_access[k], parts.counter_input(k)});
  for (unsigned k = 0; k < d.out_count; ++k)
    r.outs.push_back({"out" + number(k), "os" + number(k), parts.out_type(k), v.output_access[k], false});
  const std::vector<row_operand>& ins = r.ins;
  const std::vector<row_operand>& outs = r.outs;

  std::string src = "  constexpr unsigned threads = " + number(shape.threads) + ", ilp = " + number(shape.ilp) +
                    ", vec = " + number(shape.vec) + ", chunk = threads * ilp * vec;\n";
  src += std::string("  using index = ") + (v.index32 ? "unsigned" : "unsigned long long") + ";\n";
  src += "  const index columns = index(extents.e[" + inner + "]);\n";
  src += "  index rows = 1;  // the product of every extent but the inner one\n";
  src += "#pragma unroll\n  for (int d = 0; d < " + inner + "; ++d) rows *= index(extents.e[d]);\n";
  src += "  jet_extents<" + rank + "> row_extents = extents;\n";
  src += "  row_extents.e[" + inner + "] = 1;  // a row's multi-index is 0 in the inner dimension\n";
  src += "  const index first = index(blockIdx.x) * chunk;  // the chunk's first column\n";
  for (unsigned k = 0; k < parts.inputs; ++k) src += "  " + kernel_parts::vec_type(ins[k].type) + " v" + number(k) + "[ilp];\n";
  src += "  for (index row = blockIdx.y; row < rows; row += gridDim.y) {\n";
  src += "    index idx[" + rank + "];\n    jet_unravel<index, " + rank + ">(row, row_extents, idx);\n";
  for (const auto* group : {&outs, &ins})
    for (const row_operand& o : *group) {
      const std::string offset = o.how == access::linear ? "(long long)row * columns" : "jet_offset(idx, " + o.strides + ")";
      src += r.pointer(o, group == &outs, o.row(), o.counter ? offset : o.name + " + " + offset);
    }

  src += rows_full_chunk(r);

  // The row's last chunk: element j of this thread's k-th vector at column c, masked.
  const std::string column = "          const index c = first + threadIdx.x + (k * vec + j) * threads;\n";
  auto each_element = [&](const std::string& body) {
    return "#pragma unroll\n      for (unsigned k = 0; k < ilp; ++k)\n#pragma unroll\n        for (unsigned j = 0; j < vec; ++j) {\n" +
           column + "          if (c < columns) {\n" + body + "          }\n        }\n";
  };
  src += "    } else {\n";
  std::string loads;
  for (unsigned k = 0; k < parts.inputs; ++k) {
    const row_operand& o = ins[k];
    const std::string at = r.along(o, "c");
    loads += "            v" + number(k) + "[k].v[j] = " + (o.counter ? o.row() + " + " + at : o.row() + "[" + at + "]") + ";\n";
  }
  src += each_element(loads);
  std::string compute;
  for (unsigned k = 0; k < d.out_count; ++k) compute += "            " + outs[k].type + " r" + number(k) + ";\n";
  compute += "            jet_element(" + join(d.out_count, [](unsigned k) { return "r" + number(k); }) + parts.tile_args() + ");\n";
  for (unsigned k = 0; k < d.out_count; ++k)
    compute += "            " + outs[k].row() + "[" + r.along(outs[k], "c") + "] = r" + number(k) + ";\n";
  src += each_element(compute);
  src += "    }\n  }\n}\n";
  return src;
}

}  // namespace

std::string generate_source(const kernel_desc& d, const variant_key& v) {
  if (d.reduction != reduction_id::none) return generate_reduction_source(d, v);
  const kernel_parts parts{d, v};
  const kernel_shape shape = shape_of(v);
  auto out_type = [&](unsigned k) { return parts.out_type(k); };
  bool outputs_strided = false;
  for (unsigned k = 0; k < d.out_count; ++k) outputs_strided |= v.output_access[k] != access::linear;
  std::string src = parts.prelude(join(d.out_count, [&](unsigned k) { return std::string(name(d.out_types[k])); }));

  // Parameters: outputs, distinct inputs (each with its strides when not linear), scalars, n, and
  // the index space's extents when an operand is strided.
  std::string params;
  for (unsigned k = 0; k < d.out_count; ++k) {
    params += (k ? ", " : "") + out_type(k) + "*" + parts.restrict_ + " out" + number(k);
    if (v.output_access[k] != access::linear) params += ", const jet_strides<" + parts.rank + "> os" + number(k);
  }
  params += parts.input_params() + ", const unsigned long long n";
  if (parts.indexed) params += ", const jet_extents<" + parts.rank + "> extents";

  src += "extern \"C\" __global__ void __launch_bounds__(" + number(v.tiled ? tile_threads : shape.threads) + ")\n";
  src += std::string(kernel_name) + "(" + params + ") {\n";
  if (v.tiled) return src + tiled_body(parts);
  if (v.rows) return src + rows_body(parts);
  src += "  constexpr unsigned threads = " + number(shape.threads) + ", ilp = " + number(shape.ilp) +
         ", vec = " + number(shape.vec) + ", tile = threads * ilp * vec;\n";
  if (parts.indexed) src += std::string("  using index = ") + (v.index32 ? "unsigned" : "unsigned long long") + ";\n";
  // Blocks below n / tile take a full tile each; the others, after them, an element per thread.
  // No loop: NVVM and ptxas compile a loop, even one that runs once, slower than straight code.
  // The count fits in 32 bits, as a grid has fewer than 2^31 blocks (and the test is shorter).
  src += "  const unsigned full = n / tile;  // the full tiles, one block each\n";
  src += "  if (blockIdx.x < full) {\n";
  src += "    // a full tile: no mask; every load of the thread is in flight before the first use\n";
  src += "    const unsigned long long base = (unsigned long long)blockIdx.x * tile;  // pid * BLOCK\n";
  src += parts.tile_loads(shape);
  std::string body = "      const unsigned long long i = base + (k * threads + threadIdx.x) * vec;\n";
  if (outputs_strided) body += parts.unravel("      ");
  for (unsigned k = 0; k < d.out_count; ++k) body += "      " + kernel_parts::vec_type(out_type(k)) + " r" + number(k) + ";\n";
  body += unrolled_statement("j", shape.vec, "      ", "jet_element(" + join(d.out_count, [](unsigned k) {
                                return "r" + number(k) + ".v[j]";
                              }) + parts.tile_args() + ");");
  for (unsigned k = 0; k < d.out_count; ++k) {
    const std::string kk = number(k), vt = kernel_parts::vec_type(out_type(k));
    switch (v.output_access[k]) {
      case access::linear: body += "      *reinterpret_cast<" + vt + "*>(out" + kk + " + i) = r" + kk + ";\n"; break;
      case access::unit:
        body += "      *reinterpret_cast<" + vt + "*>(out" + kk + " + jet_offset(idx, os" + kk + ")) = r" + kk + ";\n";
        break;
      default: body += "      out" + kk + "[jet_offset(idx, os" + kk + ")] = r" + kk + ".v[0];\n"; break;
    }
  }
  src += unrolled("k", shape.ilp, "    ", body);
  src += "  } else {\n";
  src += "    // the last tile, an element per thread: offsets = base + arange, mask = offsets < n\n";
  src += "    const unsigned long long i = (unsigned long long)full * tile + (blockIdx.x - full) * threads + threadIdx.x;\n";
  src += "    if (i < n) {\n";
  src += parts.unravel("      ");
  src += "      jet_element(" + join(d.out_count, [&](unsigned k) {
           const std::string kk = number(k);
           return "out" + kk + "[" + (v.output_access[k] == access::linear ? "i" : "jet_offset(idx, os" + kk + ")") + "]";
         }) + parts.element_args([&](unsigned k) { return parts.strided_offset(k); }) + ");\n";
  src += "    }\n  }\n}\n";
  return src;
}

}  // namespace jet::detail
