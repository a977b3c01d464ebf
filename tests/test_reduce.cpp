// Reductions with no GPU: their result types, the kernels NVRTC compiles for sm_90 (every
// reduction in every dtype, over all elements and along inner and outer axes), what tells their
// cache entries apart, the errors of bad axes and empty max/min, and how they are launched (one
// result per row, an axis of extent 0 included; no launch for no results; grids the driver takes).
#include "support/catch.hpp"
#include "support/cubin.hpp"
#include "support/operands.hpp"
#include "support/planned.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "compile/compiler.hpp"
#include "driver/driver.hpp"
#include "driver/stream.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <complex>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

namespace {

using jet::dtype;
using jet::detail::reduce_axis;
using jet::detail::reduction_id;
using jet::test::fake_view;

template <reduction_id R, class E> const jet::detail::kernel_desc& desc_of(const E&) {
  return jet::detail::reduction_kernel<R, E>::desc;
}

template <class E> auto expr(const E& e) { return jet::detail::as_expr(e); }

// The variant a reduction along an axis of a rank-2 index space launches with.
jet::detail::variant_key axis_variant(const jet::detail::kernel_desc& d, reduce_axis axis) {
  jet::detail::variant_key v = jet::detail::default_variant(d);
  v.axis = axis;
  v.vec = 1;
  v.rank = 2;
  for (auto& a : v.input_access) a = jet::detail::access::gather;
  return v;
}

bool compiles(const jet::detail::kernel_desc& d, const jet::detail::variant_key& v) {
  const std::string src = jet::detail::generate_source(d, v);
  INFO(src);
  return jet::detail::compile_to_cubin(src, 90, jet::detail::describe(d))
             .image.compare(0, 4,
                            "\x7f"
                            "ELF") == 0;
}

template <reduction_id R, class... T> void compile_in_every_dtype() {
  const auto one = [](auto x) {
    const auto e = expr(x * x);
    const auto& d = desc_of<R>(e);
    INFO(jet::detail::describe(d) << " in " << jet::name(x.dtype()));
    CHECK(compiles(d, jet::detail::default_variant(d)));
    if constexpr (std::is_same_v<typename decltype(x)::value_type, float> ||
                  std::is_same_v<typename decltype(x)::value_type, std::complex<float>> ||
                  std::is_same_v<typename decltype(x)::value_type, jet::float16> ||
                  std::is_same_v<typename decltype(x)::value_type, std::int8_t>) {
      CHECK(compiles(d, axis_variant(d, reduce_axis::inner)));
      CHECK(compiles(d, axis_variant(d, reduce_axis::outer)));
    }
  };
  (one(fake_view<T>()), ...);
}

template <reduction_id... R> void compile_every_reduction() {
  (compile_in_every_dtype<R, bool, std::int8_t, std::uint8_t, std::int16_t, std::int32_t, std::uint32_t, std::int64_t,
                          std::uint64_t, jet::float16, jet::bfloat16, float, double>(),
   ...);
}

}  // namespace

