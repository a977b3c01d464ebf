// The fusing constructors (include/jet/constructors.hpp) without a GPU: their dtypes, shapes and
// broadcasting, NumPy's lengths, the errors their arguments raise, that they fuse as leaves that
// read no memory, and their values as the host evaluates the expressions they build, against
// values written out here (NumPy's formulas, computed independently).
#include "support/catch.hpp"
#include "support/reference.hpp"
#include "support/text.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using jet::test::contains;

template <class E> using dtype_of_t = jet::cpp_type<std::remove_cvref_t<E>::type>;

template <class E> jet::shape shape_of(const E& e) {
  return jet::detail::bound_one<dtype_of_t<E>, std::remove_cvref_t<E>>(e).shape();
}

// The value of element i of e as the host reference evaluates the expression (no GPU).
template <class E> long double host_value(const E& e, std::size_t i) {
  const jet::shape s = shape_of(e);
  return jet::test::reference(e, i, jet::test::host_inputs{}, &s);
}

template <class E> std::vector<long double> host_values(const E& e) {
  std::vector<long double> values;
  for (std::size_t i = 0; i < shape_of(e).size(); ++i) values.push_back(host_value(e, i));
  return values;
}

// The message of the invalid_argument that f throws ("" if none).
template <class F> std::string invalid_argument_of(F f) {
  try {
    f();
  } catch (const jet::invalid_argument& e) {
    return e.what();
  }
  return "";
}

constexpr auto int64_min = std::numeric_limits<std::int64_t>::min();
constexpr auto int64_max = std::numeric_limits<std::int64_t>::max();

}  // namespace

TEST_CASE("constructors have NumPy's dtypes and their shapes", "[cpu][constructors]") {
  STATIC_REQUIRE(decltype(jet::arange(5))::type == jet::dtype::int64);
  STATIC_REQUIRE(decltype(jet::arange(1, 9, 2))::type == jet::dtype::int64);
  STATIC_REQUIRE(decltype(jet::arange(0, 1.0, 0.25))::type == jet::dtype::float64);
  STATIC_REQUIRE(decltype(jet::arange(0.f, 1, 1))::type == jet::dtype::float64);
  STATIC_REQUIRE(decltype(jet::linspace(0, 1, 5))::type == jet::dtype::float64);
  STATIC_REQUIRE(decltype(jet::full({2}, 1.5f))::type == jet::dtype::float32);
  STATIC_REQUIRE(decltype(jet::full({2}, 2))::type == jet::dtype::int32);
  STATIC_REQUIRE(decltype(jet::full({2}, true))::type == jet::dtype::boolean);
  STATIC_REQUIRE(decltype(jet::full<std::int64_t>({2}, 2))::type == jet::dtype::int64);
  STATIC_REQUIRE(decltype(jet::full<jet::bfloat16>({2}, 2.5))::type == jet::dtype::bfloat16);
  STATIC_REQUIRE(decltype(jet::zeros<jet::float16>({2}))::type == jet::dtype::float16);
  STATIC_REQUIRE(decltype(jet::ones<std::int8_t>({2}))::type == jet::dtype::int8);
  STATIC_REQUIRE(decltype(jet::eye<double>(3))::type == jet::dtype::float64);
  STATIC_REQUIRE(decltype(jet::iota({2, 3}, 1))::type == jet::dtype::int64);

  CHECK(shape_of(jet::arange(5)) == jet::shape{5});
  CHECK(shape_of(jet::arange(std::size_t{7})) == jet::shape{7});
  CHECK(shape_of(jet::arange(0)) == jet::shape{0});
  CHECK(shape_of(jet::linspace(0, 1, 0)) == jet::shape{0});
  CHECK(shape_of(jet::full({3, 4}, 1.f)) == jet::shape{3, 4});
  CHECK(shape_of(jet::zeros<float>({})) == jet::shape{});
  CHECK(shape_of(jet::eye<float>(3)) == jet::shape{3, 3});
  CHECK(shape_of(jet::eye<float>(2, 5, -1)) == jet::shape{2, 5});
  CHECK(shape_of(jet::iota({2, 3, 4}, -1)) == jet::shape{2, 3, 4});
}

