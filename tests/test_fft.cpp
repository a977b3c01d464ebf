// FFTs without a GPU: result dtypes at compile time, shapes and their errors before any device
// work, what a call does here (no driver, or no cuFFT), and, against the null driver and the null
// cuFFT (support/null_cufft.cpp), the plans and executions each call asks cuFFT for.
#include "support/catch.hpp"
#include "support/null_cufft.hpp"

#include "fft/geometry.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;

template <class T> jet::view<T> fake(const jet::shape& s) {  // never read: the errors come first
  return jet::view<T>(reinterpret_cast<T*>(0x10000), s);
}

template <class E> using fft_of = decltype(jet::fft(std::declval<E>()));
template <class E> using rfft_of = decltype(jet::rfft(std::declval<E>()));
template <class E> using irfft_of = decltype(jet::irfft(std::declval<E>()));

// NumPy 2's dtypes: single precision in, complex64 out; everything else in double.
static_assert(std::is_same_v<fft_of<jet::array<float>&>, jet::array<cf>>);
static_assert(std::is_same_v<fft_of<jet::array<jet::float16>&>, jet::array<cf>>);
static_assert(std::is_same_v<fft_of<jet::view<jet::bfloat16>>, jet::array<cf>>);
static_assert(std::is_same_v<fft_of<jet::array<cf>&>, jet::array<cf>>);
static_assert(std::is_same_v<fft_of<jet::array<double>&>, jet::array<cd>>);
static_assert(std::is_same_v<fft_of<jet::array<cd>&>, jet::array<cd>>);
static_assert(std::is_same_v<fft_of<jet::array<std::int32_t>&>, jet::array<cd>>);
static_assert(std::is_same_v<fft_of<jet::array<std::uint8_t>&>, jet::array<cd>>);
static_assert(std::is_same_v<fft_of<jet::array<bool>&>, jet::array<cd>>);
static_assert(std::is_same_v<decltype(jet::ifft(std::declval<jet::array<float>&>())), jet::array<cf>>);
static_assert(std::is_same_v<decltype(jet::fft2(std::declval<jet::array<double>&>())), jet::array<cd>>);
static_assert(std::is_same_v<decltype(jet::ifft2(std::declval<jet::array<cf>&>())), jet::array<cf>>);
static_assert(std::is_same_v<rfft_of<jet::array<float>&>, jet::array<cf>>);
static_assert(std::is_same_v<rfft_of<jet::array<std::int64_t>&>, jet::array<cd>>);
static_assert(std::is_same_v<irfft_of<jet::array<cf>&>, jet::array<float>>);
static_assert(std::is_same_v<irfft_of<jet::array<float>&>, jet::array<float>>);  // a real operand is promoted
static_assert(std::is_same_v<irfft_of<jet::array<cd>&>, jet::array<double>>);
// Expressions: their dtype decides (a float32 array times a C++ double stays float32, as NumPy's).
static_assert(std::is_same_v<decltype(jet::fft(std::declval<jet::array<float>&>() * 2.0)), jet::array<cf>>);
static_assert(
    std::is_same_v<decltype(jet::fft(std::declval<jet::array<float>&>() * std::declval<jet::array<double>&>())),
                   jet::array<cd>>);

// The null cuFFT's record, once jet has loaded it and the null driver.
jet::test::null_cufft_record* null_cufft() {
  REQUIRE(jet::device_available());
  REQUIRE(jet::fft_available());
  jet::test::null_cufft_record* r = jet::test::null_cufft();
  REQUIRE(r != nullptr);
  return r;
}

}  // namespace

