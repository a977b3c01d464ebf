// Printing without a GPU: detail::format_array, the plain function behind `std::cout << array`,
// on host data against the text NumPy's repr writes for the same values (NumPy 2's, with jet's
// shape and dtype always after the values).
#include "support/catch.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

template <class T> std::string text_of(const std::vector<T>& values, const jet::shape& s) {
  REQUIRE(values.size() == s.size());
  return jet::detail::format_array(values.data(), jet::dtype_of<T>(), s);
}

template <class T> std::vector<T> counting(std::size_t n, double scale = 1) {
  std::vector<T> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(static_cast<T>(static_cast<double>(i) * scale));
  return v;
}

}  // namespace

TEST_CASE("floats print in the fewest digits that read back, points aligned", "[cpu][print]") {
  CHECK(text_of<float>({1, 2, 3}, {3}) == "array([1., 2., 3.], shape=(3,), dtype=float32)");
  CHECK(text_of<double>({1.5, 2.25, 3}, {3}) == "array([1.5 , 2.25, 3.  ], shape=(3,), dtype=float64)");
  CHECK(text_of<float>({0.1f}, {}) == "array(0.1, shape=(), dtype=float32)");  // float32's shortest, not 0.100000001
  CHECK(text_of<double>({1.0 / 3, 0.1}, {2}) == "array([0.33333333, 0.1       ], shape=(2,), dtype=float64)");
  CHECK(text_of<double>({3.14159265358979, 2.718281828459045}, {2}) ==
        "array([3.14159265, 2.71828183], shape=(2,), dtype=float64)");
  CHECK(text_of<double>({0.1234567891234, 100}, {2}) ==
        "array([  0.12345679, 100.        ], shape=(2,), dtype=float64)");
}

TEST_CASE("floats print scientific where they span too much", "[cpu][print]") {
  CHECK(text_of<double>({1.5e-5, 1}, {2}) == "array([1.5e-05, 1.0e+00], shape=(2,), dtype=float64)");
  CHECK(text_of<float>({1e-5f, 0.5f}, {2}) == "array([1.e-05, 5.e-01], shape=(2,), dtype=float32)");
  CHECK(text_of<double>({1e8, 1}, {2}) == "array([1.e+08, 1.e+00], shape=(2,), dtype=float64)");
  CHECK(text_of<double>({1e-300, 1e300}, {2}) == "array([1.e-300, 1.e+300], shape=(2,), dtype=float64)");
  CHECK(text_of<float>({16777216.f, 1.f}, {2}) == "array([1.6777216e+07, 1.0000000e+00], shape=(2,), dtype=float32)");
  CHECK(text_of<double>({123456.789, 1}, {2}) == "array([1.23456789e+05, 1.00000000e+00], shape=(2,), dtype=float64)");
}

TEST_CASE("NaN, infinities and -0.0 print as NumPy writes them", "[cpu][print]") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  CHECK(text_of<double>({nan, -inf, 1.25}, {3}) == "array([ nan, -inf, 1.25], shape=(3,), dtype=float64)");
  CHECK(text_of<float>({std::nanf(""), INFINITY}, {2}) == "array([nan, inf], shape=(2,), dtype=float32)");
  CHECK(text_of<double>({-nan}, {}) == "array(nan, shape=(), dtype=float64)");
  CHECK(text_of<double>({1.0 / 3, nan}, {2}) == "array([0.33333333,        nan], shape=(2,), dtype=float64)");
  CHECK(text_of<double>({-0.0}, {}) == "array(-0., shape=(), dtype=float64)");
  CHECK(text_of<double>({0.0, -0.0}, {2}) == "array([ 0., -0.], shape=(2,), dtype=float64)");
}

TEST_CASE("16-bit floats print in their own shortest digits", "[cpu][print]") {
  CHECK(text_of<jet::float16>({jet::float16(-0.f), jet::float16(1.f / 3)}, {2}) ==
        "array([-0.    ,  0.3333], shape=(2,), dtype=float16)");
  CHECK(text_of<jet::float16>({jet::float16(0.1f), jet::float16(65504.f)}, {2}) ==
        "array([1.00e-01, 6.55e+04], shape=(2,), dtype=float16)");
  CHECK(text_of<jet::bfloat16>({jet::bfloat16(0.1f), jet::bfloat16(3.f)}, {2}) ==
        "array([0.1, 3. ], shape=(2,), dtype=bfloat16)");
  CHECK(text_of<jet::float16>({std::numeric_limits<jet::float16>::infinity()}, {1}) ==
        "array([inf], shape=(1,), dtype=float16)");
}

