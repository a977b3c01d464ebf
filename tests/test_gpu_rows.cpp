// On the GPU: the rows kernels (a block per chunk of a row) against the host reference on fresh
// random data, into poisoned outputs: the heat equation's step over shifted views at row lengths
// around a block's chunk, operands misaligned by a few elements or all aligned (vectors), strided
// outputs, broadcast rows and columns, element sizes 1 to 8, rank 3, more rows than a grid has
// along y, in place, and rows of length 1 and no rows at all.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"
#include "support/planned.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <random>
#include <string>

using jet::test::check_into_view;
using jet::test::fresh_seed;
using jet::test::host_inputs;
using jet::test::poisoned_array;
using jet::test::random_device_array;

namespace {

// The step of examples/heat_equation.cpp on an n x n grid: next's interior from u's five-point
// stencil; checks the rows variant runs it.
template <class T> std::size_t heat_step(std::int64_t n, std::uint64_t salt, double atol) {
  host_inputs h;
  auto u = random_device_array<T>({n, n}, h, salt);
  jet::array<T> next = poisoned_array<T>({n, n});
  auto at = [&](jet::view<T> a, std::int64_t di, std::int64_t dj) {
    return a.slice(0, 1 + di, 1 + di + n - 2).slice(1, 1 + dj, 1 + dj + n - 2);
  };
  const jet::view<T> centre = at(u.view(), 0, 0);
  const auto e = centre + T(0.2) * (at(u.view(), -1, 0) + at(u.view(), 1, 0) + at(u.view(), 0, -1) +
                                    at(u.view(), 0, 1) - T(4) * centre);
  CHECK(jet::test::planned_variant_of(at(next.view(), 0, 0), e).rows);
  return check_into_view(next, at(next.view(), 0, 0), e, h, atol);
}

// Trials of out = a * b + bias - column over `rows` x `columns`, a and b viewed from wider arrays
// at random column offsets 0..4 (misaligned, or all aligned for vectors) and out at a random
// offset, every other column or not. Returns how many trials ran as rows kernels.
template <class T> int random_trials(int trials, std::uint64_t salt, double atol) {
  std::mt19937_64 engine(fresh_seed() + salt);
  // Around the 128 threads of a block and its chunks of 1024 (float) and 2048 (vectors of int8).
  static constexpr std::int64_t columns_of[] = {128, 129, 255, 1000, 1023, 1024, 1025, 2049, 4100};
  static constexpr std::int64_t rows_of[] = {2, 3, 17, 64};
  int rows_kernels = 0;
  for (int trial = 0; trial < trials; ++trial) {
    host_inputs h;
    const std::int64_t rows = rows_of[engine() % 4], columns = columns_of[engine() % 9];
    const bool aligned = engine() % 3 == 0, stepped = engine() % 3 == 0;
    auto offset = [&] { return aligned ? std::int64_t{0} : static_cast<std::int64_t>(engine() % 5); };
    const std::int64_t oa = offset(), ob = offset(), oo = offset(), wide = columns + 16;  // rows 16 apart: aligned
    auto a = random_device_array<T>({rows, wide}, h, 4 * trial + 1),
         b = random_device_array<T>({rows, wide}, h, 4 * trial + 2);
    auto bias = random_device_array<T>({columns}, h, 4 * trial + 3),
         column = random_device_array<T>({rows, 1}, h, 4 * trial + 4);
    jet::array<T> out = poisoned_array<T>({rows, 2 * wide});
    const jet::view<T> into = out.view().slice(1, oo, oo + (stepped ? 2 : 1) * columns, stepped ? 2 : 1);
    const auto e = a.view().slice(1, oa, oa + columns) * b.view().slice(1, ob, ob + columns) + bias - column;
    const jet::detail::variant_key v = jet::test::planned_variant_of(into, e);
    rows_kernels += v.rows;
    INFO("trial " << trial << " in " << jet::name(jet::dtype_of<T>()) << ": " << rows << " x " << columns << ", a at +"
                  << oa << ", b at +" << ob << ", out at +" << oo << (stepped ? " every other column" : "")
                  << (v.rows ? " (rows, vec " + std::to_string(v.vec) + ")" : ""));
    CHECK(check_into_view(out, into, e, h, atol) == 0);
  }
  return rows_kernels;
}

}  // namespace