TEST_CASE("fft: shapes of every transform, cropping and padding, without a device", "[fft]") {
  using jet::detail::fft_kind;
  const jet::shape s{4, 5, 6};
  auto g = jet::detail::fft_geometry_of(fft_kind::forward, 1, s, std::nullopt, -1, false);
  CHECK(g.axis == 2);
  CHECK(g.n[0] == 6);
  CHECK(g.output == s);
  CHECK_FALSE(g.padded());
  g = jet::detail::fft_geometry_of(fft_kind::real_forward, 1, s, std::nullopt, 1, false);
  CHECK(g.output == jet::shape{4, 3, 6});  // 5 / 2 + 1
  g = jet::detail::fft_geometry_of(fft_kind::real_inverse, 1, s, std::nullopt, -1, true);
  CHECK(g.n[0] == 10);  // 2 * (6 - 1)
  CHECK(g.length == 6);
  CHECK(g.output == jet::shape{4, 5, 10});
  g = jet::detail::fft_geometry_of(fft_kind::real_inverse, 1, s, 7, -1, true);  // reads 4 of 6: in place
  CHECK(g.length == 4);
  CHECK(g.buffer == s);
  g = jet::detail::fft_geometry_of(fft_kind::real_inverse, 1, s, 14, -1, true);  // reads 8: 6 and 2 zeros
  CHECK(g.buffer == jet::shape{4, 5, 8});
  CHECK(g.padded());
  g = jet::detail::fft_geometry_of(fft_kind::forward, 1, s, 9, 0, false);
  CHECK(g.buffer == jet::shape{9, 5, 6});
  CHECK(g.output == jet::shape{9, 5, 6});
  g = jet::detail::fft_geometry_of(fft_kind::inverse, 2, s, std::nullopt, -2, false);
  CHECK(g.axis == 1);
  CHECK(g.n[0] == 5);
  CHECK(g.n[1] == 6);
}

TEST_CASE("fft: cuFFT's layout along each axis, batched over the larger side and looped over the other", "[fft]") {
  using jet::detail::fft_kind;
  const auto batches = [](const jet::shape& s, int axis) {
    return jet::detail::batches_of(jet::detail::fft_geometry_of(fft_kind::forward, 1, s, std::nullopt, axis, false));
  };
  auto b = batches({4, 5, 6}, 2);  // rows: one batch
  CHECK((b.batch == 20 && b.istride == 1 && b.idist == 6 && b.loops == 1));
  b = batches({4, 5, 6}, 0);  // columns: stride 30, one apart
  CHECK((b.batch == 30 && b.istride == 30 && b.idist == 1 && b.loops == 1));
  b = batches({4, 5, 6}, 1);  // 4 before, 6 after: batched over the 6, 4 loops 30 apart
  CHECK((b.batch == 6 && b.istride == 6 && b.idist == 1 && b.loops == 4 && b.in_step == 30 && b.out_step == 30));
  b = batches({6, 5, 4}, 1);  // 6 before, 4 after: batched over the 6, 20 apart, 4 loops one apart
  CHECK((b.batch == 6 && b.istride == 4 && b.idist == 20 && b.loops == 4 && b.in_step == 1));
  b = jet::detail::batches_of(
      jet::detail::fft_geometry_of(fft_kind::real_forward, 1, {3, 10}, std::nullopt, -1, false));
  CHECK((b.n[0] == 10 && b.inembed[0] == 10 && b.idist == 10 && b.onembed[0] == 6 && b.odist == 6 && b.batch == 3));
  b = jet::detail::batches_of(jet::detail::fft_geometry_of(fft_kind::inverse, 2, {2, 3, 4}, std::nullopt, -2, false));
  CHECK((b.rank == 2 && b.n[0] == 3 && b.n[1] == 4 && b.idist == 12 && b.batch == 2 && b.loops == 1));
}

TEST_CASE("fft: a bad axis, a length below 1 or past the size limit throws before any device work", "[fft]") {
  const auto x = fake<cf>({3, 4});
  CHECK_THROWS_WITH(jet::fft(x, jet::axis{2}), "jet::fft: axis 2 is out of range for shape (3, 4) of rank 2");
  CHECK_THROWS_WITH(jet::rfft(fake<float>({3, 4}), jet::axis{-3}),
                    "jet::rfft: axis -3 is out of range for shape (3, 4) of rank 2");
  CHECK_THROWS_WITH(jet::ifft(x, 0), "jet::ifft: n = 0 along axis 1 of shape (3, 4); an FFT's length is at least 1");
  CHECK_THROWS_WITH(jet::irfft(fake<cf>({3, 1})),
                    "jet::irfft: n = 0 (the default, 2 * (m - 1) for m = 1) along axis 1 of shape (3, 1); an FFT's "
                    "length is at least 1");
  CHECK_THROWS_WITH(jet::fft(fake<cf>({3, 0})),
                    "jet::fft: n = 0 (the default, the extent of the axis) along axis 1 of shape (3, 0); an FFT's "
                    "length is at least 1");
  CHECK_THROWS_WITH(jet::fft2(fake<cf>({4})),
                    "jet::fft2: the operand's shape (4,) has rank 1; a 2-D FFT transforms the last two axes, so needs "
                    "rank 2 or more");
  CHECK_THROWS_AS(jet::fft(fake<float>(jet::shape{})), jet::invalid_argument);  // rank 0: no axis -1
  CHECK_THROWS_AS(jet::fft(x, INT64_MAX), jet::shape_error);
  CHECK_THROWS_AS(jet::irfft(x, -5), jet::invalid_argument);
}