TEST_CASE("reduction result types follow NumPy's", "[cpu][reduce]") {
  using jet::detail::resolve_reduction;
  struct row {
    reduction_id r;
    dtype element, accumulator, result;
  };
  const row rows[] = {
      {reduction_id::sum, dtype::float32, dtype::float64, dtype::float32},
      {reduction_id::sum, dtype::float16, dtype::float64, dtype::float16},
      {reduction_id::sum, dtype::int8, dtype::uint64, dtype::int64},
      {reduction_id::sum, dtype::int32, dtype::uint64, dtype::int64},
      {reduction_id::sum, dtype::uint8, dtype::uint64, dtype::uint64},
      {reduction_id::sum, dtype::uint64, dtype::uint64, dtype::uint64},
      {reduction_id::sum, dtype::boolean, dtype::uint64, dtype::int64},
      {reduction_id::prod, dtype::int16, dtype::uint64, dtype::int64},
      {reduction_id::mean, dtype::int32, dtype::float64, dtype::float64},
      {reduction_id::mean, dtype::bfloat16, dtype::float64, dtype::bfloat16},
      {reduction_id::norm2, dtype::uint8, dtype::float64, dtype::float64},
      {reduction_id::norm2, dtype::float32, dtype::float64, dtype::float32},
      {reduction_id::max, dtype::float16, dtype::float32, dtype::float16},
      {reduction_id::min, dtype::int8, dtype::int8, dtype::int8},
      {reduction_id::any, dtype::float64, dtype::boolean, dtype::boolean},
      {reduction_id::all, dtype::int32, dtype::boolean, dtype::boolean},
      {reduction_id::sum, dtype::complex64, dtype::complex128, dtype::complex64},
      {reduction_id::prod, dtype::complex128, dtype::complex128, dtype::complex128},
      {reduction_id::mean, dtype::complex64, dtype::complex128, dtype::complex64},
      {reduction_id::norm2, dtype::complex64, dtype::float64, dtype::float32},
      {reduction_id::norm2, dtype::complex128, dtype::float64, dtype::float64},
      {reduction_id::any, dtype::complex64, dtype::boolean, dtype::boolean},
      {reduction_id::argmax, dtype::float16, dtype::float32, dtype::int64},
      {reduction_id::argmin, dtype::uint8, dtype::uint8, dtype::int64},
      {reduction_id::argmax, dtype::boolean, jet::compute_type(dtype::boolean), dtype::int64},
  };
  for (const row& r : rows) {
    INFO(static_cast<int>(r.r) << " of " << jet::name(r.element));
    CHECK(resolve_reduction(r.r, r.element).accumulator == r.accumulator);
    CHECK(resolve_reduction(r.r, r.element).result == r.result);
  }
  auto f = fake_view<float>();
  auto i = fake_view<std::int32_t>();
  auto b = fake_view<bool>();
  auto h = fake_view<jet::float16>();
  static_assert(std::is_same_v<decltype(jet::sum(f * f)), jet::array<float>>);
  static_assert(std::is_same_v<decltype(jet::dot(f, f)), jet::array<float>>);
  static_assert(std::is_same_v<decltype(jet::sum(i, 0)), jet::array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(jet::sum(b)), jet::array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(jet::mean(i)), jet::array<double>>);
  static_assert(std::is_same_v<decltype(jet::max(h, jet::axis{0})), jet::array<jet::float16>>);
  static_assert(std::is_same_v<decltype(jet::any(f < 0.0f)), jet::array<bool>>);
  static_assert(std::is_same_v<decltype(jet::argmax(h, 1)), jet::array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(jet::argmin(b)), jet::array<std::int64_t>>);
  // Kept as operands (keepdims): expressions of the result dtype; the compositions keep x's.
  static_assert(jet::expression<decltype(jet::sum(f, 1, jet::keepdims))>);
  static_assert(decltype(jet::sum(i, 1, jet::keepdims))::type == dtype::int64);
  static_assert(decltype(jet::mean(h, 0, jet::keepdims))::type == dtype::float16);
  static_assert(decltype(jet::argmax(f, -1, jet::keepdims))::type == dtype::int64);
  static_assert(decltype(f - jet::max(f, jet::axis{1}, jet::keepdims))::type == dtype::float32);
  static_assert(decltype(jet::softmax(f, 1))::type == dtype::float32);
  static_assert(decltype(jet::log_softmax(h, 0))::type == dtype::float16);
  static_assert(decltype(jet::layer_norm(h, h, 0.0f))::type == dtype::float16);
  static_assert(decltype(jet::logsumexp(fake_view<double>(), 0, jet::keepdims))::type == dtype::float64);
  auto z = fake_view<std::complex<float>>();
  static_assert(std::is_same_v<decltype(jet::vdot(z, z)), jet::array<std::complex<float>>>);
  static_assert(std::is_same_v<decltype(jet::dot(z, f)), jet::array<std::complex<float>>>);
  static_assert(std::is_same_v<decltype(jet::norm2(z, 0)), jet::array<float>>);
  static_assert(std::is_same_v<decltype(jet::all(z)), jet::array<bool>>);
  // jet::max(x, 1) stays the elementwise maximum: an axis must be spelled jet::axis{1}.
  static_assert(jet::expression<decltype(jet::max(f, 1))>);
}