TEST_CASE("the heat step over shifted views, rows around a chunk's length", "[gpu][rows]") {
  std::uint64_t salt = 0;
  // Rows of n - 2: 128 (a block's threads), one chunk of 1024 floats and either side, and more.
  for (const std::int64_t n : {130, 131, 1025, 1026, 1027, 3001}) {
    INFO("n = " << n);
    CHECK(heat_step<float>(n, ++salt, 1e-5) == 0);
  }
  CHECK(heat_step<double>(515, ++salt, 1e-12) == 0);  // 513 doubles: a chunk of 1024 half full
}

TEST_CASE("rows kernels: misaligned and aligned operands, strided outputs, broadcasts, element sizes 1 to 8",
          "[gpu][rows]") {
  CHECK(random_trials<float>(24, 1, 1e-5) == 24);
  CHECK(random_trials<double>(12, 2, 1e-12) == 12);
  CHECK(random_trials<std::int8_t>(12, 3, 0) == 12);
  CHECK(random_trials<std::int16_t>(8, 4, 0) == 8);
  CHECK(random_trials<jet::bfloat16>(8, 5, 0.05) == 8);
}

TEST_CASE("rows kernels of rank 3, in place, and more rows than a grid has along y", "[gpu][rows]") {
  host_inputs h;
  // Rank 3: rows unravel over two outer dimensions.
  auto x = random_device_array<float>({3, 7, 301}, h, 41), y = random_device_array<float>({5, 300}, h, 42);
  jet::array<float> out = poisoned_array<float>({3, 6, 302});
  const jet::view<float> into = out.view().slice(1, 1, 6).slice(2, 2, 302);
  const auto e = x.view().slice(1, 2, 7).slice(2, 1, 301) * 2.f - y;
  const jet::detail::variant_key v = jet::test::planned_variant_of(into, e);
  CHECK(v.rows);
  CHECK(v.rank == 3);
  CHECK(check_into_view(out, into, e, h, 1e-6) == 0);

  // 70000 rows: each of the 65535 rows of blocks takes one or two.
  auto tall = random_device_array<float>({70000, 140}, h, 43);
  jet::array<float> tall_out = poisoned_array<float>({70000, 140});
  const auto shifted = tall.view().slice(1, 1, 140) + tall.view().slice(1, 0, 139);
  CHECK(jet::test::planned_variant_of(tall_out.view().slice(1, 0, 139), shifted).rows);
  CHECK(check_into_view(tall_out, tall_out.view().slice(1, 0, 139), shifted, h, 1e-6) == 0);

  // In place: each element read and then written by one thread.
  auto z = random_device_array<double>({40, 700}, h, 44);
  const auto before = z.to_host();
  z.view().slice(1, 3, 700) *= 3.0;
  const auto after = z.to_host();
  std::size_t bad = 0;
  for (int r = 0; r < 40; ++r)
    for (int c = 0; c < 700; ++c) bad += after[r * 700 + c] != before[r * 700 + c] * (c >= 3 ? 3.0 : 1.0);
  CHECK(bad == 0);
}

TEST_CASE("rows of length 1 and no rows", "[gpu][rows]") {
  host_inputs h;
  auto x = random_device_array<float>({1000, 3}, h, 51);
  jet::array<float> out = poisoned_array<float>({1000, 3});
  const jet::view<float> column = out.view().slice(1, 1, 2);  // (1000, 1): one element per row
  CHECK(check_into_view(out, column, x.view().slice(1, 2, 3) + 1.f, h, 0) == 0);
  // No rows, or rows of no columns: no launch, and no error.
  auto wide = random_device_array<float>({4, 500}, h, 52);
  jet::array<float> empty = poisoned_array<float>({4, 500});
  const auto launches = jet::stats().launches;
  empty.view().slice(0, 2, 2) = wide.view().slice(0, 1, 1).slice(1, 0, 500) * 2.f;
  empty.view().slice(1, 7, 7) = wide.view().slice(1, 1, 1) + 1.f;
  CHECK(jet::stats().launches == launches);
  CHECK(check_into_view(empty, empty.view().slice(0, 0, 0), wide.view().slice(0, 0, 0) + 0.f, h, 0) == 0);
}
