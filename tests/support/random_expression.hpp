// Random well-typed expressions over the op table, built at run time as kernel descriptions (no
// template instantiation per expression), typed with jet::detail::resolve as the templates are.
// Each comes with operands of random dtypes (complex ones in complex trees), shapes and layouts
// (broadcast rows and columns, transposed, sliced, reversed, misaligned), random scalars, an
// output placement and random data with special values mixed in; all of it follows from one seed.
#pragma once

#include "random_data.hpp"
#include "reference.hpp"  // offset_of
#include "runtime_desc.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"  // describe (the tests see the core's internal headers)

#include <jet/detail/kernel_desc.hpp>
#include <jet/detail/rules.hpp>
#include <jet/jet.hpp>

#include <algorithm>
#include <cmath>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace jet::test {

/// The dtypes the fuzzer's array operands, casts and outputs have: every dtype jet has (bool also
/// from comparisons), the complex ones in complex trees (and from make_complex and polar). C++
/// scalars have the real dtypes scalar_dtype_of gives them.
inline constexpr dtype real_dtypes[] = {dtype::boolean, dtype::int8,     dtype::uint8,   dtype::int16,
                                        dtype::int32,   dtype::uint32,   dtype::int64,   dtype::uint64,
                                        dtype::float16, dtype::bfloat16, dtype::float32, dtype::float64};
inline constexpr dtype complex_dtypes[] = {dtype::complex64, dtype::complex128};
inline constexpr dtype all_dtypes[] = {dtype::boolean,   dtype::int8,      dtype::uint8,   dtype::int16,
                                       dtype::int32,     dtype::uint32,    dtype::int64,   dtype::uint64,
                                       dtype::float16,   dtype::bfloat16,  dtype::float32, dtype::float64,
                                       dtype::complex64, dtype::complex128};
inline constexpr dtype scalar_dtypes[] = {dtype::boolean, dtype::int32,   dtype::int32,   dtype::int64,  dtype::uint32,
                                          dtype::uint64,  dtype::float32, dtype::float32, dtype::float64};

/// How a dtype is spelled in C++ (jet::name spells it "float32").
inline const char* cpp_name(dtype t) {
  constexpr const char* names[] = {
      "bool",          "std::int8_t",  "std::uint8_t",        "std::int16_t",        "std::int32_t",
      "std::uint32_t", "std::int64_t", "std::uint64_t",       "jet::float16",        "jet::bfloat16",
      "float",         "double",       "std::complex<float>", "std::complex<double>"};
  static_assert(std::size(names) == detail::dtype_count);
  return names[static_cast<std::size_t>(t)];
}

/// The op table at run time, in table order.
struct op_entry {
  detail::op_id id;
  detail::rule rule;
  detail::domain domain;
  int arity;
  const char* name;
};
inline const std::vector<op_entry>& op_table() {
  static const std::vector<op_entry> table = [] {
    std::vector<op_entry> t;
    ops::for_each_op([&](auto op) {
      using Op = decltype(op);
      t.push_back({Op::id, Op::rule, Op::domain, Op::arity, Op::name});
    });
    return t;
  }();
  return table;
}
/// The ops a tree's nodes are drawn from: every op once, and an op on integers or bool only, or on
/// float32 and float64 only, four times, as operands of another dtype make it give way to an op
/// that takes them (every op must be in 1% of the trees).
inline const std::vector<const op_entry*>& drawn_ops() {
  static const std::vector<const op_entry*> drawn = [] {
    std::vector<const op_entry*> d;
    for (const op_entry& op : op_table()) d.insert(d.end(), detail::accepts(op.domain, dtype::float16) ? 1 : 4, &op);
    return d;
  }();
  return drawn;
}
inline const op_entry& op_for(detail::op_id id) {
  return *std::find_if(op_table().begin(), op_table().end(), [id](const op_entry& e) { return e.id == id; });
}

/// Where an array operand (or the output) lies in its allocation.
struct placement {
  const char* form;        // full, row, column, single, transposed, strided, reversed or padded
  std::size_t allocation;  // elements allocated
  std::int64_t first;      // the view's first element, counted from the allocation's start
  detail::layout view;     // the view's extents and strides, in elements
};

