// The tiled and rows variants, with no GPU: the planner tiles kernels with transposed operands
// (inputs or outputs) and no others, keeps shared memory within its limit, gives every other
// strided kernel with long rows a block per chunk of a row, and both kinds of source compile for
// sm_90 in element sizes 1 to 8.
#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/planned.hpp"
#include "support/random_layout.hpp"

#include "codegen/elementwise.hpp"
#include "codegen/geometry.hpp"
#include "codegen/spelling.hpp"
#include "compile/compiler.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using jet::test::occurrences;

using jet::detail::access;

template <class T> jet::view<T> fake(const jet::shape& s, std::uintptr_t address) {
  return jet::view<T>(reinterpret_cast<T*>(address), s);
}

// What evaluate() would launch for out = e: the variant and the kernel's source.
struct planned {
  jet::detail::variant_key variant;
  std::string source;
  std::string expression;
};
template <class Out, class E> planned plan(const jet::view<Out>& out, const E& e) {
  const jet::detail::variant_key v = jet::test::planned_variant_of(out, e);
  const auto& d = jet::detail::bound_one<Out, E>::kernel::desc;
  return {v, jet::detail::generate_source(d, v), jet::detail::describe(d)};
}

bool compiles(const planned& p) { return jet::detail::compile_to_cubin(p.source, 90, p.expression).image.size() > 0; }

}  // namespace

TEST_CASE("the planner tiles kernels with a transposed input", "[cpu][tiling]") {
  auto x = fake<float>({256, 512}, 0x100000), y = fake<float>({512, 256}, 0x300000);
  auto out = fake<float>({512, 256}, 0x500000);
  const planned p = plan(out, x.transpose() + y);
  CAPTURE(p.source);
  CHECK(p.variant.tiled);
  CHECK(p.variant.vec == 1);
  CHECK(p.variant.rank == 2);
  CHECK(p.variant.input_access[0] == access::transposed);
  CHECK(p.variant.input_access[1] == access::gather);
  CHECK(p.variant.output_access[0] == access::gather);
  CHECK(occurrences(p.source, "__shared__ float tile_in0[edge][edge + 1];") == 1);
  CHECK(occurrences(p.source, "__shared__") == 1);
  CHECK(occurrences(p.source, "__syncthreads();") == 1);  // no transposed output: no second barrier
  CHECK(occurrences(p.source, "tile_in0[c][r] = in0[base_in0 + r * is0.s[0] + c * is0.s[1]];") == 1);
  CHECK(occurrences(p.source, "v1[p] = in1[base_in1 + r * is1.s[0] + c * is1.s[1]];") == 1);
  CHECK(occurrences(p.source, "jet_element(result0, tile_in0[c][r], v1[p]);") == 1);
  CHECK(occurrences(p.source, "__launch_bounds__(256)") == 1);
  CHECK(compiles(p));

  // Reversed along its contiguous dimension, a transposed operand still reads whole sectors.
  const planned reversed = plan(out, x.transpose().slice(0, -1, -513, -1) * y);
  CHECK(reversed.variant.tiled);
  CHECK(reversed.variant.input_access[0] == access::transposed);
  CHECK(compiles(reversed));
}

TEST_CASE("contiguous, broadcast and narrow operands keep the flat kernel", "[cpu][tiling]") {
  auto x = fake<float>({512, 256}, 0x100000), y = fake<float>({512, 256}, 0x300000);
  auto row = fake<float>({256}, 0x700000), column = fake<float>({512, 1}, 0x800000);
  auto out = fake<float>({512, 256}, 0x500000);
  for (const planned& p : {plan(out, x + y), plan(out, x * row), plan(out, x - column), plan(out, column + row),
                           plan(out, x.slice(1, 0, 256, 1) + 1.f)}) {
    CAPTURE(p.source);
    CHECK_FALSE(p.variant.tiled);
    CHECK(p.source.find("__shared__") == std::string::npos);
  }
  CHECK(plan(out, x + y).variant.vec == 4);
  // Rows of 8 elements would leave three quarters of each tile idle: gathered instead.
  auto narrow = fake<float>({8, 4096}, 0x900000);
  auto narrow_out = fake<float>({4096, 8}, 0xa00000);
  const planned p = plan(narrow_out, narrow.transpose() + 1.f);
  CHECK_FALSE(p.variant.tiled);
  CHECK(p.variant.input_access[0] == access::gather);
}

