#include "codegen/user_function.hpp"

#include <jet/error.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace jet::detail {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The C++ spellings a JET_FUNCTION's signature may use, all of which CUDA spells alike.
bool is_parameter_type(std::string_view t) {
  return t == "float" || t == "double" || t == "int" || t == "long" || t == "bool";
}

// What the compilers take for an identifier's characters: ASCII letters, digits, `_`, `$` and
// the bytes of UTF-8 letters.
bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || static_cast<unsigned char>(c) >= 0x80;
}

bool is_literal_prefix(std::string_view w) { return w == "u8" || w == "u" || w == "U" || w == "L"; }
bool is_raw_prefix(std::string_view w) { return w == "R" || w == "u8R" || w == "uR" || w == "UR" || w == "LR"; }

// Why a body may not use this identifier, or null.
const char* refused_word(std::string_view word) {
  if (word.starts_with("jet_")) return "names starting with `jet_` are reserved for jet's generated code";
  if (word == "_Pragma" || word == "__pragma") return "pragmas are refused";
  if (word == "asm" || word == "__asm" || word == "__asm__") return "inline assembly is refused";
  if (word == "__global__" || word == "extern") return "declarations outside the function are refused";
  return nullptr;
}

// One pass over a body as CUDA's compiler forms its tokens (comments, string and character
// literals, raw strings, numbers with digit separators, digraphs), refusing at the first thing
// that could act outside the function the body is written into.
class body_scanner {
 public:
  body_scanner(std::string_view body, const std::string& who) : text_(body), who_(who) {}

  void scan() {
    refuse_early_phases();
    while (at_ < text_.size()) step();
    if (!closers_.empty())
      refuse(text_.size(), std::string("the body leaves a `") + opener_of(closers_.back()) + "` open");
  }

 private:
  [[noreturn]] void refuse(std::size_t where, const std::string& why) const {
    const auto line = 1 + std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(where), '\n');
    throw invalid_argument(who_ + why + " (body line " + std::to_string(line) + ")");
  }
  char peek(std::size_t ahead) const { return at_ + ahead < text_.size() ? text_[at_ + ahead] : '\0'; }
  static char opener_of(char closer) { return closer == '}' ? '{' : closer == ')' ? '(' : '['; }

  // Line splices and trigraphs act before tokens are formed, inside literals and comments too.
  void refuse_early_phases() const {
    for (std::size_t k = 0; k < text_.size(); ++k) {
      if (text_[k] == '\\') {
        std::size_t next = k + 1;
        while (next < text_.size() && (text_[next] == ' ' || text_[next] == '\t')) ++next;
        if (next < text_.size() && (text_[next] == '\n' || text_[next] == '\r'))
          refuse(k, "a backslash ending a line (a line splice) is refused");
      }
      if (text_[k] == '?' && k + 2 < text_.size() && text_[k + 1] == '?' && std::strchr("=/'()!<>-", text_[k + 2]))
        refuse(k, "trigraphs (`??` and one of =/'()!<>-) are refused");
    }
  }

  void step() {
    const char c = peek(0), next = peek(1);
    if (std::isspace(static_cast<unsigned char>(c)))
      ++at_;
    else if (c == '/' && next == '/')
      at_ = std::min(text_.find('\n', at_), text_.size());
    else if (c == '/' && next == '*')
      skip_block_comment();
    else if (std::isdigit(static_cast<unsigned char>(c)) ||
             (c == '.' && std::isdigit(static_cast<unsigned char>(next))))
      skip_number();
    else if (is_word_char(c) && !std::isdigit(static_cast<unsigned char>(c)))
      word();
    else if (c == '"' || c == '\'')
      skip_quoted(c);
    else
      punctuator(c, next);
  }

  void skip_block_comment() {
    const std::size_t end = text_.find("*/", at_ + 2);
    if (end == std::string_view::npos) refuse(at_, "a `/*` comment is not closed");
    at_ = end + 2;
  }

  // A preprocessing number: digits, letters, `.`, exponent signs and digit separators (`1'000`).
  void skip_number() {
    ++at_;
    for (;;) {
      const char c = peek(0);
      if (c != '\0' && std::strchr("eEpP", c) && (peek(1) == '+' || peek(1) == '-'))
        at_ += 2;
      else if (is_word_char(c) || c == '.')
        ++at_;
      else if (c == '\'' && is_word_char(peek(1)))
        at_ += 2;
      else
        return;
    }
  }

  void word() {
    const std::size_t start = at_;
    while (at_ < text_.size() && is_word_char(text_[at_])) ++at_;
    const std::string_view w = text_.substr(start, at_ - start);
    const char c = peek(0);
    if (c == '"' && is_raw_prefix(w)) return skip_raw_string();
    if ((c == '"' || c == '\'') && is_literal_prefix(w)) return skip_quoted(c);
    if (const char* why = refused_word(w)) refuse(start, std::string(1, '`').append(w).append("`: ").append(why));
  }

  void skip_quoted(char quote) {
    const std::size_t start = at_++;
    while (at_ < text_.size() && text_[at_] != quote && text_[at_] != '\n') at_ += text_[at_] == '\\' ? 2 : 1;
    if (at_ >= text_.size() || text_[at_] != quote)
      refuse(start, std::string("a literal opened with ") + quote + " is not closed on its line");
    ++at_;
  }

  // R"delimiter( ... )delimiter"
  void skip_raw_string() {
    const std::size_t start = at_;
    const std::size_t open = text_.find('(', at_);
    if (open == std::string_view::npos || open - at_ - 1 > 16) refuse(start, "a raw string's delimiter is malformed");
    const std::string_view delimiter = text_.substr(at_ + 1, open - at_ - 1);
    if (delimiter.find_first_of(" ()\\\t\n\r\v\f\"") != std::string_view::npos)
      refuse(start, "a raw string's delimiter is malformed");
    std::string closing(1, ')');  // appended piece by piece: g++ 12 warns wrongly of "literal" + string
    closing.append(delimiter).push_back('"');
    const std::size_t end = text_.find(closing, open);
    if (end == std::string_view::npos) refuse(start, "a raw string is not closed");
    at_ = end + delimiter.size() + 2;
  }

  void punctuator(char c, char next) {
    if (c == '#' || (c == '%' && next == ':')) refuse(at_, "preprocessor directives and `#` (or `%:`) are refused");
    if (c == '\\') refuse(at_, "a backslash outside a literal (a universal character name) is refused");
    std::size_t length = 1;
    if ((c == '<' && next == '<') || (c == ':' && next == ':') || (c == '%' && next == '='))
      length = 2;
    else if (c == '{' || (c == '<' && next == '%'))
      open('}', c == '{' ? 1 : 2);
    else if (c == '(')
      open(')', 1);
    // `<::` not followed by `:` or `>` is `<` and `::`, not the digraph `<:` (as in `a<::b>`).
    else if (c == '[' || (c == '<' && next == ':' && !(peek(2) == ':' && peek(3) != ':' && peek(3) != '>')))
      open(']', c == '[' ? 1 : 2);
    else if (c == '}' || (c == '%' && next == '>'))
      close('}', c == '}' ? 1 : 2);
    else if (c == ')')
      close(')', 1);
    else if (c == ']' || (c == ':' && next == '>'))
      close(']', c == ']' ? 1 : 2);
    at_ += length;
  }
  // Each open and close advances by its spelling's length less the 1 that punctuator adds.
  void open(char closer, std::size_t spelling) {
    closers_.push_back(closer);
    at_ += spelling - 1;
  }
  void close(char closer, std::size_t spelling) {
    if (closers_.empty() && closer == '}') refuse(at_, "the body closes a brace it did not open");
    if (closers_.empty() || closers_.back() != closer)
      refuse(at_,
             std::string("unbalanced brackets: `") + closer + "` closes " +
                 (closers_.empty() ? std::string("nothing") : std::string("`") + opener_of(closers_.back()) + "`"));
    closers_.pop_back();
    at_ += spelling - 1;
  }

  std::string_view text_;
  const std::string& who_;
  std::size_t at_ = 0;
  std::vector<char> closers_;  // what each bracket still open expects
};

