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

using jet::test::fresh_seed;
using jet::test::host_inputs;
using jet::test::poison;
using jet::test::random_vector;

namespace {

template <class T> jet::array<T> random_array(const jet::shape& s, host_inputs& h, std::uint64_t salt) {
  const auto values = random_vector<T>(s.size(), -2, 2, fresh_seed() + 7919 * salt + s.size());
  jet::array<T> a = jet::from_host(values, s);
  h.add(a.data(), values);
  return a;
}

template <class T> jet::array<T> poisoned(const jet::shape& s) {
  return jet::from_host(std::vector<T>(s.size(), poison<T>()), s);
}

// Evaluates out = e, where out views part of `backing` (poisoned), then checks every element of
// out against the host reference and every other element of backing still poisoned.
template <class T, class E>
std::size_t check_into(const jet::array<T>& backing, jet::view<T> out, const E& e, const host_inputs& h, double atol) {
  const jet::shape s = out.shape();
  out = e;
  const std::vector<T> got = backing.to_host();
  std::vector<bool> viewed(got.size());
  std::size_t bad = 0;
  const std::int64_t origin = out.data() - backing.data();
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto at = static_cast<std::size_t>(origin + jet::test::offset_of(out.layout(), i, nullptr));
    viewed[at] = true;
    const long double ref = jet::test::reference(e, i, h, &s);
    if (!jet::test::close(static_cast<long double>(got[at]), ref, jet::test::rtol<T>(), atol) && bad++ < 5)
      std::printf("  element %zu of %s: got %.17Lg, reference %.17Lg\n", i, s.to_string().c_str(),
                  static_cast<long double>(got[at]), ref);
  }
  for (std::size_t k = 0; k < got.size(); ++k)
    if (!viewed[k] && static_cast<long double>(got[k]) != static_cast<long double>(poison<T>()) && bad++ < 5)
      std::printf("  element %zu of the backing array, outside the output, was written\n", k);
  return bad;
}

// Trials of out = a * b + c over random shapes, with a and c permuted views, b and out contiguous
// or permuted; returns how many of them the planner tiled.
template <class T> int random_trials(int trials, std::uint64_t salt) {
  std::mt19937_64 engine(fresh_seed() + salt);
  int tiled = 0;
  for (int trial = 0; trial < trials; ++trial) {
    host_inputs h;
    const auto [s, la, lb, lc, lo] = jet::test::make_tiled_case(engine);
    auto a = random_array<T>(la.stored, h, 4 * trial + 1), b = random_array<T>(lb.stored, h, 4 * trial + 2),
         c = random_array<T>(lc.stored, h, 4 * trial + 3);
    jet::array<T> out = poisoned<T>(lo.stored);
    const auto e = la.of(a.view()) * lb.of(b.view()) + lc.of(c.view());
    const bool is_tiled = jet::test::planned_variant_of(lo.of(out.view()), e).tiled;
    tiled += is_tiled;
    INFO("trial " << trial << " in " << jet::name(jet::dtype_of<T>()) << ": shape " << s.to_string() << ", a "
                  << la.what << ", b " << lb.what << ", c " << lc.what << ", out " << lo.what
                  << (is_tiled ? " (tiled)" : ""));
    CHECK(check_into(out, lo.of(out.view()), e, h, 1e-5) == 0);
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
  auto x = random_array<float>({300, 333}, h, 11), y = random_array<float>({333, 300}, h, 12);
  jet::array<float> out = poisoned<float>({333, 300});
  CHECK(jet::test::planned_variant_of(out.view(), x.transpose() + y).tiled);
  CHECK(check_into(out, out.view(), x.transpose() + y, h, 0) == 0);
  auto z = random_array<float>({70, 45, 33}, h, 13), w = random_array<float>({33, 45, 70}, h, 14);
  jet::array<float> out3 = poisoned<float>({33, 45, 70});
  CHECK(jet::test::planned_variant_of(out3.view(), z.permute({2, 1, 0}) + w).tiled);
  CHECK(check_into(out3, out3.view(), z.permute({2, 1, 0}) + w, h, 0) == 0);
  jet::array<float> out_t = poisoned<float>({300, 333});
  CHECK(check_into(out_t, out_t.transpose(), x.transpose() - y * 0.5f, h, 1e-6) == 0);
}

TEST_CASE("a large transpose-add", "[gpu][tiled][large]") {
  host_inputs h;
  auto x = random_array<float>({2000, 4097}, h, 15), y = random_array<float>({4097, 2000}, h, 16);
  jet::array<float> out = poisoned<float>({4097, 2000});
  CHECK(jet::test::planned_variant_of(out.view(), x.transpose() + y).tiled);
  CHECK(check_into(out, out.view(), x.transpose() + y, h, 0) == 0);
}

TEST_CASE("a transposed output, in place and through a temporary", "[gpu][tiled]") {
  host_inputs h;
  auto x = random_array<double>({200, 300}, h, 21), y = random_array<double>({300, 200}, h, 22);
  // Written along its own contiguous dimension through shared memory.
  jet::array<double> out = poisoned<double>({200, 300});
  CHECK(jet::test::planned_variant_of(out.transpose(), y * 3.0 - x.transpose()).output_access[0] ==
        jet::detail::access::transposed);
  CHECK(check_into(out, out.transpose(), y * 3.0 - x.transpose(), h, 1e-12) == 0);

  // x.T = x.T * 2 + 1 reads and writes the same elements: in place, both through shared memory.
  auto square = random_array<float>({190, 190}, h, 23);
  const auto before = square.to_host();
  square.transpose() = square.transpose() * 2.f + 1.f;
  const auto doubled = square.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < before.size(); ++i) bad += doubled[i] != before[i] * 2.f + 1.f;
  CHECK(bad == 0);

  // x = x.T + x reads elements that other threads write: through a temporary, then copied.
  auto a = random_array<float>({161, 161}, h, 24);
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
  auto x = random_array<float>({40, 1, 50}, h, 31), y = random_array<float>({50, 1, 40}, h, 32);
  jet::array<float> out = poisoned<float>({50, 1, 40});
  CHECK(jet::test::planned_variant_of(out.view(), x.permute({2, 1, 0}) - y).tiled);
  CHECK(check_into(out, out.view(), x.permute({2, 1, 0}) - y, h, 1e-6) == 0);
  auto u = random_array<std::int8_t>({1, 64, 48}, h, 33), v = random_array<std::int8_t>({1, 48, 64}, h, 34);
  jet::array<std::int8_t> out8 = poisoned<std::int8_t>({1, 48, 64});
  CHECK(check_into(out8, out8.view(), u.permute({0, 2, 1}) + v, h, 0) == 0);
  // Nothing to do: no launch, and no error.
  auto empty = random_array<float>({40, 0}, h, 35), none = random_array<float>({0, 40}, h, 36);
  const auto launches = jet::stats().launches;
  jet::array<float> nothing = empty.transpose() + none;
  CHECK(nothing.shape() == jet::shape{0, 40});
  CHECK(jet::stats().launches == launches);
}