TEST_CASE("a transposed output is written through shared memory", "[cpu][tiling]") {
  auto y = fake<double>({300, 200}, 0x100000), z = fake<double>({200, 300}, 0x300000);
  auto out = fake<double>({200, 300}, 0x500000).transpose();  // (300, 200), contiguous along dimension 0
  const planned p = plan(out, y * 2.0 + z.transpose());
  CAPTURE(p.source);
  CHECK(p.variant.tiled);
  CHECK(p.variant.output_access[0] == access::transposed);
  CHECK(p.variant.input_access[0] == access::gather);
  CHECK(p.variant.input_access[1] == access::transposed);
  CHECK(occurrences(p.source, "__shared__ double tile_out0[edge][edge + 1];") == 1);
  CHECK(occurrences(p.source, "tile_out0[c][r] = result0;") == 1);
  CHECK(occurrences(p.source, "out0[base_out0 + r * os0.s[0] + c * os0.s[1]] = tile_out0[c][r];") == 1);
  CHECK(occurrences(p.source, "__syncthreads();") == 2);
  CHECK(compiles(p));
}

TEST_CASE("permutations tile the contiguous dimension next to the inner one", "[cpu][tiling]") {
  auto z = fake<float>({64, 32, 48}, 0x100000), w = fake<float>({48, 32, 64}, 0x300000);
  auto out = fake<float>({48, 32, 64}, 0x500000);
  const planned p = plan(out, z.permute({2, 1, 0}) + w);
  CAPTURE(p.source);
  CHECK(p.variant.tiled);
  CHECK(p.variant.rank == 3);
  CHECK(p.variant.input_access[0] == access::transposed);
  CHECK(occurrences(p.source, "jet_unravel<index, 3>(index(blockIdx.x), tiles, idx);") == 1);
  CHECK(occurrences(p.source, "tile_in0[c][r] = in0[base_in0 + r * is0.s[1] + c * is0.s[2]];") == 1);
  CHECK(compiles(p));
  // 48 x 32 x 64: dimension 0 (48, contiguous for z) is moved next to the inner one; 32 batches of
  // 2 x 2 tiles.
  const std::int64_t extents[] = {32, 48, 64};
  const jet::detail::launch_grid grid = jet::detail::grid_of(p.variant, 48 * 32 * 64, extents);
  CHECK(grid.blocks == 32 * 2 * 2);
  CHECK(grid.threads == jet::detail::tile_threads);
}

TEST_CASE("tiled kernels compile in element sizes 1 to 8, several transposed operands and a transposed output",
          "[cpu][tiling][compile]") {
  auto in_every_type = [](auto type) {
    using T = decltype(type);
    INFO(jet::name(jet::dtype_of<T>()));
    auto a = fake<T>({96, 80}, 0x100000), b = fake<T>({96, 80}, 0x300000), c = fake<T>({80, 96}, 0x500000);
    auto out = fake<T>({96, 80}, 0x700000).transpose();
    const planned p = plan(out, a.transpose() * b.transpose() + c);
    CAPTURE(p.source);
    CHECK(p.variant.tiled);
    CHECK(p.variant.input_access[0] == access::transposed);
    CHECK(p.variant.input_access[1] == access::transposed);
    CHECK(p.variant.input_access[2] == access::gather);
    CHECK(p.variant.output_access[0] == access::transposed);
    CHECK(compiles(p));
    planned wide = p;  // and with 64-bit indices
    wide.variant.index32 = false;
    const auto& d = jet::detail::bound_one<T, decltype(a.transpose() * b.transpose() + c)>::kernel::desc;
    wide.source = jet::detail::generate_source(d, wide.variant);
    CHECK(wide.source.find("using index = unsigned long long;") != std::string::npos);
    CHECK(compiles(wide));
  };
  in_every_type(float{});
  in_every_type(double{});
  in_every_type(jet::bfloat16{});
  in_every_type(std::int8_t{});
  in_every_type(std::int16_t{});
}