// "T a, U b" → the same, after checking each type and name.
std::string checked_parameters(std::string_view list, const std::string& who) {
  std::string params;
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view param = trim(list.substr(0, comma));
    const auto space = param.find_last_of(" \t");
    const std::string_view type = space == std::string_view::npos ? std::string_view() : trim(param.substr(0, space));
    const std::string_view id = space == std::string_view::npos ? param : param.substr(space + 1);
    if (!is_parameter_type(type))
      throw invalid_argument(who + "parameter `" + std::string(param) + "` has no supported type");
    if (!is_ascii_identifier(std::string(id).c_str()))
      throw invalid_argument(who + "parameter name `" + std::string(id) + "` is not an identifier");
    if (const char* why = refused_word(id)) throw invalid_argument(who + "parameter `" + std::string(id) + "`: " + why);
    params += (params.empty() ? "" : ", ") + std::string(type) + " " + std::string(id);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return params;
}

}  // namespace

std::string user_function_source(const user_function& f) {
  const std::string who = std::string("jet: JET_FUNCTION `") + f.name + "`: ";
  if (!is_ascii_identifier(f.name))
    throw invalid_argument(who + "the name is not an identifier of ASCII letters, digits and _");
  const std::string_view signature = f.signature;
  const auto open = signature.find('('), close = signature.rfind(')');
  if (open == std::string_view::npos || close != signature.size() - 1 || close < open)
    throw invalid_argument(who + "signature `" + f.signature + "` is not of the form R(T a, ...)");
  const std::string_view result = trim(signature.substr(0, open));
  if (!is_parameter_type(result)) throw invalid_argument(who + "unsupported result type `" + std::string(result) + "`");
  const std::string params = checked_parameters(signature.substr(open + 1, close - open - 1), who);
  const std::size_t length = bounded_length(f.body, max_body_bytes + 1);
  if (length > max_body_bytes)
    throw invalid_argument(who + "the body is longer than " + std::to_string(max_body_bytes) + " bytes");
  body_scanner(std::string_view(f.body, length), who).scan();
  return "__device__ __forceinline__ " + std::string(result) + " jet_user_" + f.name + "(" + params + ") {\n" + f.body +
         "\n}\n";
}

}  // namespace jet::detail
