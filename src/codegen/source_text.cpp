#include "codegen/source_text.hpp"

namespace jet::detail {

std::string unrolled(const std::string& var, unsigned count, const std::string& indent, const std::string& body) {
  std::string s;
  for (unsigned c = 0; c < count; ++c)
    s += indent + "{\n" + indent + "  constexpr unsigned " + var + " = " + std::to_string(c) + ";\n" + body + indent + "}\n";
  return s;
}
std::string unrolled_statement(const std::string& var, unsigned count, const std::string& indent, const std::string& statement) {
  std::string s;
  for (unsigned c = 0; c < count; ++c)
    s += indent + "{ constexpr unsigned " + var + " = " + std::to_string(c) + "; " + statement + " }\n";
  return s;
}

}  // namespace jet::detail
