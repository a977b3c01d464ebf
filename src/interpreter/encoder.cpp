#include "interpreter/encoder.hpp"

#include "codegen/spelling.hpp"
#include "interpreter/source.hpp"
#include "shared_values.hpp"

#include <jet/error.hpp>

#include <algorithm>
#include <complex>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

namespace jet::detail {
namespace {

std::string dtype_name(dtype t) { return std::string(name(t)); }

// The scalar of dtype `from` as the fused kernel sees it where an op wants dtype `to`: its
// static_cast, which the host computes alike for every conversion but floating to integer (out of
// range, C++ leaves it undefined; the device saturates). The bytes of the family's compute type
// (two words for complex128): in a complex family a real value is its real part.
bool convert_scalar(const scalar_value& v, dtype from, dtype to, dtype compute, std::uint64_t (&bits)[2]) {
  if (is_inexact(from) && !is_inexact(to) && to != dtype::boolean) return false;
  if (is_complex(from) && !is_complex(compute)) return false;
  bits[0] = bits[1] = 0;
  if (is_complex(compute)) {  // the value's parts, exactly in long double, then in the family's
    std::complex<long double> z;
    visit_compute_type(from, [&](auto x) {
      std::memcpy(&x, v.bytes, sizeof x);
      if constexpr (is_complex_type<decltype(x)>::value)
        z = {x.real(), x.imag()};
      else
        z = static_cast<long double>(x);
    });
    if (to == dtype::boolean) z = z != 0.0L ? 1.0L : 0.0L;
    visit_compute_type(compute, [&](auto c) {
      if constexpr (is_complex_type<decltype(c)>::value) {
        using part = typename decltype(c)::value_type;
        c = {static_cast<part>(z.real()), static_cast<part>(z.imag())};
        std::memcpy(bits, &c, sizeof c);
      }
    });
    return true;
  }
  visit_compute_type(from, [&](auto x) {  // a scalar is passed as its compute type
    if constexpr (!is_complex_type<decltype(x)>::value) {
      std::memcpy(&x, v.bytes, sizeof x);
      visit_compute_type(compute, [&](auto c) {
        using C = decltype(c);
        if constexpr (!is_complex_type<C>::value) {
          c = to == dtype::boolean ? C(static_cast<bool>(x)) : static_cast<C>(x);
          std::memcpy(bits, &c, sizeof c);
        }
      });
    }
  });
  return true;
}

// The scalar slots (8 bytes each) one scalar value of compute type `compute` takes.
unsigned scalar_words(dtype compute) { return static_cast<unsigned>(size_of(compute) + 7) / 8; }

// Whether node n's op takes a complex operand.
bool complex_operands(const node& n) {
  for (int k = 0; k < n.arity; ++k)
    if (is_complex(n.arg_type[k])) return true;
  return false;
}

// An instruction on values (before allocation), as the encoding makes it for a register machine
// (every op reads and writes values), then as the accumulator machine runs it.
struct virtual_instruction {
  std::uint8_t op, type;
  int dst = -1;                       // value defined, or the output index of a store
  int args[3] = {-1, -1, -1};         // values read
  std::uint8_t slot = 0;              // input slot
  std::uint8_t from_accumulator = 0;  // bit k: args[k] is read from the accumulator
  int second_dst = -1;                // a load of two inputs: the second's value and slot
  std::uint8_t second_slot = 0;
};

constexpr std::uint8_t unused = interpreter_no_operand;

// The accumulator machine's code for `code`: an op computes its first operand's value in the
// accumulator in place (fetched there first unless it is there already); its result stays there
// only (no register) when the next instruction but loads alone reads it, as its first operand;
// otherwise it is saved to a register too. Two consecutive loads of one type become one.
std::vector<virtual_instruction> accumulate(const std::vector<virtual_instruction>& code,
                                            const std::vector<int>& scalar_slot) {
  std::vector<int> reads(scalar_slot.size(), 0);
  for (const virtual_instruction& v : code)
    for (int a : v.args)
      if (a >= 0) ++reads[a];
  const auto input = static_cast<std::uint8_t>(op_id::input);
  std::vector<virtual_instruction> out;
  int held = -1;  // the value in the accumulator
  for (std::size_t i = 0; i < code.size(); ++i) {
    virtual_instruction v = code[i];
    if (v.op == input && i + 1 < code.size() && code[i + 1].op == input && code[i + 1].type == v.type) {
      v.second_dst = code[i + 1].dst;  // two loads in flight at once
      v.second_slot = code[++i].slot;
    }
    if (v.op == input || v.op == store_op) {
      if (v.op == store_op && v.args[0] == held) v.from_accumulator = 1;
      out.push_back(v);
      continue;
    }
    if (v.args[0] != held) {
      virtual_instruction fetch{fetch_op, 0};
      fetch.args[0] = v.args[0];
      out.push_back(fetch);
    }
    const int result = v.dst;
    held = result;
    v.dst = -1;
    v.from_accumulator = 1;
    if (v.args[1] >= 0 && v.args[2] < 0 && scalar_slot[v.args[1]] >= 0) v.op |= scalar_second_op;
    out.push_back(v);
    std::size_t next = i + 1;  // loads leave the accumulator alone
    while (next < code.size() && code[next].op == input) ++next;
    const bool next_reads_it_there = next < code.size() && code[next].args[0] == result;
    if (reads[result] != 1 || !next_reads_it_there) {
      virtual_instruction save{save_op, 0};
      save.dst = result;
      out.push_back(save);
    }
  }
  return out;
}

// Linear-scan allocation of the accumulator machine's registers: a value's register (given by
// its load or save) is free after its last read from it; a scalar value (scalar_slot[value] >= 0)
// is read from its slot. False when more than interpreter_registers are live at once.
bool allocate(const std::vector<virtual_instruction>& code, const std::vector<int>& scalar_slot, program& out,
              unsigned& registers) {
  std::vector<int> last_read(scalar_slot.size(), -1), reg(scalar_slot.size(), -1);
  auto in_register = [&](const virtual_instruction& v, int k) {
    return v.args[k] >= 0 && !(v.from_accumulator >> k & 1) && scalar_slot[v.args[k]] < 0;
  };
  for (std::size_t i = 0; i < code.size(); ++i)
    for (int k = 0; k < 3; ++k)
      if (in_register(code[i], k)) last_read[code[i].args[k]] = static_cast<int>(i);
  bool busy[interpreter_registers] = {};
  for (std::size_t i = 0; i < code.size(); ++i) {
    const virtual_instruction& v = code[i];
    instruction& in = out.code[i];
    in = {v.op, unused, unused, unused, unused, v.type};
    std::uint8_t* operands[] = {&in.a, &in.b, &in.c};
    for (int k = 0; k < 3; ++k) {
      const int a = v.args[k];
      if (a < 0) continue;
      *operands[k] = static_cast<std::uint8_t>(v.from_accumulator >> k & 1 ? interpreter_accumulator
                                               : scalar_slot[a] >= 0       ? interpreter_scalar_operand + scalar_slot[a]
                                                                           : reg[a]);
      if (in_register(v, k) && last_read[a] == static_cast<int>(i)) busy[reg[a]] = false;
    }
    if (v.op == store_op) in.dst = static_cast<std::uint8_t>(v.dst);
    if (v.op != static_cast<std::uint8_t>(op_id::input) && v.op != save_op) continue;
    auto assign = [&](int value) -> std::uint8_t {
      const auto free_register = std::find(busy, busy + interpreter_registers, false);
      if (free_register == busy + interpreter_registers) return unused;
      *free_register = last_read[value] > static_cast<int>(i);  // a value never read again frees it at once
      reg[value] = static_cast<int>(free_register - busy);
      registers = std::max(registers, static_cast<unsigned>(reg[value]) + 1);
      return static_cast<std::uint8_t>(reg[value]);
    };
    if ((in.dst = assign(v.dst)) == unused) return false;
    if (v.op == save_op) continue;
    // A load of one input loads it twice, into the same register: the kernel always loads two.
    in.a = in.b = v.slot;
    in.c = in.dst;
    if (v.second_dst >= 0) {
      in.b = v.second_slot;
      if ((in.c = assign(v.second_dst)) == unused) return false;
    }
  }
  out.count = static_cast<std::uint32_t>(code.size());
  return true;
}

// Why d has no interpreter family (empty when it has one), and the family.
std::string family_of(const kernel_desc& d, const interpreter_family*& family) {
  if (d.reduction != reduction_id::none) return "it is a reduction";
  if (d.function_count) return "it calls a user function";
  if (d.counter_slots) return "it reads jet::counter";
  for (unsigned i = 0; i < d.node_count; ++i)
    if (d.nodes[i].op > op_id::counter &&
        std::none_of(std::begin(interpreter_families), std::end(interpreter_families),
                     [&](const interpreter_family& f) { return interpretable_op(d.nodes[i].op, f); }))
      return "no interpreter has `" + std::string(op_tag(d.nodes[i].op)) + "`";
  // The compute types: one, or a complex one and its parts' type.
  dtype compute = dtype::boolean, second = dtype::boolean;
  std::string mixed;
  auto note = [&](dtype t) {
    const dtype c = compute_type(t);
    if (c == dtype::boolean || c == compute || c == second) return;
    if (compute == dtype::boolean)
      compute = c;
    else if (second == dtype::boolean && (real_type(compute) == c || real_type(c) == compute))
      second = c;
    else
      mixed = "it computes in both " + dtype_name(compute) + " and " + dtype_name(c);
  };
  for (unsigned i = 0; i < d.node_count; ++i) {
    const node& n = d.nodes[i];
    if (n.op != op_id::scalar) note(n.type);
    for (int k = 0; k < n.arity; ++k) note(n.arg_type[k]);
  }
  if (!mixed.empty()) return mixed;
  if (is_complex(second)) compute = second;
  if (compute == dtype::boolean) compute = dtype::int32;  // bool throughout: any family computes it exactly
  // The first family of that compute type that has every op (a core one before its math one).
  std::string missing;
  family = nullptr;
  for (const interpreter_family& f : interpreter_families) {
    if (f.compute != compute) continue;
    missing.clear();
    for (unsigned i = 0; i < d.node_count && missing.empty(); ++i) {
      const node& n = d.nodes[i];
      if (n.op <= op_id::counter) continue;
      if (!interpretable_op(n.op, f))
        missing = "the " + std::string(f.name) + " interpreter has no `" + std::string(op_tag(n.op)) + "`";
      else if (is_complex(f.compute) && !(complex_operands(n) ? takes_complex(n.op, f) : takes_real(n.op, f)))
        missing = "the " + std::string(f.name) + " interpreter has no `" + std::string(op_tag(n.op)) + "` of " +
                  (complex_operands(n) ? "complex" : "real") + " operands";
    }
    family = &f;
    if (missing.empty()) break;
  }
  if (!family) return "no interpreter computes in " + dtype_name(compute);
  if (!missing.empty()) return missing;
  for (unsigned k = 0; k < d.out_count; ++k)
    if (!interpreter_stores(*family, d.out_types[k]))
      return "the " + std::string(family->name) + " interpreter stores no " + dtype_name(d.out_types[k]);
  return {};
}

// The program in values (virtual registers) for one placement of the loads: all first, or each
// before its first use. A node inside a repeat that holds takes the earlier copy's value, held in
// a register like any other. Fills `code`, `scalar_slot` (per value: its scalar slot, or -1) and
// the program's scalars (one slot per distinct value); returns why the interpreter cannot run it,
// or nothing.
std::string virtual_code(const kernel_desc& d, const scalar_value* scalars, const std::uint8_t* unique_of,
                         std::uint64_t shared, dtype compute, unsigned input_count, bool loads_first,
                         std::vector<virtual_instruction>& code, std::vector<int>& scalar_slot, program& prog) {
  auto distinct = [&](unsigned slot) { return unique_of ? unique_of[slot] : slot; };
  auto new_value = [&](int slot = -1) {
    scalar_slot.push_back(slot);
    return static_cast<int>(scalar_slot.size()) - 1;
  };
  std::vector<int> value_of(d.node_count, -1), input_value(input_count, -1);
  unsigned scalar_slots = 0;
  std::string failure;
  auto load = [&](unsigned node_index) {
    const unsigned in = distinct(d.nodes[node_index].arg[0]);
    if (input_value[in] < 0) {
      virtual_instruction v{static_cast<std::uint8_t>(op_id::input),
                            static_cast<std::uint8_t>(d.nodes[node_index].type)};
      v.dst = input_value[in] = new_value();
      v.slot = static_cast<std::uint8_t>(in);
      code.push_back(v);
    }
    return input_value[in];
  };
  if (loads_first)
    for (unsigned i = 0; i < d.node_count; ++i)
      if (d.nodes[i].op == op_id::input) load(i);
  // The value node i has where an op wants dtype `want` (compute type or bool).
  auto operand = [&](unsigned i, dtype want) -> int {
    const node& n = d.nodes[i];
    if (n.op == op_id::scalar) {
      std::uint64_t bits[2] = {};
      if (scalars && !convert_scalar(scalars[n.arg[0]], n.type, want, compute, bits)) {
        failure = "a " + dtype_name(n.type) + " scalar converts to " + dtype_name(want);
        return -1;
      }
      if (!scalars && is_inexact(n.type) && !is_inexact(want) && want != dtype::boolean) {
        failure = "a " + dtype_name(n.type) + " scalar converts to " + dtype_name(want);
        return -1;
      }
      // Equal values share a slot; without the values, each appearance has its own.
      const unsigned words = scalar_words(compute);
      unsigned same = scalar_slots;
      for (unsigned k = 0; scalars && k < scalar_slots; k += words)
        if (std::equal(bits, bits + words, prog.scalars + k)) same = k;
      if (same == scalar_slots) {
        if (scalar_slots + words > interpreter_scalars) {
          failure = "more than " + std::to_string(interpreter_scalars / words) + " distinct scalar operands";
          return -1;
        }
        std::copy(bits, bits + words, prog.scalars + scalar_slots);
        scalar_slots += words;
      }
      return new_value(static_cast<int>(same));
    }
    const int held = n.op == op_id::input ? load(i) : value_of[i];
    if (want != dtype::boolean || n.type == dtype::boolean) return held;  // bool is held as 0 or 1
    virtual_instruction v{static_cast<std::uint8_t>(op_id::cast), static_cast<std::uint8_t>(dtype::boolean)};
    v.args[0] = held;
    v.dst = new_value();
    code.push_back(v);
    return v.dst;
  };
  // Once every load is done, an output is stored as soon as it is computed; otherwise at the
  // end, after every load (an output may be an input's memory).
  bool stored[max_outputs] = {};
  auto store = [&](unsigned k) {
    virtual_instruction v{store_op, static_cast<std::uint8_t>(d.out_types[k])};
    v.args[0] = operand(d.out_nodes[k], d.nodes[d.out_nodes[k]].type);
    v.dst = static_cast<int>(k);
    code.push_back(v);
    stored[k] = true;
  };
  const std::vector<std::uint16_t> source = value_sources(d, shared);
  for (unsigned i = 0; i < d.node_count && failure.empty(); ++i) {
    const node& n = d.nodes[i];
    if (n.op == op_id::input || n.op == op_id::scalar) continue;
    if (source[i] != i) {  // inside a holding repeat's later copy: the earlier copy's value
      value_of[i] = value_of[source[i]];
      for (unsigned k = 0; loads_first && k < d.out_count; ++k)
        if (d.out_nodes[k] == i) store(k);
      continue;
    }
    // Bool is held as 0 or 1 of the compute type, where ~1 is -2: ~ of bool is logical not.
    const op_id op = n.op == op_id::bitwise_not && n.type == dtype::boolean ? op_id::logical_not : n.op;
    // A cast's type is its target; a complex family's op computes on complex operands or on real
    // parts, as its type says.
    const dtype type = !is_complex(compute) || op == op_id::cast ? n.type
                       : complex_operands(n)                     ? compute
                                                                 : real_type(compute);
    virtual_instruction v{static_cast<std::uint8_t>(op), static_cast<std::uint8_t>(type)};
    for (int k = 0; k < n.arity; ++k) v.args[k] = operand(n.arg[k], n.arg_type[k]);
    v.dst = value_of[i] = new_value();
    code.push_back(v);
    for (unsigned k = 0; loads_first && k < d.out_count; ++k)
      if (d.out_nodes[k] == i) store(k);
  }
  for (unsigned k = 0; k < d.out_count && failure.empty(); ++k)
    if (!stored[k]) store(k);
  return failure;
}

}  // namespace

encoding encode_for_interpreter(const kernel_desc& d, const scalar_value* scalars, const std::uint8_t* unique_of,
                                std::uint64_t shared) {
  encoding e;
  const interpreter_family* family = nullptr;
  e.reason = family_of(d, family);
  if (!e.reason.empty()) return e;
  const dtype compute = family->compute;
  auto distinct = [&](unsigned slot) { return unique_of ? unique_of[slot] : slot; };
  for (unsigned k = 0; k < d.input_count; ++k) e.input_count = std::max(e.input_count, distinct(k) + 1u);
  if (e.input_count > interpreter_inputs) {
    e.reason = std::to_string(e.input_count) + " distinct inputs, more than the interpreter's " +
               std::to_string(interpreter_inputs);
    return e;
  }
  e.output_count = d.out_count;

  // Values: one per input node (by distinct input) and op node; scalars and conversions are
  // values made where they are read (a scalar's in a scalar slot, not in a register).
  for (int loads_first = 1; loads_first >= 0; --loads_first) {
    std::vector<virtual_instruction> code;
    std::vector<int> scalar_slot;
    const std::string failure =
        virtual_code(d, scalars, unique_of, shared, compute, e.input_count, loads_first, code, scalar_slot, e.code);
    if (!failure.empty()) {
      e.reason = failure;
      return e;
    }
    const std::vector<virtual_instruction> machine = accumulate(code, scalar_slot);
    if (machine.size() > interpreter_code) {
      e.reason = std::to_string(machine.size()) + " instructions, more than the interpreter's " +
                 std::to_string(interpreter_code);
      return e;
    }
    e.registers = 0;
    if (allocate(machine, scalar_slot, e.code, e.registers)) {
      e.family = family;
      return e;
    }
  }
  e.reason = "it needs more than the interpreter's " + std::to_string(interpreter_registers) + " registers";
  return e;
}

}  // namespace jet::detail