TEST_CASE("constructors broadcast like arrays of their shapes", "[cpu][constructors]") {
  const jet::view<float> x(reinterpret_cast<float*>(0x10000), jet::shape{2, 3});
  CHECK(shape_of(x * jet::arange(3)) == jet::shape{2, 3});
  CHECK(shape_of(x + jet::full({4, 1, 1}, 1.f)) == jet::shape{4, 2, 3});
  CHECK(shape_of(x + jet::iota({2, 1}, 0)) == jet::shape{2, 3});
  CHECK_THROWS_AS(shape_of(x * jet::arange(2)), jet::shape_error);
  // arange(3) along the rows, iota along the columns: element (r, c) is c, then r.
  const auto by_column = jet::zeros<std::int64_t>({2, 3}) + jet::arange(3);
  const auto by_row = jet::zeros<std::int64_t>({2, 3}) + jet::iota({2, 1}, 0);
  CHECK(host_values(by_column) == std::vector<long double>{0, 1, 2, 0, 1, 2});
  CHECK(host_values(by_row) == std::vector<long double>{0, 0, 0, 1, 1, 1});
}

TEST_CASE("arange's length is NumPy's", "[cpu][constructors]") {
  using jet::detail::arange_length;
  CHECK(arange_length(0, 10, 3) == 4);
  CHECK(arange_length(10, 0, -3) == 4);
  CHECK(arange_length(0, 9, 3) == 3);
  CHECK(arange_length(5, 5, 1) == 0);
  CHECK(arange_length(5, 0, 1) == 0);
  CHECK(arange_length(0, 5, -1) == 0);
  CHECK(arange_length(int64_min, int64_max, int64_max) == 3);  // a distance past int64, exactly
  CHECK(arange_length(int64_max, int64_min, int64_min) == 2);
  CHECK(arange_length(0, int64_max, 1) == int64_max);
  CHECK(invalid_argument_of([] { arange_length(-1, int64_max, 1); }) ==
        "jet::arange: length 9223372036854775808 exceeds jet's size limit of 2^63 - 1 (start -1, stop "
        "9223372036854775807, step 1)");
  const std::string too_long = invalid_argument_of([] { arange_length(int64_min, int64_max, 1); });
  CHECK(contains(too_long, "jet::arange: length 18446744073709551615 exceeds"));

  using jet::detail::arange_range;
  CHECK(arange_range(0, 1, 0.1).length == 10);
  CHECK(arange_range(1, 1.3, 0.1).length == 4);  // 0.3 / 0.1 is 3.0000000000000004, as in NumPy
  CHECK(arange_range(1, -1, -0.5).length == 4);
  CHECK(arange_range(0, 1, -0.5).length == 0);
  CHECK(arange_range(0, 1e-320, 1e300).length == 1);   // the quotient underflows to 0: one element
  CHECK(arange_range(0, -1e-320, 1e300).length == 0);  // ... or none, as NumPy's
  CHECK(arange_range(1, 2, 0.25).delta == 0.25);
}