/// The forms an operand may take against an index space of shape s: broadcast ones (a row (C,),
/// a column (R, 1), a single element) only as operands, never as the output.
inline placement make_placement(const jet::shape& s, const char* form, std::int64_t misalignment) {
  const int rank = s.rank();
  const std::int64_t columns = s[rank - 1];
  auto size_of_shape = [](const jet::shape& x) { return static_cast<std::int64_t>(x.size()); };
  placement p{form, 0, 0, detail::layout::contiguous(s)};
  std::int64_t needed = size_of_shape(s);
  const std::string f = form;
  if (f == "row") {
    p.view = detail::layout::contiguous(jet::shape{columns});
    needed = columns;
  } else if (f == "column") {
    jet::shape column = s;
    column[rank - 1] = 1;
    p.view = detail::layout::contiguous(column);
    needed = size_of_shape(column);
  } else if (f == "single") {
    p.view = detail::layout::contiguous(jet::shape{1});
    needed = 1;
  } else if (f == "transposed") {  // the transpose of a C-order array of the reversed shape
    jet::shape reversed;
    for (int d = rank - 1; d >= 0; --d) reversed.push_back(s[d]);
    const detail::layout r = detail::layout::contiguous(reversed);
    for (int d = 0; d < rank; ++d) p.view.strides[d] = r.strides[rank - 1 - d];
  } else if (f == "strided") {  // every other column of an array twice as wide
    for (int d = 0; d < rank; ++d) p.view.strides[d] *= 2;
    needed = 2 * needed;
  } else if (f == "reversed") {  // the columns in reverse order
    p.view.strides[rank - 1] = -1;
    p.first = std::max<std::int64_t>(columns - 1, 0);
  } else if (f == "padded") {  // a window of an array one larger in every dimension: unaligned rows
    jet::shape padded = s;
    for (int d = 0; d < rank; ++d) padded[d] += 1;
    p.view.strides = detail::layout::contiguous(padded).strides;
    needed = size_of_shape(padded);
  }
  p.first += misalignment;
  p.allocation = static_cast<std::size_t>(std::max<std::int64_t>(needed, 1) + misalignment);
  return p;
}

inline constexpr const char* operand_forms[] = {"full",       "full",    "row",      "column", "single",
                                                "transposed", "strided", "reversed", "padded"};
inline constexpr const char* output_forms[] = {"full", "full", "full", "transposed", "strided", "reversed", "padded"};

/// An array operand: its dtype, placement and data (the whole allocation).
struct random_operand {
  dtype type;
  placement where;
  std::vector<std::complex<long double>> values;  // exact (a real dtype's imaginary parts are 0)
};

/// Sizes around the vector width and the tile (threads x ilp x vec = 256 x vec elements: 256,
/// 512 or 1024), and a few tiles.
inline constexpr std::int64_t sizes_1d[] = {0,   1,   2,    3,    4,    5,    7,    8,    9,    15,   16,  17,  23,
                                            31,  32,  33,   63,   64,   65,   127,  128,  129,  255,  256, 257, 511,
                                            512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097};
inline constexpr std::int64_t rows_2d[] = {1, 2, 3, 5, 8, 17, 23, 33, 64};
inline constexpr std::int64_t columns_2d[] = {1,  2,  3,  4,  5,   7,   8,   16,  17,  23,
                                              31, 32, 33, 64, 127, 128, 129, 255, 256, 257};

/// The generator's limits: at most 8 nodes from root to leaf, up to 6 distinct array operands;
/// max_ops keeps every tree within a kernel's 32 input slots (at most 2 max_ops + 1 leaves). Where
/// an operand is drawn, a copy of a subtree drawn earlier takes its place at `repeat_rate`: over
/// the same operands and scalar values mostly (a repeat that holds, computed once), sometimes
/// over others of the same dtypes (one that does not); a third of the copies are jet::let values
/// (the original and the copy named).
struct expression_limits {
  int max_depth = 8;
  int max_distinct_inputs = 6;
  int max_ops = 15;
  double repeat_rate = 0.15;
};

/// The most nodes a random expression has (2 max_ops + 1 of the default limits, with room).
inline constexpr std::size_t max_random_nodes = 64;

