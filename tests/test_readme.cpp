// README is the contract: its statements about rounding, integer overflow and Python's slices,
// checked against what jet does, with no GPU.
#include "support/catch.hpp"
#include "support/text.hpp"

#include "compile/compiler.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
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