TEST_CASE("every accumulator fits its block's place in the reductions' workspace", "[cpu][reduce]") {
  // An all-elements kernel leaves each block's accumulator in max_accumulator_bytes of its
  // stream's workspace: a wider one would overrun it into the ticket.
  std::size_t widest = 0;
  jet::reductions::for_each_reduction([&](auto tag) {
    for (std::size_t t = 0; t < jet::detail::dtype_count; ++t) {
      widest = std::max(widest, jet::detail::accumulator_bytes(decltype(tag)::id, static_cast<dtype>(t)));
    }
  });
  CHECK(widest == jet::detail::max_accumulator_bytes);  // complex128 sums, and argmax's value and index
}

TEST_CASE("every reduction compiles for sm_90 in every dtype, over all elements and along an axis",
          "[cpu][reduce][compile]") {
  compile_every_reduction<reduction_id::sum, reduction_id::prod, reduction_id::mean, reduction_id::norm2>();
  compile_every_reduction<reduction_id::max, reduction_id::min, reduction_id::any, reduction_id::all>();
  compile_every_reduction<reduction_id::argmax, reduction_id::argmin>();
  // Complex values (no max, min, argmax or argmin: they have no order).
  compile_in_every_dtype<reduction_id::sum, std::complex<float>, std::complex<double>>();
  compile_in_every_dtype<reduction_id::prod, std::complex<float>, std::complex<double>>();
  compile_in_every_dtype<reduction_id::mean, std::complex<float>>();
  compile_in_every_dtype<reduction_id::norm2, std::complex<float>, std::complex<double>>();
  compile_in_every_dtype<reduction_id::any, std::complex<double>>();
  compile_in_every_dtype<reduction_id::all, std::complex<float>>();
}

TEST_CASE("strided, broadcast and counter operands compile into reductions", "[cpu][reduce][compile]") {
  auto x = fake_view<float>(8), y = fake_view<float>(8, 0x20000);
  const auto e = expr(x * 2.0f + jet::random_normal(jet::shape{8}, 1) * y);
  const auto& d = desc_of<reduction_id::sum>(e);
  jet::detail::variant_key v = jet::detail::default_variant(d);
  v.rank = 2;
  v.input_access[0] = jet::detail::access::unit;
  v.input_access[1] = jet::detail::access::broadcast;
  CHECK(compiles(d, v));
  v.vec = 1;
  v.index32 = false;
  for (auto& a : v.input_access) a = jet::detail::access::gather;
  CHECK(compiles(d, v));
}

TEST_CASE("a reduction kernel reads the expression's operands and writes no elementwise output",
          "[cpu][reduce][codegen]") {
  auto x = fake_view<float>(8), y = fake_view<float>(8, 0x20000);
  const auto e = expr(x * y);
  const auto& d = desc_of<reduction_id::sum>(e);
  CHECK(jet::detail::describe(d) == "sum(in0 * in1)");
  const std::string src = jet::detail::generate_source(d, jet::detail::default_variant(d));
  CAPTURE(src);
  CHECK(src.find("typedef double T;") != std::string::npos);                // float32 accumulates in float64
  CHECK(src.find("atom.acq_rel.gpu.global.add.u32") != std::string::npos);  // the last block takes the last ticket
  CHECK(src.find("*ticket = 0;") != std::string::npos);                     // reset for the next launch, no memset
  CHECK(src.find("atomicAdd(&") == std::string::npos);                      // no float atomics
  CHECK(src.find("float* __restrict__ out") != std::string::npos);
  CHECK(src.find("const float* __restrict__ in0") != std::string::npos);
  CHECK(src.find("const float* __restrict__ in1") != std::string::npos);
}