TEST_CASE("transposed operands past the shared memory limit are gathered", "[cpu][tiling]") {
  // 6 double tiles would be 6 x 8448 bytes, more than 48 KiB: the first 5 go through shared memory.
  std::uintptr_t address = 0x100000;
  auto next = [&] { return fake<double>({64, 64}, address += 0x100000).transpose(); };
  auto a = next(), b = next(), c = next(), d = next(), e = next(), f = next();
  auto out = fake<double>({64, 64}, 0x4000000);
  const planned p = plan(out, a + b + c + d + e + f);
  CAPTURE(p.source);
  CHECK(p.variant.tiled);
  for (int k = 0; k < 5; ++k) CHECK(p.variant.input_access[k] == access::transposed);
  CHECK(p.variant.input_access[5] == access::gather);
  CHECK(occurrences(p.source, "__shared__") == 5);
  CHECK(compiles(p));
}

TEST_CASE("counters and broadcast operands in a tiled kernel read their offsets directly", "[cpu][tiling]") {
  auto x = fake<float>({100, 70}, 0x100000), row = fake<float>({100}, 0x300000);
  auto out = fake<float>({70, 100}, 0x500000);
  const planned p = plan(out, x.transpose() + row * jet::random_uniform({70, 100}, 7));
  CAPTURE(p.source);
  CHECK(p.variant.tiled);
  CHECK(p.variant.input_access[0] == access::transposed);
  CHECK(p.variant.input_access[1] == access::gather);
  CHECK(p.variant.input_access[2] == access::gather);
  CHECK(occurrences(p.source, "v2[p] = base_in2 + r * is2.s[0] + c * is2.s[1];") == 1);  // the counter: no load
  CHECK(compiles(p));
}

// The views of the GPU test "random permuted operands and outputs, tiled, ...": each has the case's
// shape and lies inside its stored array, an output's elements are distinct, and the planner
// takes every case (these views were once assigned, which copies elements, rather than made).
TEST_CASE("the tiled GPU test's random views have their case's shape, inside their arrays", "[cpu][tiling]") {
  std::mt19937_64 engine(20240611);
  int tiled = 0;
  const int trials = 3000;
  for (int trial = 0; trial < trials; ++trial) {
    const jet::test::tiled_case t = jet::test::make_tiled_case(engine);
    INFO("trial " << trial << ": shape " << t.s.to_string() << ", a " << t.a.what << ", b " << t.b.what << ", c "
                  << t.c.what << ", out " << t.out.what);
    std::uintptr_t address = 0x100000;
    auto view_of = [&](const jet::test::random_layout& l) {
      const auto whole = fake<float>(l.stored, address);
      address += 0x1000000;
      const jet::view<float> v = l.of(whole);
      REQUIRE(v.shape() == t.s);
      // The elements it reaches, from its first, lie in the stored array.
      std::int64_t lo = 0, hi = 0;
      for (int d = 0; d < v.rank(); ++d) (v.stride(d) < 0 ? lo : hi) += (v.shape()[d] - 1) * v.stride(d);
      const std::int64_t first = v.data() - whole.data();
      CHECK(first + lo >= 0);
      CHECK(first + hi < static_cast<std::int64_t>(l.stored.size()));
      // Distinct: along the dimensions in order of stride, each steps past all the inner ones reach.
      std::vector<int> dims(v.rank());
      std::iota(dims.begin(), dims.end(), 0);
      std::sort(dims.begin(), dims.end(), [&](int x, int y) { return std::abs(v.stride(x)) < std::abs(v.stride(y)); });
      std::int64_t reach = 0;
      for (int d : dims) {
        if (v.shape()[d] == 1) continue;
        CHECK(std::abs(v.stride(d)) > reach);
        reach += (v.shape()[d] - 1) * std::abs(v.stride(d));
      }
      return v;
    };
    const auto a = view_of(t.a), b = view_of(t.b), c = view_of(t.c), out = view_of(t.out);
    tiled += jet::test::planned_variant_of(out, a * b + c).tiled;  // no shape_error
  }
  INFO(tiled << " of " << trials << " trials tiled");
  CHECK(tiled > trials / 5);  // as the GPU test expects
}

// The heat equation's step (examples/heat_equation.cpp): five views of u shifted by a row or a
// column, into the interior of another array.
template <class T> auto heat_step(jet::view<T> u, jet::view<T> next, std::int64_t n) {
  auto at = [&](jet::view<T> a, std::int64_t di, std::int64_t dj) {
    return a.slice(0, 1 + di, 1 + di + n - 2).slice(1, 1 + dj, 1 + dj + n - 2);
  };
  const T rate = T(0.2f);
  auto centre = at(u, 0, 0);
  return std::pair(at(next, 0, 0),
                   centre + rate * (at(u, -1, 0) + at(u, 1, 0) + at(u, 0, -1) + at(u, 0, 1) - T(4) * centre));
}