TEST_CASE("integers and bools print right-aligned, extremes included", "[cpu][print]") {
  CHECK(text_of<std::int8_t>({-128, 127, 0}, {3}) == "array([-128,  127,    0], shape=(3,), dtype=int8)");
  CHECK(text_of<std::uint8_t>({255, 0}, {2}) == "array([255,   0], shape=(2,), dtype=uint8)");
  CHECK(text_of<std::int32_t>({7}, {}) == "array(7, shape=(), dtype=int32)");
  // The shape and dtype take a line of their own where they would pass 75 columns.
  CHECK(text_of<std::int64_t>({std::numeric_limits<std::int64_t>::min(), 5}, {2}) ==
        "array([-9223372036854775808,                    5],\n      shape=(2,), dtype=int64)");
  CHECK(text_of<std::uint64_t>({std::numeric_limits<std::uint64_t>::max()}, {1}) ==
        "array([18446744073709551615], shape=(1,), dtype=uint64)");
  const unsigned char bools[] = {1, 0, 1};
  CHECK(jet::detail::format_array(bools, jet::dtype::boolean, {3}) ==
        "array([ True, False,  True], shape=(3,), dtype=bool)");
}

TEST_CASE("empty and 0-d arrays print their shape", "[cpu][print]") {
  CHECK(text_of<float>({}, {0}) == "array([], shape=(0,), dtype=float32)");
  CHECK(text_of<std::int16_t>({}, {2, 0}) == "array([], shape=(2, 0), dtype=int16)");
  CHECK(text_of<double>({2.5}, {1, 1}) == "array([[2.5]], shape=(1, 1), dtype=float64)");
}

TEST_CASE("rows wrap at 75 columns, N-d arrays nest", "[cpu][print]") {
  CHECK(text_of(counting<double>(30), {30}) ==
        "array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n"
        "       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n"
        "       26., 27., 28., 29.], shape=(30,), dtype=float64)");
  CHECK(text_of(counting<double>(24), {2, 3, 4}) ==
        "array([[[ 0.,  1.,  2.,  3.],\n"
        "        [ 4.,  5.,  6.,  7.],\n"
        "        [ 8.,  9., 10., 11.]],\n"
        "\n"
        "       [[12., 13., 14., 15.],\n"
        "        [16., 17., 18., 19.],\n"
        "        [20., 21., 22., 23.]]], shape=(2, 3, 4), dtype=float64)");
}

TEST_CASE("arrays past 1000 elements show 3 at each edge of every axis", "[cpu][print]") {
  CHECK(text_of(counting<std::int32_t>(1000), {1000}).find("...") == std::string::npos);  // 1000 is not past
  CHECK(text_of(counting<std::int32_t>(8000), {8, 1000}) ==
        "array([[   0,    1,    2, ...,  997,  998,  999],\n"
        "       [1000, 1001, 1002, ..., 1997, 1998, 1999],\n"
        "       [2000, 2001, 2002, ..., 2997, 2998, 2999],\n"
        "       ...,\n"
        "       [5000, 5001, 5002, ..., 5997, 5998, 5999],\n"
        "       [6000, 6001, 6002, ..., 6997, 6998, 6999],\n"
        "       [7000, 7001, 7002, ..., 7997, 7998, 7999]],\n"
        "      shape=(8, 1000), dtype=int32)");
  CHECK(text_of(counting<double>(2000, 0.5), {2000}) ==
        "array([0.000e+00, 5.000e-01, 1.000e+00, ..., 9.985e+02, 9.990e+02,\n"
        "       9.995e+02], shape=(2000,), dtype=float64)");
  const std::string cube = text_of(counting<float>(1001), {7, 11, 13});
  CHECK(cube.find("       ...,\n\n       [[ 572.,  573.,  574., ...,  582.,  583.,  584.],") != std::string::npos);
  CHECK(cube.substr(cube.size() - 98) ==
        "        [ 988.,  989.,  990., ...,  998.,  999., 1000.]]],\n      shape=(7, 11, 13), dtype=float32)");
}
