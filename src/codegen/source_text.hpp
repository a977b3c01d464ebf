// Small helpers for writing CUDA source text.
#pragma once

#include <string>

namespace jet::detail {

inline std::string number(unsigned k) { return std::to_string(k); }

// "f(0), f(1), ..., f(count - 1)".
template <class F> std::string join(unsigned count, F f) {
  std::string s;
  for (unsigned k = 0; k < count; ++k) s += (k ? ", " : "") + f(k);
  return s;
}

// `body` once for each value of `var` from 0 to count - 1, each copy a block in which `var` is that
// constant: the loop that `#pragma unroll` would unroll, written out. NVVM then has no loop to
// unroll and clean up after, which costs compile time and yields the same code.
std::string unrolled(const std::string& var, unsigned count, const std::string& indent, const std::string& body);
// The same for a one-statement body, a line per value.
std::string unrolled_statement(const std::string& var, unsigned count, const std::string& indent, const std::string& statement);

}  // namespace jet::detail