TEST_CASE("the heat step's shifted views get a block per chunk of a row, with no index arithmetic per element",
          "[cpu][rows]") {
  const std::int64_t n = 10000;
  const auto [out, e] = heat_step(fake<float>({n, n}, 0x10000000), fake<float>({n, n}, 0x80000000), n);
  const planned p = plan(out, e);
  CAPTURE(p.source);
  CHECK(p.variant.rows);
  CHECK_FALSE(p.variant.tiled);
  CHECK(p.variant.rank == 2);
  CHECK(p.variant.vec == 1);  // the views are a float apart: no vectors
  CHECK(p.variant.index32);
  for (int k = 0; k < 5; ++k) CHECK(p.variant.input_access[k] == access::unit);
  CHECK(p.variant.output_access[0] == access::unit);
  CHECK(occurrences(p.source, "constexpr unsigned threads = 128, ilp = 8, vec = 1,") == 1);
  // One unravel, per row (for rank 2 no division: the row's multi-index is the row), and offsets
  // by constants along the row.
  CHECK(occurrences(p.source, "jet_unravel<index, 2>(row, row_extents, idx);") == 1);
  CHECK(occurrences(p.source, "jet_unravel") == 2);  // its definition and that call
  CHECK(occurrences(p.source, "const float* __restrict__ in3_row = in3 + jet_offset(idx, is3);") == 1);
  CHECK(occurrences(p.source, "v3[k] = *reinterpret_cast<const jet_vec<float, vec>*>(in3_at + k * threads * vec);") ==
        1);
  CHECK(occurrences(p.source, "*reinterpret_cast<jet_vec<float, vec>*>(out0_at + k * threads * vec) = r0;") == 1);
  CHECK(occurrences(p.source, "out0_row[c] = r0;") == 1);  // the row's last chunk, masked
  CHECK(compiles(p));

  // 10 chunks of 1024 columns per row, a row of blocks per row.
  const std::int64_t extents[] = {n - 2, n - 2};
  const jet::detail::launch_grid grid = jet::detail::grid_of(p.variant, (n - 2) * (n - 2), extents);
  CHECK(grid.blocks == 10);
  CHECK(grid.rows == n - 2);
  CHECK(grid.threads == 128);
  // More rows than a grid has along y: each row of blocks takes every 65535th row.
  const std::int64_t tall[] = {100000, 300};
  CHECK(jet::detail::grid_of(p.variant, 100000 * 300, tall).rows == jet::detail::max_grid_rows);
  CHECK(jet::detail::grid_of(p.variant, 100000 * 300, tall).blocks == 1);
}

TEST_CASE("rows whose every operand is aligned are read in vectors, whatever the row's length", "[cpu][rows]") {
  auto x = fake<float>({512, 1000}, 0x100000), y = fake<float>({512, 1000}, 0x300000);
  auto bias = fake<float>({998}, 0x700000), column = fake<float>({512, 1}, 0x800000);
  auto out = fake<float>({512, 1000}, 0x500000);
  // Columns 4.. of x and 0.. of y: every row starts 16-byte aligned; rows of 996 are no multiple of
  // 4, the last chunk's tail goes element by element.
  const planned aligned = plan(out.slice(1, 0, 996), x.slice(1, 4, 1000) + y.slice(1, 0, 996) * column);
  CAPTURE(aligned.source);
  CHECK(aligned.variant.rows);
  CHECK(aligned.variant.vec == 4);
  CHECK(aligned.variant.input_access[2] == access::broadcast);
  CHECK(occurrences(aligned.source, "{ const float b = *in2_at;") == 1);
  CHECK(compiles(aligned));
  // One operand a float off: every operand element by element, coalesced.
  const planned shifted = plan(out.slice(1, 0, 998), x.slice(1, 2, 1000) + bias);
  CHECK(shifted.variant.rows);
  CHECK(shifted.variant.vec == 1);
  CHECK(shifted.variant.input_access[0] == access::unit);
  CHECK(shifted.variant.input_access[1] == access::unit);  // the bias: stride 0 between rows, 1 along them
  CHECK(compiles(shifted));
  // A contiguous operand beside a strided one: its rows are row * columns apart.
  const planned linear = plan(out, x + y.slice(0, 0, 512).slice(1, 0, 1000));
  CHECK(linear.variant.rank == 1);  // every operand contiguous: one flat dimension, no rows
  const planned mixed = plan(out.slice(1, 0, 996), x.slice(1, 4, 1000) + fake<float>({512, 996}, 0x900000));
  CAPTURE(mixed.source);
  CHECK(mixed.variant.rows);
  CHECK(mixed.variant.input_access[1] == access::linear);
  CHECK(occurrences(mixed.source, "in1_row = in1 + (long long)row * columns;") == 1);
  CHECK(compiles(mixed));
}