TEST_CASE("fft: on this machine a call reports what is missing, cuFFT first", "[fft]") {
  const auto x = fake<cf>({3, 4});
  std::string reason;
  if (!jet::fft_available(&reason)) {
    CHECK(reason.find("cannot load") != std::string::npos);
    CHECK_THROWS_AS(jet::fft(x), jet::fft_unavailable);
  } else if (!jet::device_available()) {
    CHECK_THROWS_AS(jet::fft(x), jet::no_device);
    CHECK(jet::fft(fake<cf>({0, 4})).shape() == jet::shape{0, 4});  // nothing to transform: no device needed
  } else {
    SUCCEED("a GPU and cuFFT: the GPU tests cover this");
  }
}

// JET_CUFFT_LIBRARY names a library that does not exist (CTest sets it).
TEST_CASE("fft: without cuFFT a clear fft_unavailable, and the rest of jet works", "[.][no_cufft]") {
  std::string reason;
  CHECK_FALSE(jet::fft_available(&reason));
  CHECK(reason.find("cannot load libjet-test-no-such-cufft.so") != std::string::npos);
  const auto x = fake<cf>({3, 4});
  try {
    (void)jet::fft(x);
    FAIL("no exception");
  } catch (const jet::fft_unavailable& e) {
    CHECK(std::string(e.what()).find("libjet-test-no-such-cufft.so") != std::string::npos);
  }
  CHECK_THROWS_AS(jet::fft(x, jet::axis{5}), jet::invalid_argument);  // the arguments are checked first
  CHECK(jet::compile(x * x, jet::arch{90}).cubin.size() > 0);
}

// The null driver and the null cuFFT (CTest sets JET_CUDA_DRIVER and JET_CUFFT_LIBRARY): jet's
// kernels do not run, so only the calls are checked.
TEST_CASE("fft host path: plans and executions along each axis", "[.][fft_host]") {
  jet::test::null_cufft_record* r = null_cufft();
  jet::array<cf> x(jet::shape{4, 5, 6});
  r->execs = 0;
  jet::array<cf> y = jet::fft(x);
  CHECK((r->type == 0x29 && r->rank == 1 && r->n[0] == 6 && r->batch == 20 && r->idist == 6 && r->odist == 6));
  // A contiguous array of the compute type is read where it is; a transposed view, another dtype
  // or an expression goes through the scratch buffer.
  CHECK((r->execs == 1 && r->last_out == y.data() && r->last_in == x.data() && r->direction == -1));
  y = jet::fft(x.view().permute({1, 0, 2}));
  CHECK(r->last_in != x.data());
  y = jet::fft(x * 2.f);
  CHECK(r->last_in != x.data());
  const jet::array<float> real(jet::shape{4, 6});
  (void)jet::rfft(real);
  CHECK(r->last_in == real.data());
  (void)jet::fft(real);  // complex64 from float32: a scratch copy
  CHECK(r->last_in != real.data());
  CHECK(r->stream == nullptr);  // the current stream: the legacy one
  r->execs = 0;
  y = jet::ifft(x, jet::axis{1});  // batched over the 6 after, looped over the 4 before
  CHECK((r->n[0] == 5 && r->batch == 6 && r->istride == 6 && r->idist == 1 && r->direction == 1));
  CHECK((r->execs == 4 && r->first_out == y.data() && r->last_out == y.data() + 3 * 30));
  jet::array<cd> z(jet::shape{6, 5, 4});
  r->execs = 0;
  jet::array<cd> w = jet::fft(z, jet::axis{1});  // batched over the 6 before, looped over the 4 after
  CHECK((r->type == 0x69 && r->batch == 6 && r->idist == 20 && r->istride == 4));
  CHECK((r->execs == 4 && r->last_out == w.data() + 3));
  w = jet::fft2(z);
  CHECK((r->rank == 2 && r->n[0] == 5 && r->n[1] == 4 && r->batch == 6 && r->idist == 20));
  jet::array<cf> e = jet::fft(jet::view<cf>(nullptr, jet::shape{0, 8}));
  CHECK(e.shape() == jet::shape{0, 8});
}