/// One random expression, ready to evaluate: the description's parts, its operands and scalars,
/// its output and where the output goes.
struct random_expression {
  std::uint64_t seed;
  jet::shape shape;                        // of the output: what the operands broadcast to
  std::vector<detail::node> nodes;         // post-order; the last is the root
  std::vector<dtype> input_types;          // per input slot
  std::vector<std::uint8_t> slot_operand;  // per input slot: which operand it reads
  std::vector<random_operand> operands;    // the distinct arrays (some may be read by no slot)
  std::vector<dtype> scalar_types;
  std::vector<detail::scalar_value> scalars;
  std::vector<long double> scalar_values;  // the same, exact
  std::vector<detail::repeat> repeats;     // of the nodes, as an expression's type lists them
  std::array<std::uint16_t, 1> out_node{};
  std::array<dtype, 1> out_type{dtype::float32};
  placement output;
  double special_rate = 0;

  detail::kernel_desc desc() const {
    return runtime_desc(nodes, input_types, scalars.size(), out_node, out_type, repeats);
  }
  /// The layout of each input slot: its operand's view (a slot that repeats an operand repeats the
  /// pointer, as an expression's leaves do).
  std::vector<const detail::layout*> input_layouts() const {
    std::vector<const detail::layout*> l;
    for (std::uint8_t o : slot_operand) l.push_back(&operands[o].where.view);
    return l;
  }
  /// How many nodes lie on the longest path from the root to a leaf.
  int depth() const {
    std::vector<int> d(nodes.size(), 1);
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (int k = 0; k < nodes[i].arity; ++k) d[i] = std::max(d[i], d[nodes[i].arg[k]] + 1);
    return d.back();
  }
  /// The expression in C++ syntax, with its operands' dtypes, shapes and layouts, its scalars and
  /// its output: what a failure prints.
  std::string text() const;
};

namespace detail_random {

inline std::string scalar_literal(dtype t, long double v) {
  char buffer[64];
  if (is_floating(t)) {
    const char* suffix = t == dtype::float32 ? "f" : "";
    if (std::isnan(v)) return t == dtype::float32 ? "std::nanf(\"\")" : "std::nan(\"\")";
    if (std::isinf(v)) return std::string(v < 0 ? "-" : "") + "std::numeric_limits<" + cpp_name(t) + ">::infinity()";
    std::snprintf(buffer, sizeof buffer, "%.*Lg%s", t == dtype::float32 ? 9 : 17, v, suffix);
    std::string s = buffer;
    if (s.find_first_of(".eE") == std::string::npos) s.insert(s.size() - std::strlen(suffix), ".0");
    return s;
  }
  if (t == dtype::boolean) return v != 0 ? "true" : "false";
  std::snprintf(buffer, sizeof buffer, "%.0Lf", v);
  return std::string(cpp_name(t)) + "{" + buffer + "}";
}

inline std::string strides_text(const detail::layout& l) {
  std::string s = "{";
  for (int d = 0; d < l.extents.rank(); ++d) s += (d ? ", " : "") + std::to_string(l.strides[d]);
  return s + "}";
}

inline std::string extents_text(const detail::layout& l) {
  std::string s = "{";
  for (int d = 0; d < l.extents.rank(); ++d) s += (d ? ", " : "") + std::to_string(l.extents[d]);
  return s + "}";
}

inline std::string view_text(const char* name, dtype t, const placement& p) {
  return "  jet::view<" + std::string(cpp_name(t)) + "> " + name + "(" + name + "_memory + " + std::to_string(p.first) +
         ", " + extents_text(p.view) + ", " + strides_text(p.view) + ");  // " + p.form + ", " +
         std::to_string(p.allocation) + " elements allocated\n";
}

}  // namespace detail_random

inline std::string random_expression::text() const {
  using namespace detail_random;
  static const char* names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
  std::string s = "  // shape " + shape.to_string() + ", special values in " +
                  std::to_string(static_cast<int>(special_rate * 100)) + "% of the data\n";
  for (std::size_t k = 0; k < operands.size(); ++k) s += view_text(names[k], operands[k].type, operands[k].where);
  // describe() names slots in0.. and scalars s0..: name them as the declarations above do.
  std::string e = detail::describe(desc());
  for (dtype t : all_dtypes)
    e = std::regex_replace(e, std::regex("cast<" + std::string(name(t)) + ">"),
                           "jet::cast<" + std::string(cpp_name(t)) + ">");
  std::string named;
  const std::regex leaf("\\b(in|s)([0-9]+)\\b");
  std::sregex_iterator it(e.begin(), e.end(), leaf), end;
  std::size_t last = 0;
  for (; it != end; ++it) {
    const std::size_t slot = std::stoul((*it)[2]);
    named += e.substr(last, it->position() - last);
    named += (*it)[1] == "in" ? std::string(names[slot_operand[slot]])
                              : scalar_literal(scalar_types[slot], scalar_values[slot]);
    last = it->position() + it->length();
  }
  named += e.substr(last);
  s += view_text("out", out_type[0], output);
  return s + "  out = " + named + ";  // using namespace jet; the expression is " +
         std::string(name(nodes.back().type)) + "\n";
}

