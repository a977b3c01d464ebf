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

}  // namespace jet::test