TEST_CASE("fft host path: rfft and irfft, cropped and padded, C2R on a scratch copy", "[.][fft_host]") {
  jet::test::null_cufft_record* r = null_cufft();
  jet::array<float> x(jet::shape{3, 10});
  jet::array<cf> X = jet::rfft(x);
  CHECK(X.shape() == jet::shape{3, 6});
  CHECK((r->type == 0x2a && r->n[0] == 10 && r->inembed[0] == 10 && r->onembed[0] == 6 && r->odist == 6));
  jet::array<float> back = jet::irfft(X);
  CHECK(back.shape() == jet::shape{3, 10});
  CHECK((r->type == 0x2c && r->n[0] == 10 && r->inembed[0] == 6 && r->idist == 6 && r->onembed[0] == 10));
  CHECK((r->last_in != X.data() && r->last_out == back.data()));  // X itself is never C2R's input
  back = jet::irfft(X, 7);                                        // reads 4 of the 6 in place
  CHECK((back.shape() == jet::shape{3, 7} && r->n[0] == 7 && r->inembed[0] == 6 && r->idist == 6));
  back = jet::irfft(X, 14);  // reads 8: 6 and 2 zeros
  CHECK((back.shape() == jet::shape{3, 14} && r->inembed[0] == 8 && r->idist == 8));
  jet::array<cd> padded = jet::fft(jet::array<double>(jet::shape{2, 6}), 9);
  CHECK((padded.shape() == jet::shape{2, 9} && r->type == 0x69 && r->inembed[0] == 9));
}

TEST_CASE("fft host path: plans are cached per layout and stream, and failures name the call", "[.][fft_host]") {
  jet::test::null_cufft_record* r = null_cufft();
  jet::array<cf> x(jet::shape{2, 11});
  const auto made = r->plans_made;
  jet::array<cf> y = jet::fft(x);
  y = jet::fft(x);
  y = jet::ifft(x);  // the same plan: the direction is the execution's
  CHECK(r->plans_made == made + 1);
  CHECK(jet::detail::fft_plans_created() >= 1);
  {
    jet::stream s;
    jet::stream_guard on(s);
    y = jet::fft(x);
    CHECK(r->stream == s.handle());
    y = jet::fft(x);
  }
  CHECK(r->plans_made == made + 2);
  const auto destroyed = r->plans_destroyed;
  for (int n = 1; n <= 33; ++n) y = jet::fft(x, 100 + n);  // 33 new plans: the cache keeps 32
  CHECK(r->plans_destroyed > destroyed);

  r->fail_n = 13, r->fail_result = 8;  // CUFFT_INVALID_SIZE
  r->execs = 0;
  try {
    y = jet::fft(jet::array<cf>(jet::shape{2, 13}));
    FAIL("no exception");
  } catch (const jet::cuda_error& e) {
    CHECK(e.call == "cufftMakePlanMany64");
    CHECK(e.code == 8);
    CHECK(std::string(e.what()) ==
          "jet: cufftMakePlanMany64 failed: CUFFT_INVALID_SIZE (8) for a C2C transform of n = (13), batch 2 "
          "(inembed (13), istride 1, idist 13; onembed (13), ostride 1, odist 13)");
  }
  CHECK(r->execs == 0);  // a plan that failed is never run
  r->fail_result = 2;    // CUFFT_ALLOC_FAILED
  CHECK_THROWS_AS(y = jet::fft(jet::array<cf>(jet::shape{2, 13})), jet::out_of_memory);
  r->fail_n = 0;
  y = jet::fft(jet::array<cf>(jet::shape{2, 13}));  // nothing was cached: planned now
  CHECK(r->execs == 1);
}

