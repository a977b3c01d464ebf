// The plain description of a kernel that the templates hand to the non-template core in src/:
// the expression tree flattened to nodes in post-order. It is computed at compile time from the
// expression's type, so evaluating an expression never builds or hashes a description.
#pragma once

#include <jet/dtype.hpp>

#include <cstddef>
#include <cstdint>

namespace jet::detail {

enum class op_id : std::uint8_t {
  input,    // an array operand; arg[0] is its input slot
  scalar,   // a scalar operand, passed as a kernel argument; arg[0] is its scalar slot
  counter,  // an element's index in C order within a shape (jet::counter); arg[0] is its input slot
#define JET_OP1(tag, ...) tag,
#define JET_OP2 JET_OP1
#define JET_OP3 JET_OP1
#include <jet/ops.def>
#undef JET_OP1
#undef JET_OP2
#undef JET_OP3
  user,  // a user-defined element function (JET_FUNCTION); `function` says which
};

/// What a kernel does with its expression's values: stores them (elementwise), or reduces them
/// with a reduction of reductions.def.
enum class reduction_id : std::uint8_t {
  none,
#define JET_REDUCTION(tag, ...) tag,
#include <jet/reductions.def>
#undef JET_REDUCTION
};

inline constexpr std::uint64_t fnv1a_basis = 0xcbf29ce484222325ull;

constexpr std::uint64_t fnv1a(std::uint64_t h, std::uint64_t byte) { return (h ^ byte) * 0x100000001b3ull; }

/// The most bytes of a JET_FUNCTION body. Longer bodies are refused (JET_FUNCTION's static_assert,
/// code generation's check) before they are hashed, and hashing never reads further: a compile-time
/// loop over more would exceed the compilers' constexpr limits (g++: 262144 iterations).
inline constexpr std::size_t max_body_bytes = 64 * 1024;

/// The length of `text`, counting at most `most` bytes.
constexpr std::size_t bounded_length(const char* text, std::size_t most) {
  std::size_t n = 0;
  while (n < most && text[n]) ++n;
  return n;
}

/// Hashes at most max_body_bytes + 1 bytes of `text`: enough to tell apart every text jet accepts.
constexpr std::uint64_t hash_text(std::uint64_t h, const char* text) {
  for (std::size_t k = 0; k <= max_body_bytes && text[k]; ++k) h = fnv1a(h, static_cast<unsigned char>(text[k]));
  return fnv1a(h, 0);
}

/// Whether `name` is an identifier of ASCII letters, digits and underscores, not starting with a
/// digit: what a JET_FUNCTION's name must be (g++ also accepts `$` and non-ASCII letters, which
/// CUDA's spelling `jet_user_<name>` could not carry).
constexpr bool is_ascii_identifier(const char* name) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(name[0])) return false;
  for (std::size_t k = 1; name[k]; ++k)
    if (!letter(name[k]) && !(name[k] >= '0' && name[k] <= '9')) return false;
  return true;
}

/// A user-defined element function, as JET_FUNCTION declares it: a name, a C++ signature such as
/// "float(float a, float b)" and a CUDA body. Code generation checks the name, the parameter names
/// and types and the body's braces before any of it reaches a kernel.
struct user_function {
  const char* name;
  const char* signature;
  const char* body;
  /// Of the three texts, computed once per function (a kernel's hash combines its functions').
  std::uint64_t hash = hash_text(hash_text(hash_text(fnv1a_basis, name), signature), body);
};

/// The limits of one kernel's operands. Each distinct array (its pointer and strides, at most 72
/// bytes) and each C++ scalar (at most 8) is a kernel parameter; with 8 outputs these stay inside
/// the 32 KiB of parameters a CUDA 12.1 or newer driver takes. Appearances of arrays are bounded
/// apart: the launch variant maps each to its distinct array in one byte.
inline constexpr int max_inputs = 128;        // distinct arrays (the same memory, dtype and strides are one)
inline constexpr int max_input_slots = 1024;  // appearances of arrays in the expression tree
inline constexpr int max_scalars = 1024;      // appearances of C++ scalars in the expression tree
inline constexpr int max_outputs = 8;

/// How many nodes one kernel may have: nodes refer to each other by 16-bit indices.
inline constexpr std::size_t max_nodes = 65535;

struct node {
  op_id op{};
  dtype type{};  // dtype of this node's value
  std::uint8_t arity = 0;
  dtype arg_type[3]{};         // dtype each operand is converted to before the op is applied
  std::uint16_t arg[3]{};      // operand node indices (or the slot, for input and scalar)
  std::uint16_t function = 0;  // for op_id::user: the index in kernel_desc::functions
  bool named = false;          // the root of a jet::let value: its repeats are shared first

  friend constexpr bool operator==(const node&, const node&) = default;
};

/// Whether a node of op `op` is a leaf: its value comes from a run-time operand, not an operation.
constexpr bool is_leaf(op_id op) { return op == op_id::input || op == op_id::scalar || op == op_id::counter; }

struct repeat;  // detail/sharing.hpp

struct kernel_desc {
  const node* nodes;
  std::uint32_t node_count;
  std::uint32_t input_count;
  std::uint32_t scalar_count;
  const dtype* input_types;               // dtype of each input slot
  std::uint32_t counter_slots;            // input slots that are counters, not memory (bit k: slot k < 32)
  std::uint32_t out_count;                // outputs written by one kernel (jet::tie)
  const std::uint16_t* out_nodes;         // the node each output stores
  const dtype* out_types;                 // dtype of each output array
  const user_function* const* functions;  // the user functions that op_id::user nodes call
  std::uint32_t function_count;
  std::uint64_t hash;                           // of everything above; a fast first test for equality
  reduction_id reduction = reduction_id::none;  // a reduction kernel's reduction (hashed in too)
  const repeat* repeats = nullptr;              // the subtrees that may repeat earlier ones (of the nodes: not hashed)
  std::uint32_t repeat_count = 0;
};

template <class Nodes, class Roots, class Types, class Functions>
constexpr std::uint64_t hash_desc(const Nodes& nodes, const Roots& out_nodes, const Types& out_types,
                                  const Functions& functions, std::size_t function_count) {
  std::uint64_t h = fnv1a_basis;
  for (std::size_t k = 0; k < function_count; ++k) h = fnv1a(h, functions[k]->hash);
  for (std::size_t k = 0; k < out_nodes.size(); ++k) {
    h = fnv1a(h, out_nodes[k]);
    h = fnv1a(h, static_cast<std::uint64_t>(out_types[k]));
  }
  for (const node& n : nodes) {
    h = fnv1a(h, static_cast<std::uint64_t>(n.op));
    h = fnv1a(h, static_cast<std::uint64_t>(n.type));
    h = fnv1a(h, n.arity);
    for (int k = 0; k < 3; ++k) {
      h = fnv1a(h, static_cast<std::uint64_t>(n.arg_type[k]));
      h = fnv1a(h, n.arg[k]);
    }
    h = fnv1a(h, n.function);
    if (n.named) h = fnv1a(h, 1);
  }
  return h;
}

}  // namespace jet::detail
