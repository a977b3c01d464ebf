// NumPy's accuracy-test data (tests/data/numpy/: NumPy's umath-validation-set-<function>.csv, 20
// functions) and NumPy's rule for it (numpy/_core/tests/test_umath_accuracy.py): every row of a
// dtype within the largest ulp tolerance of that dtype's rows, the distance measured as
// numpy.testing.assert_array_max_ulp measures it. The CPU test holds the host references to it,
// the GPU test jet's kernels.
#pragma once

#include "catch.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace jet::test::numpy_data {

/// The functions NumPy has data for, each as f(NumPy's name, jet's op tag, jet's function over an
/// array). NumPy spells the inverse functions arc...; jet as C does.
template <class F> void for_each_function(F&& f) {
#define JET_NUMPY_FUNCTION(numpy_name, op) f(#numpy_name, ops::op{}, [](const auto& x) { return jet::op(x); })
  JET_NUMPY_FUNCTION(arccos, acos);
  JET_NUMPY_FUNCTION(arccosh, acosh);
  JET_NUMPY_FUNCTION(arcsin, asin);
  JET_NUMPY_FUNCTION(arcsinh, asinh);
  JET_NUMPY_FUNCTION(arctan, atan);
  JET_NUMPY_FUNCTION(arctanh, atanh);
  JET_NUMPY_FUNCTION(cbrt, cbrt);
  JET_NUMPY_FUNCTION(cos, cos);
  JET_NUMPY_FUNCTION(cosh, cosh);
  JET_NUMPY_FUNCTION(exp, exp);
  JET_NUMPY_FUNCTION(exp2, exp2);
  JET_NUMPY_FUNCTION(expm1, expm1);
  JET_NUMPY_FUNCTION(log, log);
  JET_NUMPY_FUNCTION(log10, log10);
  JET_NUMPY_FUNCTION(log1p, log1p);
  JET_NUMPY_FUNCTION(log2, log2);
  JET_NUMPY_FUNCTION(sin, sin);
  JET_NUMPY_FUNCTION(sinh, sinh);
  JET_NUMPY_FUNCTION(tan, tan);
  JET_NUMPY_FUNCTION(tanh, tanh);
#undef JET_NUMPY_FUNCTION
}

/// One dtype's rows of a file: inputs and expected outputs as their bits, and the tolerance that
/// NumPy applies to all of them, the largest of the rows' (README.txt beside the data).
struct rows {
  std::vector<std::uint64_t> input, expected;
  double max_ulps = 0;
};
struct function_data {
  rows float32, float64;
};

/// The rows of `function`'s file. As NumPy reads it: lines starting with # or $ are comments, the
/// first other line is the header, then dtype, input, output, tolerance.
inline function_data read(const std::string& function) {
  const std::string path = std::string(JET_NUMPY_DATA_DIR) + "/umath-validation-set-" + function + ".csv";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  function_data data;
  bool header = true;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#' || line[0] == '$') continue;
    if (std::exchange(header, false)) continue;
    char dtype[16] = {};
    unsigned long long input = 0, expected = 0;
    int ulps = 0;
    if (std::sscanf(line.c_str(), "%15[^,],%llx,%llx,%d", dtype, &input, &expected, &ulps) != 4)
      throw std::runtime_error(path + ": unreadable line: " + line);
    rows* r = std::strcmp(dtype, "np.float32") == 0   ? &data.float32
              : std::strcmp(dtype, "np.float64") == 0 ? &data.float64
                                                      : nullptr;
    if (!r) throw std::runtime_error(path + ": a dtype jet's test does not know: " + line);
    r->input.push_back(input);
    r->expected.push_back(expected);
    r->max_ulps = std::max(r->max_ulps, double(ulps));
  }
  return data;
}

template <class T> using bits_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class T> T from_bits(std::uint64_t bits) {
  const auto b = static_cast<bits_t<T>>(bits);
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

/// numpy.testing's ulp distance (nulp_diff): the bits read as sign and magnitude, so that -0 is
/// +0 and the largest finite value is 1 from infinity; every NaN is one NaN (0 from any other),
/// and far from every number. NumPy subtracts in the dtype's signed integer, which wraps for
/// values far apart on either side of 0; this does not.
template <class T> double ulp_distance(T a, T b) {
  if (std::isnan(a)) a = std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(b)) b = std::numeric_limits<T>::quiet_NaN();
  using U = bits_t<T>;
  constexpr U sign = U(1) << (8 * sizeof(U) - 1);
  U ua, ub;
  std::memcpy(&ua, &a, sizeof a);
  std::memcpy(&ub, &b, sizeof b);
  const std::uint64_t ma = ua & ~sign, mb = ub & ~sign;  // magnitudes
  if ((ua & sign) == (ub & sign)) return double(ma > mb ? ma - mb : mb - ma);
  return double(ma) + double(mb);
}

/// The rows whose `got` (for r.input[i]) is further from the expected value than r.max_ulps; the
/// first few printed with input, got, expected and their distance.
template <class T> std::size_t count_failures(const char* function, const rows& r, const std::vector<T>& got) {
  constexpr int digits = std::is_same_v<T, float> ? 9 : 17;
  const char* dtype = std::is_same_v<T, float> ? "float32" : "float64";
  std::size_t failures = 0;
  for (std::size_t i = 0; i < r.input.size(); ++i) {
    const T want = from_bits<T>(r.expected[i]);
    const double ulps = ulp_distance(got[i], want);
    if (ulps <= r.max_ulps) continue;
    if (failures++ < 5)
      std::printf("  %s %s(%.*g) [input 0x%llx]: got %.*g, expected %.*g [0x%llx]: %.6g ulps (NumPy allows %g)\n",
                  function, dtype, digits, double(from_bits<T>(r.input[i])),
                  static_cast<unsigned long long>(r.input[i]), digits, double(got[i]), digits, double(want),
                  static_cast<unsigned long long>(r.expected[i]), ulps, r.max_ulps);
  }
  if (failures > 5) std::printf("  %s %s: %zu failures in all\n", function, dtype, failures);
  return failures;
}

/// For each function and dtype, count = check(function, op tag, jet's function, rows, T{}) with
/// T float or double: the rows outside NumPy's tolerance, none wanted.
template <class Check> void check_every_function(Check check) {
  int functions = 0;
  for_each_function([&](const char* function, auto op, auto evaluate) {
    INFO(function);
    const function_data data = read(function);
    REQUIRE(!data.float32.input.empty());
    REQUIRE(!data.float64.input.empty());
    CHECK(check(function, op, evaluate, data.float32, float{}) == 0);
    CHECK(check(function, op, evaluate, data.float64, double{}) == 0);
    ++functions;
  });
  CHECK(functions == 20);
}

}  // namespace jet::test::numpy_data
