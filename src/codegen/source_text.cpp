#include "codegen/source_text.hpp"

namespace jet::detail {

std::size_t source_writer::begin_line() {
  const std::size_t start = text_.size();
  text_.append(depth_, ' ');
  return start;
}

void source_writer::end_line(std::size_t start) {
  const std::size_t first = start + depth_;
  if (text_.size() == first || text_[first] == '#') text_.erase(start, depth_);
  text_ += '\n';
}

void source_writer::raw(std::string_view text) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) {  // a last line with no newline
      const std::size_t start = begin_line();
      put(text);
      if (text[0] == '#') text_.erase(start, depth_);
      return;
    }
    line(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
}

void source_writer::unrolled(std::string_view var, unsigned count, const std::function<void()>& body) {
  for (unsigned c = 0; c < count; ++c) {
    open("{");
    line("constexpr unsigned ", var, " = ", c, ";");
    body();
    close();
  }
}

void source_writer::unrolled_statement(std::string_view var, unsigned count, std::string_view statement) {
  for (unsigned c = 0; c < count; ++c) line("{ constexpr unsigned ", var, " = ", c, "; ", statement, " }");
}

}  // namespace jet::detail