/// The share of trees drawn complex (complex operands); make_complex, polar and casts make complex
/// values in others.
inline constexpr double complex_tree_rate = 0.12;

/// Where in its allocation an array of dtype t starts, in whole elements: at its start, or (with
/// probability p) 1 to 15 bytes after it where an element is narrower than 16 bytes.
inline std::int64_t random_misalignment(dtype t, chooser& c, double p) {
  const std::int64_t per_vector = 16 / size_of(t);
  if (per_vector == 1 || !c.chance(p)) return 0;
  return 1 + static_cast<std::int64_t>(c.below(per_vector - 1));
}

/// The random expression of `seed`.
inline random_expression make_random_expression(std::uint64_t seed, const expression_limits& limits = {}) {
  chooser c(seed);
  random_expression r;
  r.seed = seed;
  r.special_rate = c.pick(std::initializer_list<double>{0, 0, 0.02, 0.1, 0.3});
  // A complex tree reads complex operands (the first, and each after the second at even odds) and
  // a real one at least (the second), which a where's condition can read.
  const bool complex_tree = c.chance(complex_tree_rate);

  // The output's shape: 1-D, 2-D (mostly) or 3-D, sometimes empty.
  const int rank = c.pick(std::initializer_list<int>{1, 2, 2, 2, 3});
  if (rank == 1)
    r.shape = jet::shape{c.pick(sizes_1d)};
  else if (rank == 2)
    r.shape = jet::shape{c.chance(0.03) ? 0 : c.pick(rows_2d), c.pick(columns_2d)};
  else
    r.shape = jet::shape{c.pick(std::initializer_list<std::int64_t>{2, 3}),
                         c.pick(std::initializer_list<std::int64_t>{1, 2, 5}),
                         c.pick(std::initializer_list<std::int64_t>{1, 3, 8, 17})};

  // The distinct array operands, each with its own dtype, placement, misalignment and data.
  const std::size_t distinct = std::max<std::size_t>(1 + c.below(limits.max_distinct_inputs), complex_tree ? 2 : 1);
  std::vector<std::uint8_t> real_operands;
  for (std::size_t k = 0; k < distinct; ++k) {
    random_operand o;
    const bool complex_operand = complex_tree && (k == 0 || (k > 1 && c.chance(0.5)));
    o.type = complex_operand ? c.pick(complex_dtypes) : c.pick(real_dtypes);
    if (!complex_operand) real_operands.push_back(static_cast<std::uint8_t>(k));
    o.where = make_placement(r.shape, c.pick(operand_forms), random_misalignment(o.type, c, 0.5));
    const bool positive = c.chance(0.4);
    o.values.resize(o.where.allocation);
    for (auto& v : o.values) v = random_element(o.type, c, r.special_rate, positive);
    r.operands.push_back(std::move(o));
  }

  // The tree, in post-order: at depth d a leaf with probability 0.1 + 0.1 d, always at the
  // deepest level or once max_ops ops are placed. An op has at least one operand that is not a
  // C++ scalar, as in C++ (2 + 3 is not an expression).
  int ops_placed = 0;
  auto add_scalar = [&](dtype t, long double v) {
    detail::scalar_value sv;
    std::memset(&sv, 0, sizeof sv);
    visit_real(t, [&](auto x) {
      using T = decltype(x);
      const T value = static_cast<T>(v);
      std::memcpy(&sv, &value, sizeof value);
    });
    detail::node n{detail::op_id::scalar, t};
    n.arg[0] = static_cast<std::uint16_t>(r.scalars.size());
    r.scalars.push_back(sv);
    r.scalar_types.push_back(t);
    r.scalar_values.push_back(v);
    return n;
  };
  auto add_input = [&](std::uint8_t operand) {
    detail::node n{detail::op_id::input, r.operands[operand].type};
    n.arg[0] = static_cast<std::uint16_t>(r.input_types.size());
    r.input_types.push_back(n.type);
    r.slot_operand.push_back(operand);
    return n;
  };
  // A leaf of a real subtree reads a real operand (there is one: complex trees have one).
  auto add_leaf = [&](bool allow_scalar, bool real) -> std::uint16_t {
    if (allow_scalar && c.chance(0.2)) {
      const dtype t = c.pick(scalar_dtypes);
      r.nodes.push_back(add_scalar(t, random_value(t, c, r.special_rate, c.chance(0.4))));
    } else {
      r.nodes.push_back(add_input(real ? c.pick(real_operands) : static_cast<std::uint8_t>(c.below(distinct))));
    }
    return static_cast<std::uint16_t>(r.nodes.size() - 1);
  };
  // The nodes of the subtree at node j and its depth.
  auto extent = [&](auto& self, std::size_t j) -> std::pair<std::size_t, int> {
    std::size_t size = 1;
    int deepest = 0;
    for (int k = 0; k < r.nodes[j].arity; ++k) {
      const auto [s, d] = self(self, r.nodes[j].arg[k]);
      size += s;
      deepest = std::max(deepest, d);
    }
    return {size, deepest + 1};
  };
  // A copy of an earlier subtree with an op at its root that fits at `depth` (in depth, ops and
  // input slots; a real value where one must be), over the same operands and scalar values or,
  // sometimes, others of their dtypes; none when none fits.
  auto repeat_subtree = [&](int depth, bool real) -> std::optional<std::uint16_t> {
    std::vector<std::size_t> fitting;
    for (std::size_t j = 0; j < r.nodes.size(); ++j) {
      if (r.nodes[j].arity == 0 || (real && is_complex(r.nodes[j].type))) continue;
      const auto [size, deep] = extent(extent, j);
      int ops = 0;
      std::size_t inputs = 0;
      for (std::size_t k = j + 1 - size; k <= j; ++k) {
        ops += r.nodes[k].arity > 0;
        inputs += r.nodes[k].op == detail::op_id::input;
      }
      if (depth - 1 + deep <= limits.max_depth && ops_placed + ops <= limits.max_ops &&
          r.input_types.size() + inputs <= 32)
        fitting.push_back(j);
    }
    if (fitting.empty()) return std::nullopt;
    const std::size_t j = c.pick(fitting), first = j + 1 - extent(extent, j).first, base = r.nodes.size();
    const bool same = c.chance(0.7);
    for (std::size_t k = first; k <= j; ++k) {
      detail::node n = r.nodes[k];
      if (n.op == detail::op_id::input) {
        std::uint8_t operand = r.slot_operand[n.arg[0]];
        const std::uint8_t other = static_cast<std::uint8_t>(c.below(distinct));
        if (!same && r.operands[other].type == n.type) operand = other;
        n = add_input(operand);
      } else if (n.op == detail::op_id::scalar) {
        const dtype t = r.scalar_types[n.arg[0]];
        n = add_scalar(t, same ? r.scalar_values[n.arg[0]] : random_value(t, c, r.special_rate, c.chance(0.4)));
      } else {
        for (int a = 0; a < n.arity; ++a) n.arg[a] = static_cast<std::uint16_t>(n.arg[a] - first + base);
        ++ops_placed;
      }
      r.nodes.push_back(n);
    }
    if (c.chance(1.0 / 3)) r.nodes[j].named = r.nodes.back().named = true;  // a jet::let value and its use
    return static_cast<std::uint16_t>(r.nodes.size() - 1);
  };
  // A subtree at `depth`; a real value where `real` (a where's condition is never complex, and
  // neither are its other operands where it must be real).
  auto grow = [&](auto& self, int depth, bool allow_scalar, bool real) -> std::uint16_t {
    if (depth > 1 && c.chance(limits.repeat_rate))
      if (const std::optional<std::uint16_t> copy = repeat_subtree(depth, real)) return *copy;
    const bool leaf =
        depth > 1 && (depth == limits.max_depth || ops_placed >= limits.max_ops || c.chance(0.1 + 0.1 * depth));
    if (leaf) return add_leaf(allow_scalar, real);
    ++ops_placed;
    const op_entry* op = c.pick(drawn_ops());
    std::uint16_t args[3];
    dtype in[3];
    bool weak[3];
    bool any_array = false;
    for (int k = 0; k < op->arity; ++k) {
      args[k] = self(self, depth + 1, any_array || k + 1 < op->arity, op->arity == 3 && (real || k == 0));
      in[k] = r.nodes[args[k]].type;
      weak[k] = r.nodes[args[k]].op == detail::op_id::scalar;  // C++ scalars are weak (jet::promote)
      any_array = any_array || !weak[k];
    }
    const dtype target = c.pick(all_dtypes);  // read by cast only
    detail::typing t = detail::resolve(op->rule, op->arity, in, weak, target);
    // An op whose domain refuses these operands gives way to one of the same arity that takes them
    // (and makes a real value where one must be).
    while (!detail::accepts(op->domain, op->rule, op->arity, t) || (real && is_complex(t.result))) {
      const int arity = op->arity;
      do op = &c.pick(op_table());
      while (op->arity != arity);
      t = detail::resolve(op->rule, op->arity, in, weak, target);
    }
    detail::node n{op->id, t.result, static_cast<std::uint8_t>(op->arity)};
    for (int k = 0; k < op->arity; ++k) {
      n.arg_type[k] = t.args[k];
      n.arg[k] = args[k];
    }
    r.nodes.push_back(n);
    return static_cast<std::uint16_t>(r.nodes.size() - 1);
  };
  r.out_node[0] = grow(grow, 1, false, false);
  const detail::repeats_of_nodes<max_random_nodes> found(r.nodes.data(), r.nodes.size());
  r.repeats.assign(found.list.begin(), found.list.begin() + found.count);

  // The shape is what the operands the tree reads broadcast to: smaller than the one drawn when
  // it reads only rows, columns or single elements.
  r.shape = detail::broadcast_shape(r.desc(), r.input_layouts().data());

  // Stored in the expression's dtype, or converted on store into another (a complex value only
  // into a complex dtype: no rule converts it to a real one).
  const dtype root = r.nodes.back().type;
  r.out_type[0] = !c.chance(0.25) ? root : is_complex(root) ? c.pick(complex_dtypes) : c.pick(all_dtypes);
  r.output = make_placement(r.shape, c.pick(output_forms), random_misalignment(r.out_type[0], c, 0.3));
  return r;
}