TEST_CASE("constructors' bad arguments throw invalid_argument naming them", "[cpu][constructors]") {
  CHECK(invalid_argument_of([] { jet::arange(-3); }) == "jet::arange: n is negative: -3");
  CHECK(contains(invalid_argument_of([] { jet::arange(std::uint64_t{1} << 63); }),
                 "jet::arange: n 9223372036854775808 exceeds jet's size limit"));
  CHECK(invalid_argument_of([] { jet::arange(1, 5, 0); }) == "jet::arange: step 0 (start 1, stop 5, step 0)");
  CHECK(invalid_argument_of([] { jet::arange(1.0, 5, 0); }) == "jet::arange: step 0 (start 1, stop 5, step 0)");
  CHECK(invalid_argument_of([] { jet::arange(0.0, INFINITY, 1); }) ==
        "jet::arange: a non-finite argument (start 0, stop inf, step 1)");
  CHECK(contains(invalid_argument_of([] { jet::arange(0.0, NAN, 1); }), "stop nan"));
  CHECK(contains(invalid_argument_of([] { jet::arange(-1e308, 1e308, 1e-300); }),
                 "jet::arange: the length ceil((stop - start) / step) exceeds jet's size limit"));
  CHECK(contains(invalid_argument_of([] { jet::arange(0, std::uint64_t{1} << 63); }),
                 "jet: stop 9223372036854775808 is past int64"));
  CHECK(invalid_argument_of([] { jet::linspace(0, 1, -1); }) == "jet::linspace: num is negative: -1");
  CHECK(invalid_argument_of([] { jet::linspace(0, NAN, 3); }) ==
        "jet::linspace: a non-finite bound (start 0, stop nan)");
  CHECK(invalid_argument_of([] { jet::linspace(-1e308, 1e308, 3); }) ==
        "jet::linspace: stop - start overflows (start -1e+308, stop 1e+308)");
  CHECK(invalid_argument_of([] { jet::eye<float>(-2); }) == "jet::eye: n is negative: -2");
  CHECK(invalid_argument_of([] { jet::eye<float>(2, -1); }) == "jet::eye: m is negative: -1");
  CHECK(invalid_argument_of([] {
          jet::iota({2, 3}, 2);
        }) == "jet::iota: axis 2 out of range for shape (2, 3) of rank 2");
  CHECK(invalid_argument_of([] {
          jet::iota({2, 3}, -3);
        }) == "jet::iota: axis -3 out of range for shape (2, 3) of rank 2");
  CHECK_THROWS_AS(jet::full({-1}, 1.f), jet::invalid_argument);  // the shape's own check
  CHECK_THROWS_AS(shape_of(jet::eye<float>(int64_max, 2)), jet::shape_error);
}

TEST_CASE("x * arange(x.size()) is one kernel that reads only x", "[cpu][constructors]") {
  const jet::view<float> x(reinterpret_cast<float*>(0x10000), 4096);
  const auto e = x * jet::arange(x.size());
  using kernel = jet::detail::default_kernel<decltype(e)>;
  STATIC_REQUIRE(kernel::desc.input_count == 2);     // x, and the counter
  STATIC_REQUIRE(kernel::desc.counter_slots == 2u);  // slot 1 is the counter: no memory
  const std::string source = jet::source(e);
  CAPTURE(source);
  CHECK(jet::test::occurrences(source, "const float* __restrict__ in") == 1);  // x's the one pointer read
  CHECK(!contains(source, "in1"));
  CHECK(jet::compile(e, jet::arch{90}).cubin.size() > 0);
}

TEST_CASE("every constructor's kernel compiles, its values kernel arguments", "[cpu][constructors]") {
  const jet::arch target{90};
  CHECK(jet::compile(jet::arange(3, 100, 7), target).cubin.size() > 0);
  CHECK(jet::compile(jet::arange(0.0, 1.0, 0.1), target).cubin.size() > 0);
  CHECK(jet::compile(jet::linspace(0, 1, 11), target).cubin.size() > 0);
  CHECK(jet::compile(jet::full({3, 4}, -0.0f), target).cubin.size() > 0);
  CHECK(jet::compile(jet::ones<jet::bfloat16>({7}), target).cubin.size() > 0);
  CHECK(jet::compile(jet::eye<float>(64, 48, 3), target).cubin.size() > 0);
  CHECK(jet::compile(jet::iota({8, 64, 32}, 1), target).cubin.size() > 0);
  // A new fill value or diagonal is the same kernel: the values are arguments, not source.
  CHECK(jet::source(jet::full({5}, 2.5)) == jet::source(jet::full({5}, -7.0)));
  CHECK(jet::source(jet::eye<float>(4, 4, 1)) == jet::source(jet::eye<float>(4, 4, -2)));
  CHECK(jet::source(jet::zeros<float>({5})) == jet::source(jet::ones<float>({5})));
}