namespace {

// Whether the first `count` words of a load callback's parameter block hold pointer p.
bool holds(const void* block, std::size_t count, const void* p) {
  const auto* words = static_cast<const std::uint64_t*>(block);
  return std::find(words, words + count, reinterpret_cast<std::uintptr_t>(p)) != words + count;
}

}  // namespace

TEST_CASE("fft host path: an operand expression computed in cuFFT's loads by an LTO callback", "[.][fft_host]") {
  jet::test::null_cufft_record* r = null_cufft();
  jet::array<cf> x(jet::shape{4, 6});
  const jet::array<float> window(jet::shape{6});
  const auto callbacks = r->callbacks;
  jet::array<cf> y = jet::fft(x * window);
  CHECK(r->callbacks == callbacks + 1);
  CHECK(std::string(r->callback_symbol) == "jet_fft_load");
  CHECK((r->callback_type == 0 && r->callback_lto_ir_bytes > 0));  // CUFFT_CB_LD_COMPLEX, compiled by NVRTC
  // The parameter block: the buffer whose offsets cuFFT passes (never written), the padding, the
  // extents (the window broadcasts), x's pointer, the window's and its strides.
  REQUIRE(r->callback_info != nullptr);
  CHECK(static_cast<const std::uint64_t*>(r->callback_info)[0] == reinterpret_cast<std::uintptr_t>(r->last_in));
  CHECK((holds(r->callback_info, 10, x.data()) && holds(r->callback_info, 10, window.data())));
  CHECK(r->last_out == y.data());
  y = jet::fft(x * window);  // the same plan, its block filled again
  CHECK(r->callbacks == callbacks + 1);

  // Each element type a load callback returns: R2C's real ones from float16, a padded Z2Z with a
  // counter, and a transposed view times a complex scalar.
  (void)jet::rfft(jet::array<jet::float16>(jet::shape{3, 8}) * 2);
  CHECK((r->callbacks == callbacks + 2 && r->callback_type == 2 && r->type == 0x2a));  // CUFFT_CB_LD_REAL
  (void)jet::fft(jet::array<double>(jet::shape{3, 5}) + jet::arange(5), 8);
  CHECK((r->callbacks == callbacks + 3 && r->callback_type == 1 && r->inembed[0] == 8));  // padded
  (void)jet::fft(x.view().permute({1, 0}) * cf(0, 1));
  CHECK((r->callbacks == callbacks + 4 && r->n[0] == 4));

  // None where the transform does not read its buffer once, as it is: irfft, and rfft along a
  // middle axis (both read a buffer jet prepares).
  (void)jet::irfft(x * 2.f);
  (void)jet::rfft(jet::array<float>(jet::shape{3, 4, 5}) * 2.f, jet::axis{1});
  CHECK(r->callbacks == callbacks + 4);

  // Inside a capture the operand is stored first: the parameter block would be copied from host
  // memory that the graph's replays read again.
  {
    jet::stream s;
    jet::stream_guard on(s);
    jet::array<cf> captured;
    r->execs = 0;
    const jet::graph g = jet::capture([&] { captured = jet::fft(x * window * 2.f); });
    CHECK((r->callbacks == callbacks + 4 && r->execs == 1 && r->stream == s.handle()));
  }

  // A callback cuFFT refuses: the plan is made without one, the operand stored first.
  r->refuse_callbacks = 5;  // CUFFT_INTERNAL_ERROR
  r->execs = 0;
  y = jet::fft(x * window * 3.f);
  CHECK((r->callbacks == callbacks + 4 && r->execs == 1 && r->last_out == y.data()));
  r->refuse_callbacks = 0;
}

TEST_CASE("fft host path: by default (JET_FFT_CALLBACKS unset) the operand is stored first", "[.][fft_callbacks_off]") {
  jet::test::null_cufft_record* r = null_cufft();
  const jet::array<cf> x(jet::shape{4, 6});
  r->execs = 0;
  const jet::array<cf> y = jet::fft(x * 2.f);
  CHECK((r->callbacks == 0 && r->execs == 1 && r->last_out == y.data() && r->last_in != x.data()));
}