TEST_CASE("the reduction and the axis kind tell kernels apart", "[cpu][reduce][cache]") {
  auto x = fake_view<float>(8);
  const auto e = expr(x * x);
  const auto& sum = desc_of<reduction_id::sum>(e);
  const auto& prod = desc_of<reduction_id::prod>(e);
  const auto& elementwise = jet::detail::kernel_of<jet::detail::roots<decltype(e)>, float>::desc;
  CHECK(sum.hash != prod.hash);
  CHECK(sum.hash != elementwise.hash);
  CHECK(&jet::detail::reduction_kernel<reduction_id::sum, decltype(e)>::slot !=
        &jet::detail::reduction_kernel<reduction_id::prod, decltype(e)>::slot);
  const std::string all = jet::detail::generate_source(sum, jet::detail::default_variant(sum));
  const std::string inner = jet::detail::generate_source(sum, axis_variant(sum, reduce_axis::inner));
  const std::string outer = jet::detail::generate_source(sum, axis_variant(sum, reduce_axis::outer));
  CHECK(all != inner);
  CHECK(inner != outer);
  CHECK(jet::detail::generate_source(prod, jet::detail::default_variant(prod)) != all);
  CHECK_FALSE(axis_variant(sum, reduce_axis::inner) == axis_variant(sum, reduce_axis::outer));
  // Through the disk cache like any kernel: a second compile of the same source is a disk hit.
  const jet::compiled_kernel first = jet::detail::compile_for(sum, jet::test::hopper);
  CHECK(jet::test::is_cubin(first));
  CHECK(jet::detail::compile_for(sum, jet::test::hopper).from_disk_cache);
}

