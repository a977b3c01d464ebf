// README is the contract: its statements about rounding, integer overflow and Python's slices,
// checked against what jet does, with no GPU.
#include "support/catch.hpp"
#include "support/text.hpp"

#include "codegen/spelling.hpp"
#include "compile/compiler.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string readme() {
  std::ifstream in(std::string(JET_SOURCE_DIR) + "/README.md");
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  std::replace(s.begin(), s.end(), '\n', ' ');  // a statement may break anywhere
  std::string single;
  for (char c : s)
    if (!(c == ' ' && !single.empty() && single.back() == ' ')) single += c;
  return single;
}

using jet::test::contains;

// The words in README's code spans (`...`) under heading "### <title>", split at spaces and at
// ( ) , and a name's template arguments dropped: `where(c, a, b)` gives where, c, a, b;
// `cast<T>` gives cast; `< <= > >=` gives < <= > >=.
std::set<std::string> code_words(const std::string& title) {
  std::ifstream in(std::string(JET_SOURCE_DIR) + "/README.md");
  REQUIRE(in);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const std::size_t start = text.find("\n### " + title + "\n");
  REQUIRE(start != std::string::npos);
  const std::string section = text.substr(start + 1, text.find("\n#", start + 1) - start);
  std::set<std::string> words;
  bool in_code = false;
  std::string word;
  for (char c : section) {
    const bool separator = c == '`' || c == ' ' || c == '\n' || c == '(' || c == ')' || c == ',';
    if (separator && !word.empty()) {
      if (in_code)
        words.insert(std::isalpha(static_cast<unsigned char>(word[0])) ? word.substr(0, word.find('<')) : word);
      word.clear();
    }
    if (c == '`') in_code = !in_code;
    if (!separator) word += c;
  }
  return words;
}

jet::view<float> fake(std::int64_t n) { return jet::view<float>(reinterpret_cast<float*>(0x100000), jet::shape{n}); }

}  // namespace

TEST_CASE("README: kernels are compiled without contraction into fma, as it says", "[cpu][readme]") {
  const auto options = jet::detail::compile_options(90);
  REQUIRE(std::find(options.begin(), options.end(), "--fmad=false") != options.end());
  const std::string text = readme();
  CHECK(contains(text, "jet compiles every kernel with `--fmad=false`, so `a * b + c` rounds twice"));
  CHECK_FALSE(contains(text, "may contract"));
}

TEST_CASE("README: every integer type wraps on overflow; none is said to be undefined", "[cpu][readme]") {
  const std::string text = readme();
  CHECK(contains(text, "every integer type wraps modulo 2^bits on overflow"));
  CHECK_FALSE(contains(text, "overflow is undefined"));
}

TEST_CASE("README: Python's omitted slice bounds, spelled as it says, and clamping", "[cpu][readme]") {
  const jet::view<float> x = fake(10);
  const jet::view<float> reversed = x.slice(0, -1, std::numeric_limits<std::int64_t>::min(), -1);  // x[::-1]
  CHECK(reversed.shape() == jet::shape{10});
  CHECK(reversed.data() == x.data() + 9);
  CHECK(reversed.stride(0) == -1);
  const jet::view<float> even = x.slice(0, 0, std::numeric_limits<std::int64_t>::max(), 2);  // x[::2]
  CHECK(even.shape() == jet::shape{5});
  CHECK(even.stride(0) == 2);
  CHECK(x.slice(0, -100, 100).shape() == jet::shape{10});  // out-of-range bounds clamp
  const std::string text = readme();
  CHECK(contains(text, "`x[::-1]` is `x.slice(0, -1, INT64_MIN, -1)`"));
  CHECK(contains(text, "`x[::2]` is `x.slice(0, 0, INT64_MAX, 2)`"));
}

TEST_CASE("README names every op of the table and every reduction", "[cpu][readme]") {
  const std::set<std::string> ops = code_words("Ops");
  for (const jet::detail::op_spelling& op : jet::detail::spellings) {
    if (op.cuda.empty()) continue;  // the leaves and user functions
    std::string word(op.cpp);
    if (word.starts_with("operator")) word.erase(0, 8);
    INFO("op " << op.tag << ", spelt " << word);
    CHECK(ops.count(word) == 1);
  }
  const std::set<std::string> reductions = code_words("Reductions");
  jet::reductions::for_each_reduction([&](auto tag) {
    INFO("reduction " << decltype(tag)::name);
    CHECK(reductions.count(decltype(tag)::name) == 1);
  });
}
