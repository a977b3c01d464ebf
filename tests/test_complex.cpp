// Complex numbers without a GPU: the dtypes, promotion with real dtypes and C++ scalars, the
// result dtypes of the ops that take or make complex values, the kernels NVRTC compiles for them
// (and only them carry jet_complex), and printing as NumPy's repr.
#include "support/catch.hpp"
#include "support/cubin.hpp"
#include "support/operands.hpp"

#include <jet/jet.hpp>

#include <complex>
#include <limits>
#include <string>
#include <vector>

namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;
using jet::dtype;
using jet::test::fake_view;

template <class E> constexpr dtype type_of(const E&) { return std::remove_cvref_t<E>::type; }

}  // namespace

TEST_CASE("complex dtypes: C++ types, sizes, parts and promotion", "[cpu][complex][dtype]") {
  STATIC_REQUIRE(jet::dtype_of<cf>() == dtype::complex64);
  STATIC_REQUIRE(jet::dtype_of<cd>() == dtype::complex128);
  STATIC_REQUIRE(jet::scalar_dtype_of<cf>() == dtype::complex64);
  STATIC_REQUIRE(jet::size_of(dtype::complex64) == 8);
  STATIC_REQUIRE(jet::size_of(dtype::complex128) == 16);
  STATIC_REQUIRE(jet::real_type(dtype::complex64) == dtype::float32);
  STATIC_REQUIRE(jet::complex_type(dtype::float16) == dtype::complex64);
  STATIC_REQUIRE(jet::complex_type(dtype::int8) == dtype::complex128);
  STATIC_REQUIRE(!jet::is_floating(dtype::complex64));
  STATIC_REQUIRE(jet::is_inexact(dtype::complex64));
  CHECK(jet::name(dtype::complex128) == "complex128");
  CHECK(jet::cuda_name(dtype::complex64) == "jet_complex<float>");
  // NumPy's: float64 or an integer with complex64 is complex128; float32 or narrower keeps it.
  STATIC_REQUIRE(jet::promote(dtype::complex64, dtype::float64) == dtype::complex128);
  STATIC_REQUIRE(jet::promote(dtype::int8, dtype::complex64) == dtype::complex128);
  STATIC_REQUIRE(jet::promote(dtype::bfloat16, dtype::complex64) == dtype::complex64);
  STATIC_REQUIRE(jet::promote(dtype::boolean, dtype::complex64) == dtype::complex64);
  // C++ scalars stay weak: a complex one takes a floating array's precision.
  auto f = fake_view<float>();
  auto z = fake_view<cf>();
  auto h = fake_view<jet::float16>();
  auto i = fake_view<std::int32_t>();
  CHECK(type_of(f * cd(0, 1)) == dtype::complex64);
  CHECK(type_of(h * cd(0, 1)) == dtype::complex64);
  CHECK(type_of(fake_view<double>() * cf(0, 1)) == dtype::complex128);
  CHECK(type_of(i * cf(0, 1)) == dtype::complex64);
  CHECK(type_of(z * 2.0) == dtype::complex64);
  CHECK(type_of(z * 2) == dtype::complex64);
  CHECK(type_of(z * fake_view<double>()) == dtype::complex128);
}

TEST_CASE("complex ops: result dtypes, real parts of real operands", "[cpu][complex][expr]") {
  auto z = fake_view<cf>();
  auto w = fake_view<cd>();
  auto f = fake_view<float>();
  auto d = fake_view<double>();
  auto i = fake_view<std::int32_t>();
  auto flags = fake_view<bool>();
  CHECK(type_of(jet::abs(z)) == dtype::float32);
  CHECK(type_of(jet::abs2(w)) == dtype::float64);
  CHECK(type_of(jet::real(z)) == dtype::float32);
  CHECK(type_of(jet::imag(w)) == dtype::float64);
  CHECK(type_of(jet::angle(z)) == dtype::float32);
  CHECK(type_of(jet::arg(i)) == dtype::float64);
  CHECK(type_of(jet::conj(z)) == dtype::complex64);
  CHECK(type_of(jet::conjugate(i)) == dtype::int32);
  CHECK(type_of(jet::real(i)) == dtype::int32);
  CHECK(type_of(jet::abs(i)) == dtype::int32);
  CHECK(type_of(jet::exp(z)) == dtype::complex64);
  CHECK(type_of(jet::pow(z, 2.f)) == dtype::complex64);
  CHECK(type_of(jet::float_power(z, 2)) == dtype::complex128);
  CHECK(type_of(jet::true_divide(z, i)) == dtype::complex128);
  CHECK(type_of(jet::make_complex(f, f)) == dtype::complex64);
  CHECK(type_of(jet::make_complex(f, d)) == dtype::complex128);
  CHECK(type_of(jet::make_complex(i, 0)) == dtype::complex128);
  CHECK(type_of(jet::polar(fake_view<jet::float16>(), 1.f)) == dtype::complex64);
  CHECK(type_of(jet::where(flags, z, f)) == dtype::complex64);
  CHECK(type_of(z == f) == dtype::boolean);
  CHECK(type_of(jet::cast<cd>(f)) == dtype::complex128);
}

