// Writing CUDA source text: source_writer, which writes it a line at a time, indented, and two
// helpers for the pieces of a line.
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace jet::detail {

inline std::string number(unsigned k) { return std::to_string(k); }

// "f(0), f(1), ..., f(count - 1)".
template <class F> std::string join(unsigned count, F f) {
  std::string s;
  for (unsigned k = 0; k < count; ++k) s += (k ? ", " : "") + f(k);
  return s;
}

// Source text, a line at a time, each indented by the blocks it is in (two spaces a block); a
// preprocessor line (#pragma unroll) starts at column 0, and an empty line is empty.
//
//   source_writer w;
//   w.open("if (i < n) {");            // the line, and what follows a block deeper
//   w.line("out0[i] = ", value, ";");  // pieces: text or numbers
//   w.close();                         // "}", a block out
//   w.raw(R"cuda(...)cuda");           // fixed lines, each indented as line() indents it
//   return w.take();
class source_writer {
 public:
  // One line of the pieces (strings, string views, numbers), in order.
  template <class... Piece> void line(const Piece&... pieces) {
    const std::size_t start = begin_line();
    (put(pieces), ...);
    end_line(start);
  }
  // Fixed text, line by line as line() writes each; a last line with no newline stays without one.
  // At depth 0 the text goes in as it is.
  void raw(std::string_view text);

  // A line that opens a block, then the block's lines a level deeper until close().
  template <class... Piece> void open(const Piece&... pieces) {
    line(pieces...);
    indent();
  }
  // Back out of a block, and its last line: "}" unless given.
  template <class... Piece> void close(const Piece&... pieces) {
    outdent();
    if constexpr (sizeof...(Piece) == 0)
      line("}");
    else
      line(pieces...);
  }
  // A line that closes a block and opens the next, as "} else {" does.
  template <class... Piece> void reopen(const Piece&... pieces) {
    outdent();
    open(pieces...);
  }
  // A level deeper or shallower with no brace: a statement under a `for` or a `case` label.
  void indent() { depth_ += 2; }
  void outdent() { depth_ -= 2; }

  // `body` once for each value of `var` from 0 to count - 1, each copy a block in which `var` is
  // that constant: the loop that `#pragma unroll` would unroll, written out. NVVM then has no loop
  // to unroll and clean up after, which costs compile time and yields the same code.
  void unrolled(std::string_view var, unsigned count, const std::function<void()>& body);
  // The same for a one-statement body, a line per value: { constexpr unsigned j = 0; statement }.
  void unrolled_statement(std::string_view var, unsigned count, std::string_view statement);

  std::string take() { return std::move(text_); }

 private:
  std::size_t begin_line();
  void end_line(std::size_t start);
  void put(std::string_view s) { text_ += s; }
  void put(char c) { text_ += c; }
  void put(std::integral auto n) { text_ += std::to_string(n); }

  std::string text_;
  unsigned depth_ = 0;
};

}  // namespace jet::detail
