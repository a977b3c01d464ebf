// Text checks the CPU tests share.
#pragma once

#include <cstddef>
#include <string>

namespace jet::test {

/// Whether `text` holds `part` anywhere.
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// How many times `part` occurs in `text`, overlaps counted.
inline std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto p = text.find(part); p != std::string::npos; p = text.find(part, p + 1)) ++n;
  return n;
}

/// How many times a generated kernel's element function calls op `op` (`"exp"`): codegen writes
/// one named temporary per computed node, `const float t3 = jet_exp(t2);`, so each call is one
/// `= jet_exp(` (its definition, `auto jet_exp(A a)`, is not counted).
inline std::size_t op_calls(const std::string& source, const std::string& op) {
  return occurrences(source, "= jet_" + op + "(");
}

}  // namespace jet::test