TEST_CASE("complex kernels compile for sm_90 and sm_80; only they define jet_complex", "[cpu][complex][compile]") {
  auto z = fake_view<cf>(8, 0x10000);
  auto w = fake_view<cd>(8, 0x20000);
  auto f = fake_view<float>(8, 0x30000);
  auto every = [](const auto& a) {
    return a * a / (a + 1.f) - jet::exp(a) + jet::log(a) + jet::sqrt(a) + jet::sin(a) + jet::cos(a) + jet::tan(a) +
           jet::sinh(a) + jet::cosh(a) + jet::tanh(a) + jet::expm1(a) + jet::log1p(a) + jet::pow(a, a) + jet::conj(a) -
           a + jet::square(a) + jet::reciprocal(a) + jet::power(a, a) + jet::positive(a) + jet::where(a != a, a, -a);
  };
  for (const jet::arch target : {jet::test::hopper, jet::arch{80}}) {
    CHECK(jet::test::is_cubin(jet::compile(every(z), target)));
    CHECK(jet::test::is_cubin(jet::compile(every(w), target)));
    CHECK(jet::test::is_cubin(
        jet::compile(jet::abs(z) + jet::abs2(z) + jet::real(z) * jet::imag(z) + jet::angle(z), target)));
    CHECK(jet::test::is_cubin(jet::compile(jet::polar(f, f) * jet::make_complex(f, f * 2.f), target)));
  }
  CHECK(jet::source(z * z).find("struct alignas(2 * sizeof(T)) jet_complex") != std::string::npos);
  CHECK(jet::source(jet::abs(z)).find("jet_complex<float>") != std::string::npos);  // an input's type
  CHECK(jet::source(f * f).find("jet_complex<") == std::string::npos);              // no complex value
}

TEST_CASE("complex arrays print as NumPy's repr", "[cpu][complex][print]") {
  const std::vector<cf> simple = {{1, 2}, {3, -4}};
  CHECK(jet::detail::format_array(simple.data(), dtype::complex64, jet::shape{2}) ==
        "array([1.+2.j, 3.-4.j], shape=(2,), dtype=complex64)");
  const std::vector<cd> padded = {{1.5, 0}, {-2, -0.25}};
  CHECK(jet::detail::format_array(padded.data(), dtype::complex128, jet::shape{2}) ==
        "array([ 1.5+0.j  , -2. -0.25j], shape=(2,), dtype=complex128)");
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<cd> special = {{inf, nan}, {0, -inf}};
  CHECK(jet::detail::format_array(special.data(), dtype::complex128, jet::shape{2}) ==
        "array([inf+nanj,  0.-infj], shape=(2,), dtype=complex128)");
}

TEST_CASE("real() and imag() of a complex view are real views of its memory", "[cpu][complex][view]") {
  const jet::view<cf> z = fake_view<cf>(6).reshape(jet::shape{2, 3});
  const jet::view<float> re = z.real(), im = z.imag();
  CHECK(re.shape() == jet::shape{2, 3});
  CHECK(re.data() == reinterpret_cast<float*>(z.data()));
  CHECK(im.data() == reinterpret_cast<float*>(z.data()) + 1);
  CHECK((re.stride(0) == 6 && re.stride(1) == 2 && im.stride(0) == 6 && im.stride(1) == 2));
  // A transposed, reversed view keeps its walk, in parts.
  const jet::view<double> back = fake_view<cd>(4).slice(0, 3, -5, -1).imag();
  CHECK(back.stride(0) == -2);
  CHECK(back.data() == reinterpret_cast<double*>(fake_view<cd>(4).data() + 3) + 1);
  CHECK(z.transpose().real().stride(0) == 2);
  // Strides that cannot double are a shape_error naming them.
  const jet::view<cf> far(fake_view<cf>(1).data(), jet::shape{1}, {std::int64_t{1} << 62});
  CHECK_THROWS_AS(far.real(), jet::shape_error);
  // An empty view's parts are empty views.
  CHECK(jet::view<cd>(nullptr, jet::shape{0}).real().size() == 0);
}
