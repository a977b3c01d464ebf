// Text checks the CPU tests share.
#pragma once

#include <string>

namespace jet::test {

/// Whether `text` holds `part` anywhere.
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace jet::test