// The message of what f throws as E, or "" when it throws nothing.
template <class E, class F> std::string thrown(F f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("reductions refuse bad axes and max/min of nothing, naming them, with no GPU", "[cpu][reduce][errors]") {
  using bad = jet::invalid_argument;
  jet::view<float> m(reinterpret_cast<float*>(0x10000), jet::shape{3, 4});
  const auto contains = [](const std::string& message, const char* part) {
    INFO(message);
    return message.find(part) != std::string::npos;
  };
  CHECK(contains(thrown<bad>([&] { jet::sum(m, 2); }), "sum(in0): axis 2 is out of range for shape (3, 4)"));
  CHECK(contains(thrown<bad>([&] { jet::mean(m * 2.0f, -3); }), "mean(in0 * s0): axis -3 is out of range"));
  // Every int out of range, -1000 (once the value that meant every element) included.
  jet::view<float> x(reinterpret_cast<float*>(0x10000), jet::shape{4, 6});
  for (int axis : {-1000, -3, 2, 1000, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()}) {
    const std::string message = thrown<bad>([&] { jet::sum(x, axis); });
    CHECK(contains(message, ("axis " + std::to_string(axis) + " is out of range for shape (4, 6) of rank 2").c_str()));
    CHECK(contains(thrown<bad>([&] { jet::max(x, jet::axis{axis}); }), "out of range"));
  }
  jet::view<float> empty(nullptr, jet::shape{0});
  CHECK(contains(thrown<bad>([&] { jet::max(empty); }), "max(in0) of no elements (shape (0,)) has no value"));
  CHECK(contains(thrown<bad>([&] { jet::min(empty + 1.0f); }), "min(in0 + s0) of no elements"));
  jet::view<float> no_columns(nullptr, jet::shape{5, 0});
  CHECK(contains(thrown<bad>([&] { jet::max(no_columns, jet::axis{1}); }), "(shape (5, 0), axis 1) has no value"));
  const jet::array<float> none(jet::shape{0});
  CHECK(contains(thrown<bad>([&] { (void)none.item(); }), "has 0 elements, not 1"));
}

TEST_CASE("an axis of extent 0 gives one result per row from one launch; no rows, no launch", "[cpu][reduce][plan]") {
  jet::view<std::int32_t> rows(reinterpret_cast<std::int32_t*>(0x10000), jet::shape{4, 0});
  for (int axis : {1, -1}) {
    INFO("axis " << axis);
    const auto l = jet::test::planned_reduction_of<reduction_id::sum>(expr(rows), axis);
    CHECK(l.results == 4);
    CHECK(l.n == 4);  // the kernel writes 4 results
    CHECK(l.blocks >= 1);
    REQUIRE(l.variant.rank == 2);
    CHECK(l.extents[0] == 4);
    CHECK(l.extents[1] == 0);  // the kernel's rows read nothing: each is the identity
  }
  for (int axis : {0, -2}) {
    const auto l = jet::test::planned_reduction_of<reduction_id::sum>(expr(rows), axis);
    CHECK(l.results == 0);
    CHECK(l.blocks == 0);
  }
  // No rows to reduce, even for max, which has no value for an empty row.
  jet::view<float> columns(reinterpret_cast<float*>(0x10000), jet::shape{0, 7});
  CHECK(jet::test::planned_reduction_of<reduction_id::max>(expr(columns), 1).blocks == 0);
  CHECK(jet::test::planned_reduction_of<reduction_id::sum>(expr(columns), 0).results == 7);
  CHECK(jet::test::planned_reduction_of<reduction_id::prod>(expr(columns * 2.0f), 0).extents[1] == 0);
  // Over every element of nothing: one block, which writes the identity.
  CHECK(jet::test::planned_reduction_of<reduction_id::sum>(expr(rows), jet::detail::all_axes).blocks == 1);
  // The generated kernel skips a row of no elements rather than unravel it (a division by 0).
  const auto& d = desc_of<reduction_id::sum>(expr(rows));
  const auto l = jet::test::planned_reduction_of<reduction_id::sum>(expr(rows), 1);
  CHECK(jet::detail::generate_source(d, l.variant).find("if (row < n && length != 0)") != std::string::npos);
  CHECK(compiles(d, l.variant));
}

TEST_CASE("axis reductions of random shapes plan one result per row, negative axes as positive",
          "[cpu][reduce][plan]") {
  std::mt19937_64 engine(20240611);
  for (int c = 0; c < 500; ++c) {
    jet::shape s;
    const int rank = 1 + static_cast<int>(engine() % 5);
    for (int d = 0; d < rank; ++d) s.push_back(static_cast<std::int64_t>(engine() % (rank > 2 ? 13 : 71)));  // 0 too
    jet::view<float> x(reinterpret_cast<float*>(0x10000), s);
    const jet::view<float> v = c % 2 ? x.transpose() : x;
    const int axis = static_cast<int>(engine() % rank);
    const auto& d = desc_of<reduction_id::sum>(expr(v));
    INFO("sum of shape " << v.shape().to_string() << " along axis " << axis);
    const jet::detail::layout* layouts[] = {&v.layout()};
    const jet::shape kept = jet::detail::reduced_shape(d, layouts, axis);
    CHECK(jet::detail::reduced_shape(d, layouts, axis - rank) == kept);  // counted from the end
    REQUIRE(kept.rank() == rank - 1);
    for (int k = 0, from = 0; k < kept.rank(); ++k, ++from) {
      if (from == axis) ++from;
      CHECK(kept[k] == v.shape()[from]);
    }
    const auto l = jet::test::planned_reduction_of<reduction_id::sum>(expr(v), axis);
    CHECK(l.results == kept.size());
    if (kept.size() > 1) {  // along the axis: rows then the axis
      std::uint64_t rows = 1;
      for (int k = 0; k + 1 < l.variant.rank; ++k) rows *= static_cast<std::uint64_t>(l.extents[k]);
      CHECK(rows == kept.size());
      CHECK(l.n == kept.size());
      CHECK(l.extents[l.variant.rank - 1] == v.shape()[axis]);
      const unsigned rows_per_block = l.variant.axis == reduce_axis::inner ? 256 / l.lanes : 32;
      CHECK(l.blocks == (kept.size() + rows_per_block - 1) / rows_per_block);
      const auto from_end = jet::test::planned_reduction_of<reduction_id::sum>(expr(v), axis - rank);
      CHECK(from_end.results == l.results);
      CHECK(from_end.variant == l.variant);
    }
  }
}

TEST_CASE("rows contiguous and aligned in every input are read a vector at a time", "[cpu][reduce][plan]") {
  const auto at = [](auto* typed, std::uintptr_t address, jet::shape s) {
    using T = std::remove_pointer_t<decltype(typed)>;
    return jet::view<T>(reinterpret_cast<T*>(address), s);
  };
  const auto vec_of = [](const auto& e, int axis) {
    return jet::test::planned_reduction_of<reduction_id::sum>(e, axis).variant.vec;
  };
  const auto m = at(static_cast<float*>(nullptr), 0x10000, {64, 1024});
  CHECK(vec_of(expr(m), 1) == 4);
  CHECK(vec_of(expr(m), 0) == 1);                       // an outer axis: neighbouring threads take neighbouring columns
  CHECK(vec_of(expr(m.slice(1, 4, 1024)), 1) == 4);     // rows start 16 bytes apart from the base
  CHECK(vec_of(expr(m.slice(1, 1, 1021)), 1) == 1);     // a row starts off a vector's alignment
  CHECK(vec_of(expr(m.slice(1, 0, 1022)), 1) == 1);     // rows of 1022: the second row starts off it
  CHECK(vec_of(expr(m.slice(1, 0, 1024, 2)), 1) == 1);  // every other element
  CHECK(vec_of(expr(at(static_cast<float*>(nullptr), 0x10004, {64, 1024})), 1) == 1);  // a misaligned base
  CHECK(vec_of(expr(at(static_cast<float*>(nullptr), 0x10000, {64, 6})), 1) == 1);     // rows of no whole vectors
  const auto d = at(static_cast<double*>(nullptr), 0x40000, {64, 1024});
  CHECK(vec_of(expr(m * d), 1) == 2);  // 16 bytes of the widest input
  const auto h = at(static_cast<jet::bfloat16*>(nullptr), 0x80000, {64, 1024});
  CHECK(vec_of(expr(h), 1) == 8);
  CHECK(vec_of(expr(m * jet::random_uniform(jet::shape{64, 1024}, 3)), 1) == 1);  // a counter reads no memory
  // Every reduction of such rows compiles for sm_90, 16-bit and mixed inputs included.
  const auto compiles_along_rows = [](const auto& e) {
    const auto& desc = jet::detail::reduction_kernel<reduction_id::norm2, std::decay_t<decltype(e)>>::desc;
    const auto l = jet::test::planned_reduction_of<reduction_id::norm2>(e, 1);
    CHECK(l.variant.vec > 1);
    CHECK(compiles(desc, l.variant));
  };
  compiles_along_rows(expr(m));
  compiles_along_rows(expr(m * d + 1.0));
  compiles_along_rows(expr(h * h));
  compiles_along_rows(expr(at(static_cast<std::int8_t*>(nullptr), 0x10000, {64, 1024})));
}

TEST_CASE("a launch has 1 to 2^31 - 1 blocks, or is refused", "[cpu][reduce][plan]") {
  CHECK_THROWS_AS(jet::detail::grid_extent(0), jet::invalid_argument);
  CHECK(jet::detail::grid_extent(1) == 1u);
  CHECK(jet::detail::grid_extent(0x7fffffff) == 0x7fffffffu);
  CHECK_THROWS_AS(jet::detail::grid_extent(0x80000000ull), jet::invalid_argument);
  // 2^38 rows of 2: more than 2^31 - 1 blocks of 32 rows, refused before any launch.
  jet::view<float> tall(reinterpret_cast<float*>(0x10000), jet::shape{std::int64_t{1} << 38, 2});
  CHECK_THROWS_AS(jet::test::planned_reduction_of<reduction_id::sum>(expr(tall), 1), jet::invalid_argument);
  CHECK(jet::test::planned_reduction_of<reduction_id::sum>(expr(tall), 0).blocks >= 1);
}