/// How many trees of a run hold each op, and each dtype (as a node's, an operand's or the
/// output's): every op and every dtype must be in at least 1% of the trees.
struct coverage {
  std::size_t trees = 0;
  std::map<detail::op_id, std::size_t> trees_with_op;
  std::map<dtype, std::size_t> trees_with_dtype;

  void add(const random_expression& r) {
    std::set<detail::op_id> ops;
    std::set<dtype> dtypes{r.out_type[0]};
    for (const detail::node& n : r.nodes) {
      dtypes.insert(n.type);
      if (n.op != detail::op_id::input && n.op != detail::op_id::scalar) ops.insert(n.op);
    }
    for (detail::op_id op : ops) ++trees_with_op[op];
    for (dtype t : dtypes) ++trees_with_dtype[t];
    ++trees;
  }
  /// The ops and dtypes in fewer than 1% of the trees, one a line with its count; empty when none.
  std::string rare() const {
    std::string s;
    auto check = [&](const char* what, std::size_t count) {
      if (count * 100 < trees)
        s += std::string(what) + " is in " + std::to_string(count) + " of " + std::to_string(trees) + " trees\n";
    };
    for (const op_entry& op : op_table()) check(op.name, trees_with_op.count(op.id) ? trees_with_op.at(op.id) : 0);
    for (dtype t : all_dtypes) check(name(t).data(), trees_with_dtype.count(t) ? trees_with_dtype.at(t) : 0);
    return s;
  }
};

/// The seed of case `index` of a run seeded `run_seed` (splitmix64: nearby indices give unrelated
/// seeds).
inline std::uint64_t case_seed(std::uint64_t run_seed, std::uint64_t index) {
  std::uint64_t z = run_seed + 0x9E3779B97F4A7C15ull * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace jet::test
