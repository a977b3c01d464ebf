// On the GPU: the tiled kernels (transposed operands and outputs through shared memory) against
// the host reference on fresh random data, into poisoned outputs: random shapes of rank 2 to 4
// that are and are not multiples of the tile, permutations, reversed and stepped slices, element
// sizes 1 to 8, transposed outputs, in-place and aliased assignments, and dimensions of 1 and 0.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"
#include "support/planned.hpp"
#include "support/random_layout.hpp"

#include <jet/jet.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

using jet::test::check_into_view;
using jet::test::fresh_seed;
using jet::test::host_inputs;
using jet::test::poisoned_array;
using jet::test::random_device_array;

namespace {

// Trials of out = a * b + c over random shapes, with a and c permuted views, b and out contiguous
// or permuted; returns how many of them the planner tiled.
template <class T> int random_trials(int trials, std::uint64_t salt) {
  std::mt19937_64 engine(fresh_seed() + salt);
  int tiled = 0;
  for (int trial = 0; trial < trials; ++trial) {
    host_inputs h;
    const auto [s, la, lb, lc, lo] = jet::test::make_tiled_case(engine);
    auto a = random_device_array<T>(la.stored, h, 4 * trial + 1),
         b = random_device_array<T>(lb.stored, h, 4 * trial + 2),
         c = random_device_array<T>(lc.stored, h, 4 * trial + 3);
    jet::array<T> out = poisoned_array<T>(lo.stored);
    const auto e = la.of(a.view()) * lb.of(b.view()) + lc.of(c.view());
    const bool is_tiled = jet::test::planned_variant_of(lo.of(out.view()), e).tiled;
    tiled += is_tiled;
    INFO("trial " << trial << " in " << jet::name(jet::dtype_of<T>()) << ": shape " << s.to_string() << ", a "
                  << la.what << ", b " << lb.what << ", c " << lc.what << ", out " << lo.what
                  << (is_tiled ? " (tiled)" : ""));
    CHECK(check_into_view(out, lo.of(out.view()), e, h, 1e-5) == 0);
  }
  return tiled;
}

}  // namespace

TEST_CASE("random permuted operands and outputs, tiled, agree with the host reference", "[gpu][tiled]") {
  // Element sizes 1, 2, 4 and 8; many trials tile (a permuted operand whose contiguous dimension
  // is not the inner one, with tiles at least half full).
  int tiled = 0, trials = 0;
  tiled += random_trials<float>(40, 1), trials += 40;
  tiled += random_trials<double>(25, 2), trials += 25;
  tiled += random_trials<jet::bfloat16>(25, 3), trials += 25;
  tiled += random_trials<std::int8_t>(25, 4), trials += 25;
  tiled += random_trials<std::int16_t>(15, 5), trials += 15;
  tiled += random_trials<std::int64_t>(15, 6), trials += 15;
  INFO(tiled << " of " << trials << " trials tiled");
  CHECK(tiled > trials / 5);
}

TEST_CASE("the transpose-add, a 3-D permutation and a transposed output at sizes off the tile",
          "[gpu][tiled][sanitize]") {
  // Small enough for memcheck and racecheck (benchmarks/device_run.sh runs them on this case).
  host_inputs h;
  auto x = random_device_array<float>({300, 333}, h, 11), y = random_device_array<float>({333, 300}, h, 12);
  jet::array<float> out = poisoned_array<float>({333, 300});
  CHECK(jet::test::planned_variant_of(out.view(), x.transpose() + y).tiled);
  CHECK(check_into_view(out, out.view(), x.transpose() + y, h, 0) == 0);
  auto z = random_device_array<float>({70, 45, 33}, h, 13), w = random_device_array<float>({33, 45, 70}, h, 14);
  jet::array<float> out3 = poisoned_array<float>({33, 45, 70});
  CHECK(jet::test::planned_variant_of(out3.view(), z.permute({2, 1, 0}) + w).tiled);
  CHECK(check_into_view(out3, out3.view(), z.permute({2, 1, 0}) + w, h, 0) == 0);
  jet::array<float> out_t = poisoned_array<float>({300, 333});
  CHECK(check_into_view(out_t, out_t.transpose(), x.transpose() - y * 0.5f, h, 1e-6) == 0);
}

TEST_CASE("a large transpose-add", "[gpu][tiled][large]") {
  host_inputs h;
  auto x = random_device_array<float>({2000, 4097}, h, 15), y = random_device_array<float>({4097, 2000}, h, 16);
  jet::array<float> out = poisoned_array<float>({4097, 2000});
  CHECK(jet::test::planned_variant_of(out.view(), x.transpose() + y).tiled);
  CHECK(check_into_view(out, out.view(), x.transpose() + y, h, 0) == 0);
}

TEST_CASE("a transposed output, in place and through a temporary", "[gpu][tiled]") {
  host_inputs h;
  auto x = random_device_array<double>({200, 300}, h, 21), y = random_device_array<double>({300, 200}, h, 22);
  // Written along its own contiguous dimension through shared memory.
  jet::array<double> out = poisoned_array<double>({200, 300});
  CHECK(jet::test::planned_variant_of(out.transpose(), y * 3.0 - x.transpose()).output_access[0] ==
        jet::detail::access::transposed);
  CHECK(check_into_view(out, out.transpose(), y * 3.0 - x.transpose(), h, 1e-12) == 0);

  // x.T = x.T * 2 + 1 reads and writes the same elements: in place, both through shared memory.
  auto square = random_device_array<float>({190, 190}, h, 23);
  const auto before = square.to_host();
  square.transpose() = square.transpose() * 2.f + 1.f;
  const auto doubled = square.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < before.size(); ++i) bad += doubled[i] != before[i] * 2.f + 1.f;
  CHECK(bad == 0);

  // x = x.T + x reads elements that other threads write: through a temporary, then copied.
  auto a = random_device_array<float>({161, 161}, h, 24);
  const auto ha = a.to_host();
  a = a.transpose() + a;
  const auto sum = a.to_host();
  bad = 0;
  for (int r = 0; r < 161; ++r)
    for (int c = 0; c < 161; ++c) bad += sum[r * 161 + c] != ha[c * 161 + r] + ha[r * 161 + c];
  CHECK(bad == 0);
}

TEST_CASE("tiled shapes with dimensions of 1 and 0", "[gpu][tiled]") {
  host_inputs h;
  // A dimension of 1 between two tiled ones, and 1 in front.
  auto x = random_device_array<float>({40, 1, 50}, h, 31), y = random_device_array<float>({50, 1, 40}, h, 32);
  jet::array<float> out = poisoned_array<float>({50, 1, 40});
  CHECK(jet::test::planned_variant_of(out.view(), x.permute({2, 1, 0}) - y).tiled);
  CHECK(check_into_view(out, out.view(), x.permute({2, 1, 0}) - y, h, 1e-6) == 0);
  auto u = random_device_array<std::int8_t>({1, 64, 48}, h, 33),
       v = random_device_array<std::int8_t>({1, 48, 64}, h, 34);
  jet::array<std::int8_t> out8 = poisoned_array<std::int8_t>({1, 48, 64});
  CHECK(check_into_view(out8, out8.view(), u.permute({0, 2, 1}) + v, h, 0) == 0);
  // Nothing to do: no launch, and no error.
  auto empty = random_device_array<float>({40, 0}, h, 35), none = random_device_array<float>({0, 40}, h, 36);
  const auto launches = jet::stats().launches;
  jet::array<float> nothing = empty.transpose() + none;
  CHECK(nothing.shape() == jet::shape{0, 40});
  CHECK(jet::stats().launches == launches);
}
