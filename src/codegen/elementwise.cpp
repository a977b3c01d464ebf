#include "codegen/elementwise.hpp"

#include "codegen/geometry.hpp"
#include "codegen/kernel_parts.hpp"
#include "codegen/reduction.hpp"
#include "codegen/source_text.hpp"
#include "codegen/spelling.hpp"

#include <functional>
#include <string>
#include <vector>

namespace jet::detail {
namespace {

// One tile of edge x edge elements of the two inner dimensions per block (rows along the outer of
// the two, columns along the inner), its batch dimensions unravelled from the block's number. A
// warp reads or writes a row of the tile for the direct (gather) operands, whose steps along the
// index space's inner dimension are short, and a column of it for the transposed ones, whose
// contiguous dimension is the outer one: both are coalesced, and a transposed operand's column
// goes through a shared tile to the threads that compute its elements.
struct tile_operand {
  std::string pointer, strides, base, tile, type;
  bool transposed, counter;
};

// What the parts of a tiled kernel's body share: its operands, and where each element is.
struct tiled_context {
  const kernel_parts& parts;
  std::string outer, inner;  // the two inner dimensions' numbers
  std::vector<tile_operand> ins, outs;

  // An operand's offset and element at row r, column c of the tile.
  std::string offset(const tile_operand& o) const {
    return o.base + " + r * " + o.strides + ".s[" + outer + "] + c * " + o.strides + ".s[" + inner + "]";
  }
  std::string element(const tile_operand& o) const { return o.pointer + "[" + offset(o) + "]"; }
};

// A loop over this thread's elements of the tile whose body runs only inside the index space.
void pass(source_writer& w, bool along_columns, const std::function<void()>& body) {
  w.line("#pragma unroll");
  w.open("for (unsigned p = 0; p < passes; ++p) {");
  w.line(along_columns ? "const unsigned r = lane, c = first + p * rows;"
                       : "const unsigned r = first + p * rows, c = lane;");
  w.open("if (r < rows_in && c < columns_in) {");
  body();
  w.close();
  w.close();
}

// The tile's place: its first element's multi-index, how much of it is inside the index space,
// each operand's offset there, and the shared tiles of the transposed operands.
void tile_start(source_writer& w, const tiled_context& t) {
  const kernel_parts& parts = t.parts;
  const std::string &rank = parts.rank, &outer = t.outer, &inner = t.inner;
  w.line("constexpr unsigned threads = ", tile_threads, ", edge = ", tile_edge,
         ", rows = threads / edge, passes = edge / rows;  // rows of the tile per pass");
  parts.declare_index(w);
  w.line("jet_extents<", rank, "> tiles = extents;");
  w.line("tiles.e[", outer, "] = (extents.e[", outer, "] + edge - 1) / edge;");
  w.line("tiles.e[", inner, "] = (extents.e[", inner, "] + edge - 1) / edge;");
  w.line("index idx[", rank, "];  // the tile's first element");
  w.line("jet_unravel<index, ", rank, ">(index(blockIdx.x), tiles, idx);");
  w.line("idx[", outer, "] *= edge;");
  w.line("idx[", inner, "] *= edge;");
  w.line("// the tile's rows and columns inside the index space: fewer than edge at its far edges");
  w.line("const index rows_in = extents.e[", outer, "] - idx[", outer, "], columns_in = extents.e[", inner, "] - idx[",
         inner, "];");
  w.line("const unsigned lane = threadIdx.x % edge, first = threadIdx.x / edge;");
  for (const auto* group : {&t.outs, &t.ins})
    for (const tile_operand& o : *group) w.line("const long long ", o.base, " = jet_offset(idx, ", o.strides, ");");
  w.line("// shared tiles [column][row], padded so that a warp reading a row of one meets each bank once");
  for (const auto* group : {&t.ins, &t.outs})
    for (const tile_operand& o : *group)
      if (o.transposed) w.line("__shared__ ", o.type, " ", o.tile, "[edge][edge + 1];");
}

void tiled_body(source_writer& w, const kernel_parts& parts) {
  const kernel_desc& d = parts.d;
  const variant_key& v = parts.v;
  const unsigned inputs = parts.inputs;
  tiled_context t{parts, number(v.rank - 2u), number(v.rank - 1u), {}, {}};
  for (unsigned k = 0; k < inputs; ++k) {
    const std::string kk = number(k);
    t.ins.push_back({"in" + kk, "is" + kk, "base_in" + kk, "tile_in" + kk, parts.in_type(k),
                     v.input_access[k] == access::transposed, parts.counter_input(k)});
  }
  for (unsigned k = 0; k < d.out_count; ++k) {
    const std::string kk = number(k);
    t.outs.push_back({"out" + kk, "os" + kk, "base_out" + kk, "tile_out" + kk, parts.out_type(k),
                      v.output_access[k] == access::transposed, false});
  }
  const std::vector<tile_operand>& ins = t.ins;
  const std::vector<tile_operand>& outs = t.outs;
  auto any_transposed = [](const std::vector<tile_operand>& group, bool transposed) {
    for (const tile_operand& o : group)
      if (o.transposed == transposed) return true;
    return false;
  };
  tile_start(w, t);

  const bool shared_loads = any_transposed(ins, true);
  if (shared_loads)
    pass(w, true, [&] {
      for (const tile_operand& o : ins)
        if (o.transposed) w.line(o.tile, "[c][r] = ", t.element(o), ";");
    });
  for (unsigned k = 0; k < inputs; ++k)
    if (!ins[k].transposed) w.line(ins[k].type, " v", k, "[passes];");
  if (any_transposed(ins, false)) {
    w.line("// every load of the tile is in flight before the barrier");
    pass(w, false, [&] {
      for (unsigned k = 0; k < inputs; ++k)
        if (!ins[k].transposed) w.line("v", k, "[p] = ", ins[k].counter ? t.offset(ins[k]) : t.element(ins[k]), ";");
    });
  }
  if (shared_loads) w.line("__syncthreads();");

  pass(w, false, [&] {
    for (unsigned k = 0; k < d.out_count; ++k) w.line(outs[k].type, " result", k, ";");
    const std::string values =
        join(inputs, [&](unsigned k) { return ins[k].transposed ? ins[k].tile + "[c][r]" : "v" + number(k) + "[p]"; });
    w.line("jet_element(", join(d.out_count, [](unsigned k) { return "result" + number(k); }), inputs ? ", " : "",
           values, parts.scalar_args(), ");");
    for (unsigned k = 0; k < d.out_count; ++k) {
      if (outs[k].transposed)
        w.line(outs[k].tile, "[c][r] = result", k, ";");
      else
        w.line(t.element(outs[k]), " = result", k, ";");
    }
  });
  if (any_transposed(outs, true)) {
    w.line("__syncthreads();");
    pass(w, true, [&] {
      for (const tile_operand& o : outs)
        if (o.transposed) w.line(t.element(o), " = ", o.tile, "[c][r];");
    });
  }
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
  void pointer(source_writer& w, const row_operand& o, bool output, const std::string& what,
               const std::string& value) const {
    const std::string type = o.counter ? "long long" : (output ? "" : "const ") + o.type + "*" + parts.restrict_;
    w.line(type, " ", what, " = ", value, ";");
  }
};

// A full chunk of a row (rows_body writes the branch, rows_last_chunk the other): this thread's k-th vector at
// column c + k * threads * vec, every load in flight before the first use.
void rows_full_chunk(source_writer& w, const rows_context& r) {
  const kernel_parts& parts = r.parts;
  const kernel_desc& d = parts.d;
  const std::vector<row_operand>& ins = r.ins;
  const std::vector<row_operand>& outs = r.outs;
  w.line("const index c = first + threadIdx.x * vec;");
  for (const auto* group : {&outs, &ins})
    for (const row_operand& o : *group) r.pointer(w, o, group == &outs, o.at(), o.row() + " + " + r.along(o, "c"));
  w.line("#pragma unroll");
  w.open("for (unsigned k = 0; k < ilp; ++k) {");
  for (unsigned k = 0; k < parts.inputs; ++k) {
    const row_operand& o = ins[k];
    const std::string vk = "v" + number(k) + "[k]";
    if (o.counter) {
      w.line("#pragma unroll");
      w.line("for (unsigned j = 0; j < vec; ++j) ", vk, ".v[j] = ", o.at(), " + ", r.along(o, "k * threads * vec + j"),
             ";");
    } else if (o.how == access::broadcast) {
      w.line("{ const ", o.type, " b = *", o.at(), ";");
      w.line("#pragma unroll");
      w.line("  for (unsigned j = 0; j < vec; ++j) ", vk, ".v[j] = b; }");
    } else if (o.how == access::gather) {
      w.line(vk, ".v[0] = ", o.at(), "[", r.along(o, "k * threads * vec"), "];");
    } else {
      w.line(vk, " = *reinterpret_cast<const ", kernel_parts::vec_type(o.type), "*>(", o.at(),
             " + k * threads * vec);");
    }
  }
  w.close();
  w.line("#pragma unroll");
  w.open("for (unsigned k = 0; k < ilp; ++k) {");
  for (unsigned k = 0; k < d.out_count; ++k) w.line(kernel_parts::vec_type(outs[k].type), " r", k, ";");
  w.line("#pragma unroll");
  w.line("for (unsigned j = 0; j < vec; ++j)");
  w.line("  jet_element(", join(d.out_count, [](unsigned k) { return "r" + number(k) + ".v[j]"; }), parts.tile_args(),
         ");");
  for (unsigned k = 0; k < d.out_count; ++k) {
    const row_operand& o = outs[k];
    if (o.how == access::gather)
      w.line(o.at(), "[", r.along(o, "k * threads * vec"), "] = r", k, ".v[0];");
    else
      w.line("*reinterpret_cast<", kernel_parts::vec_type(o.type), "*>(", o.at(), " + k * threads * vec) = r", k, ";");
  }
  w.close();
}

// A row's last chunk: element j of this thread's k-th vector at column c, masked.
void rows_last_chunk(source_writer& w, const rows_context& r) {
  const kernel_parts& parts = r.parts;
  const kernel_desc& d = parts.d;
  auto each_element = [&](const std::function<void()>& body) {
    w.line("#pragma unroll");
    w.line("for (unsigned k = 0; k < ilp; ++k)");
    w.line("#pragma unroll");
    w.indent();
    w.open("for (unsigned j = 0; j < vec; ++j) {");
    w.line("const index c = first + threadIdx.x + (k * vec + j) * threads;");
    w.open("if (c < columns) {");
    body();
    w.close();
    w.close();
    w.outdent();
  };
  each_element([&] {
    for (unsigned k = 0; k < parts.inputs; ++k) {
      const row_operand& o = r.ins[k];
      const std::string at = r.along(o, "c");
      w.line("v", k, "[k].v[j] = ", o.counter ? o.row() + " + " + at : o.row() + "[" + at + "]", ";");
    }
  });
  each_element([&] {
    for (unsigned k = 0; k < d.out_count; ++k) w.line(r.outs[k].type, " r", k, ";");
    w.line("jet_element(", join(d.out_count, [](unsigned k) { return std::string("r").append(number(k)); }),
           parts.tile_args(), ");");
    for (unsigned k = 0; k < d.out_count; ++k) w.line(r.outs[k].row(), "[", r.along(r.outs[k], "c"), "] = r", k, ";");
  });
}

void rows_body(source_writer& w, const kernel_parts& parts) {
  const kernel_desc& d = parts.d;
  const variant_key& v = parts.v;
  const std::string& rank = parts.rank;
  const std::string inner = number(v.rank - 1u);
  rows_context r{parts, inner, {}, {}};
  for (unsigned k = 0; k < parts.inputs; ++k)
    r.ins.push_back({"in" + number(k), "is" + number(k), parts.in_type(k), v.input_access[k], parts.counter_input(k)});
  for (unsigned k = 0; k < d.out_count; ++k)
    r.outs.push_back({"out" + number(k), "os" + number(k), parts.out_type(k), v.output_access[k], false});

  declare_shape(w, shape_of(v), "chunk");
  parts.declare_index(w);
  w.line("const index columns = index(extents.e[", inner, "]);");
  w.line("index rows = 1;  // the product of every extent but the inner one");
  w.line("#pragma unroll");
  w.line("for (int d = 0; d < ", inner, "; ++d) rows *= index(extents.e[d]);");
  w.line("jet_extents<", rank, "> row_extents = extents;");
  w.line("row_extents.e[", inner, "] = 1;  // a row's multi-index is 0 in the inner dimension");
  w.line("const index first = index(blockIdx.x) * chunk;  // the chunk's first column");
  for (unsigned k = 0; k < parts.inputs; ++k) w.line(kernel_parts::vec_type(r.ins[k].type), " v", k, "[ilp];");
  w.open("for (index row = blockIdx.y; row < rows; row += gridDim.y) {");
  w.line("index idx[", rank, "];");
  w.line("jet_unravel<index, ", rank, ">(row, row_extents, idx);");
  for (const auto* group : {&r.outs, &r.ins})
    for (const row_operand& o : *group) {
      const std::string offset =
          o.how == access::linear ? "(long long)row * columns" : "jet_offset(idx, " + o.strides + ")";
      r.pointer(w, o, group == &r.outs, o.row(), o.counter ? offset : o.name + " + " + offset);
    }
  w.open("if (columns - first >= chunk) {");
  rows_full_chunk(w, r);
  w.reopen("} else {");
  rows_last_chunk(w, r);
  w.close();
  w.close();
}

// Blocks below n / tile take a full tile each; the others, after them, an element per thread.
// No loop: NVVM and ptxas compile a loop, even one that runs once, slower than straight code.
// The count fits in 32 bits, as a grid has fewer than 2^31 blocks (and the test is shorter).
void linear_body(source_writer& w, const kernel_parts& parts) {
  const kernel_desc& d = parts.d;
  const variant_key& v = parts.v;
  const kernel_shape shape = shape_of(v);
  bool outputs_strided = false;
  for (unsigned k = 0; k < d.out_count; ++k) outputs_strided |= v.output_access[k] != access::linear;
  declare_shape(w, shape, "tile");
  if (parts.indexed) parts.declare_index(w);
  w.line("const unsigned full = n / tile;  // the full tiles, one block each");
  w.open("if (blockIdx.x < full) {");
  w.line("// a full tile: no mask; every load of the thread is in flight before the first use");
  w.line("const unsigned long long base = (unsigned long long)blockIdx.x * tile;  // pid * BLOCK");
  parts.tile_loads(w, shape);
  w.unrolled("k", shape.ilp, [&] {
    w.line("const unsigned long long i = base + (k * threads + threadIdx.x) * vec;");
    if (outputs_strided) parts.unravel(w);
    for (unsigned k = 0; k < d.out_count; ++k) w.line(kernel_parts::vec_type(parts.out_type(k)), " r", k, ";");
    w.unrolled_statement("j", shape.vec,
                         "jet_element(" + join(d.out_count, [](unsigned k) { return "r" + number(k) + ".v[j]"; }) +
                             parts.tile_args() + ");");
    for (unsigned k = 0; k < d.out_count; ++k) {
      const std::string kk = number(k), vt = kernel_parts::vec_type(parts.out_type(k));
      switch (v.output_access[k]) {
        case access::linear: w.line("*reinterpret_cast<", vt, "*>(out", kk, " + i) = r", kk, ";"); break;
        case access::unit:
          w.line("*reinterpret_cast<", vt, "*>(out", kk, " + jet_offset(idx, os", kk, ")) = r", kk, ";");
          break;
        default: w.line("out", kk, "[jet_offset(idx, os", kk, ")] = r", kk, ".v[0];"); break;
      }
    }
  });
  w.reopen("} else {");
  w.line("// the last tile, an element per thread: offsets = base + arange, mask = offsets < n");
  w.line("const unsigned long long i = (unsigned long long)full * tile + (blockIdx.x - full) * threads + threadIdx.x;");
  w.open("if (i < n) {");
  parts.unravel(w);
  const std::string outputs = join(d.out_count, [&](unsigned k) {
    const std::string kk = number(k);
    return "out" + kk + "[" + (v.output_access[k] == access::linear ? "i" : "jet_offset(idx, os" + kk + ")") + "]";
  });
  w.line("jet_element(", outputs, parts.element_args([&](unsigned k) { return parts.strided_offset(k); }), ");");
  w.close();
  w.close();
}

// Parameters: outputs (each with its strides when not linear), then kernel_parts::open_kernel's.
std::string output_params(const kernel_parts& parts) {
  std::string params;
  for (unsigned k = 0; k < parts.d.out_count; ++k) {
    params += (k ? ", " : "") + parts.out_type(k) + "*" + parts.restrict_ + " out" + number(k);
    if (parts.v.output_access[k] != access::linear) params += ", const jet_strides<" + parts.rank + "> os" + number(k);
  }
  return params;
}

}  // namespace

std::string generate_source(const kernel_desc& d, const variant_key& v) {
  if (d.reduction != reduction_id::none) return generate_reduction_source(d, v);
  const kernel_parts parts{d, v};
  source_writer w;
  parts.prelude(w, join(d.out_count, [&](unsigned k) { return std::string(name(d.out_types[k])); }));
  parts.open_kernel(w, v.tiled ? tile_threads : shape_of(v).threads, output_params(parts), "");
  if (v.tiled)
    tiled_body(w, parts);
  else if (v.rows)
    rows_body(w, parts);
  else
    linear_body(w, parts);
  w.close();
  return w.take();
}

}  // namespace jet::detail