TEST_CASE("arange and linspace compute NumPy's values", "[cpu][constructors]") {
  CHECK(host_values(jet::arange(4)) == std::vector<long double>{0, 1, 2, 3});
  CHECK(host_values(jet::arange(10, -3, -4)) == std::vector<long double>{10, 6, 2, -2});
  const auto extremes = host_values(jet::arange(int64_min, int64_max, int64_max));
  CHECK(extremes == std::vector<long double>{int64_min, -1, int64_max - 1});
  // NumPy's fill: start + i * ((start + step) - start).
  const double start = 1, step = 0.1, delta = (start + step) - start;
  const auto tenths = host_values(jet::arange(start, 1.3, step));
  REQUIRE(tenths.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) CHECK(static_cast<double>(tenths[i]) == start + static_cast<double>(i) * delta);
  CHECK(std::signbit(static_cast<double>(host_value(jet::arange(-0.0, 2.0, 1.0), 0))));  // element 0 is start

  CHECK(host_values(jet::linspace(0, 1, 5)) == std::vector<long double>{0, 0.25, 0.5, 0.75, 1});
  CHECK(host_values(jet::linspace(2, 3, 4, false)) == std::vector<long double>{2, 2.25, 2.5, 2.75});
  CHECK(host_values(jet::linspace(5, 9, 1)) == std::vector<long double>{5});
  const auto thirds = host_values(jet::linspace(0, 0.9, 4));
  REQUIRE(thirds.size() == 4);
  const double third = 0.9 / 3;
  for (std::size_t i = 0; i < 3; ++i) CHECK(static_cast<double>(thirds[i]) == static_cast<double>(i) * third);
  CHECK(static_cast<double>(thirds[3]) == 0.9);  // exactly stop, where i * step + start is not
  CHECK(3 * third != 0.9);
  // A step that underflows to 0: NumPy divides i by num - 1 first.
  const auto tiny = host_values(jet::linspace(0, 5e-324, 3));
  CHECK(static_cast<double>(tiny[1]) == (1.0 / 2) * 5e-324);
}

TEST_CASE("full, zeros, ones, eye and iota compute their values", "[cpu][constructors]") {
  CHECK(std::signbit(host_value(jet::full({3}, -0.0f), 2)));
  CHECK(std::signbit(host_value(jet::full({3}, -0.0), 1)));
  CHECK(std::isnan(host_value(jet::full({3}, NAN), 0)));
  CHECK(host_value(jet::full({2, 2}, -INFINITY), 3) == -INFINITY);
  CHECK(host_value(jet::full<std::int8_t>({2}, -128), 1) == -128);
  CHECK(host_value(jet::full<std::uint64_t>({2}, std::numeric_limits<std::uint64_t>::max()), 0) ==
        static_cast<long double>(std::numeric_limits<std::uint64_t>::max()));
  CHECK(host_value(jet::full<std::int32_t>({2}, 3e10), 0) == std::numeric_limits<std::int32_t>::max());  // saturates
  CHECK(host_values(jet::ones<bool>({2})) == std::vector<long double>{1, 1});
  CHECK(host_values(jet::zeros<jet::float16>({2})) == std::vector<long double>{0, 0});
  CHECK(host_values(jet::eye<float>(2, 3)) == std::vector<long double>{1, 0, 0, 0, 1, 0});
  CHECK(host_values(jet::eye<int>(3, 3, 1)) == std::vector<long double>{0, 1, 0, 0, 0, 1, 0, 0, 0});
  CHECK(host_values(jet::eye<int>(3, 2, -1)) == std::vector<long double>{0, 0, 1, 0, 0, 1});
  CHECK(host_values(jet::eye<int>(2, 2, int64_max)) == std::vector<long double>{0, 0, 0, 0});
  CHECK(host_values(jet::iota({2, 2, 3}, 1)) == std::vector<long double>{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1});
  CHECK(host_values(jet::iota({2, 3}, -1)) == std::vector<long double>{0, 1, 2, 0, 1, 2});
}