TEST_CASE("short rows, transposes and reductions keep their own kernels", "[cpu][rows]") {
  auto x = fake<float>({4096, 100}, 0x100000), y = fake<float>({100, 4096}, 0x300000);
  auto out = fake<float>({4096, 99}, 0x500000);
  // 99 columns, fewer than a block's 128 threads: the flat kernel.
  const planned narrow = plan(out, x.slice(1, 1, 100) * 2.f);
  CHECK_FALSE(narrow.variant.rows);
  CHECK(narrow.variant.input_access[0] == access::gather);
  CHECK(occurrences(narrow.source, "jet_unravel<index, 2>(index(i), extents, idx);") >= 1);
  // A transposed operand: tiled, not rows.
  auto square = fake<float>({4096, 4096}, 0x1000000), out2 = fake<float>({4096, 4096}, 0x5000000);
  const planned transposed = plan(out2, square.transpose() + square);
  CHECK(transposed.variant.tiled);
  CHECK_FALSE(transposed.variant.rows);
}

TEST_CASE(
    "rows kernels compile in element sizes 1 to 8, 32- and 64-bit indices, with strided outputs, broadcast "
    "operands and counters",
    "[cpu][rows][compile]") {
  auto in_every_type = [](auto type) {
    using T = decltype(type);
    INFO(jet::name(jet::dtype_of<T>()));
    // Rows 608 elements apart: 16-byte aligned in every element size.
    auto a = fake<T>({40, 608}, 0x100000), b = fake<T>({40, 608}, 0x300000);
    auto row = fake<T>({599}, 0x500000), column = fake<T>({40, 1}, 0x600000);
    // A strided output (every other column) and a shifted input, or every operand aligned; the
    // bias row and the column broadcast.
    auto out = fake<T>({40, 1200}, 0x700000).slice(1, 0, 1198, 2);
    const auto e = a.slice(1, 1, 600) * b.slice(1, 0, 599) + row - column;
    for (const bool aligned : {false, true}) {
      INFO("aligned: " << aligned);
      const auto into = aligned ? fake<T>({40, 608}, 0x900000).slice(1, 0, 599) : out;
      const auto ex = aligned ? a.slice(1, 0, 599) * b.slice(1, 0, 599) + row - column : e;
      const planned p = plan(into, ex);
      CAPTURE(p.source);
      CHECK(p.variant.rows);
      CHECK(p.variant.vec == (aligned ? 16 / sizeof(T) : 1));
      CHECK(p.variant.input_access[3] == access::broadcast);
      CHECK(compiles(p));
      planned wide = p;  // and with 64-bit indices
      wide.variant.index32 = false;
      const auto& d = jet::detail::bound_one<T, std::remove_cvref_t<decltype(ex)>>::kernel::desc;
      wide.source = jet::detail::generate_source(d, wide.variant);
      CHECK(wide.source.find("using index = unsigned long long;") != std::string::npos);
      CHECK(compiles(wide));
    }
    const planned stepped = plan(out, fake<T>({40, 1200}, 0xb00000).slice(1, 1, 1199, 2) + b.slice(1, 1, 600));
    CHECK(stepped.variant.rows);
    CHECK(stepped.variant.output_access[0] == access::gather);
    CHECK(stepped.variant.input_access[0] == access::gather);
    CHECK(compiles(stepped));
  };
  in_every_type(double{});
  in_every_type(float{});
  in_every_type(jet::bfloat16{});
  in_every_type(std::int16_t{});
  in_every_type(std::int8_t{});
  // A counter (random numbers) in a rows kernel reads no memory: its value is its offset.
  auto x = fake<float>({300, 400}, 0x100000), out = fake<float>({300, 400}, 0x500000);
  const planned p = plan(out.slice(1, 1, 400), x.slice(1, 0, 399) * jet::random_uniform({300, 399}, 7));
  CAPTURE(p.source);
  CHECK(p.variant.rows);
  CHECK(compiles(p));
}
