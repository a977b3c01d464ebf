// On the GPU: broadcasting, strided views, assignment into views, compound assignment and
// several outputs per kernel, each against the host reference on fresh random data.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using jet::test::check_against_reference;
using jet::test::fresh_seed;
using jet::test::host_inputs;
using jet::test::poison;
using jet::test::random_vector;

JET_FUNCTION(smooth_step, float(float edge, float v),
             "float t = v / edge; t = t < 0.f ? 0.f : (t > 1.f ? 1.f : t); return t * t * (3.f - 2.f * t);");

namespace {

// A device array of shape s with random values, recorded in h for the reference.
template <class T> jet::array<T> random_array(const jet::shape& s, host_inputs& h, int salt) {
  const auto values = random_vector<T>(s.size(), -2, 2, fresh_seed() + 31 * salt + s.size());
  jet::array<T> a = jet::from_host(values, s);
  h.add(a.data(), values);
  return a;
}

std::size_t launches() { return jet::stats().launches; }

}  // namespace

TEST_CASE("broadcasting against rows, columns and new dimensions", "[gpu][nd][broadcast][sanitize]") {
  host_inputs h;
  for (std::int64_t m : {std::int64_t{1024}, std::int64_t{1023}, std::int64_t{4}}) {
    INFO("columns: " << m);
    auto x = random_array<float>({517, m}, h, 1);
    auto row = random_array<float>({m}, h, 2);
    auto column = random_array<float>({517, 1}, h, 3);
    const auto before = launches();
    CHECK(check_against_reference(x + row, x.size(), h) == 0);                  // bias add
    CHECK(check_against_reference(x * column - row, x.size(), h, 1e-6) == 0);   // both at once
    CHECK(check_against_reference(jet::relu(column + row), x.size(), h) == 0);  // an outer sum
    CHECK(launches() - before == 3);
  }
  auto a = random_array<double>({2, 1, 5}, h, 4);
  auto b = random_array<double>({3, 1}, h, 5);
  CHECK(check_against_reference(a * b + 1.0, 30, h) == 0);
}

TEST_CASE("slices, reversed slices, transposes and permutations", "[gpu][nd][view][sanitize]") {
  host_inputs h;
  auto x = random_array<float>({300, 200}, h, 6);
  auto y = random_array<float>({200, 300}, h, 7);
  auto z = random_array<float>({4, 5, 6}, h, 8);
  CHECK(check_against_reference(x.slice(0, 1, 300, 2) * 2.f, 150 * 200, h) == 0);
  CHECK(check_against_reference(x.slice(1, -1, -201, -1) - x, 300 * 200, h) == 0);
  CHECK(check_against_reference(x.transpose() + y, 200 * 300, h) == 0);  // the transpose-add
  CHECK(check_against_reference(z.permute({2, 0, 1}) + 1.f, 120, h) == 0);
  CHECK(check_against_reference(z.reshape({20, 6}) * z.reshape({20, 6}).slice(0, 0, 1), 120, h) == 0);
  CHECK(check_against_reference(x.slice(0, 10, 20).slice(1, 3, 200, 7) + 0.5f, 10 * 29, h) ==
        0);                                       // columns 3, 10, .., 199
  const auto gathered = x.transpose().to_host();  // a strided view comes back in C order
  const auto plain = x.to_host();
  CHECK(gathered[1] == plain[200]);
  CHECK(gathered[300] == plain[1]);
}

TEST_CASE("assigning into a view writes only the viewed elements", "[gpu][nd][view]") {
  host_inputs h;
  auto x = random_array<float>({64, 96}, h, 9);
  jet::array<float> out = jet::from_host(std::vector<float>(64 * 96, poison<float>()), {64, 96});
  out.slice(1, 8, 40, 2) = x.slice(1, 0, 16) * 3.f;  // columns 8, 10, .., 38 from columns 0..15
  const auto got = out.to_host(), hx = x.to_host();
  std::size_t bad = 0;
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 96; ++c) {
      const bool written = c >= 8 && c < 40 && c % 2 == 0;
      const float want = written ? hx[r * 96 + (c - 8) / 2] * 3.f : poison<float>();
      bad += got[r * 96 + c] != want;
    }
  CHECK(bad == 0);
  out.transpose().slice(0, 0, 1) = x.transpose().slice(0, 0, 1) + 0.f;  // column 0, through transposes
  const auto again = out.to_host();
  bad = 0;
  for (int r = 0; r < 64; ++r) bad += again[r * 96] != hx[r * 96];
  CHECK(bad == 0);
}

TEST_CASE("compound assignment works in place and keeps the shape", "[gpu][nd][inplace]") {
  host_inputs h;
  auto x = random_array<double>({33, 65}, h, 10);
  auto row = random_array<double>({65}, h, 11);
  const auto hx = x.to_host(), hrow = row.to_host();
  x += row;
  x *= 2;
  x.slice(0, 0, 1) -= 1.5;
  const auto got = x.to_host();
  std::size_t bad = 0;
  for (int r = 0; r < 33; ++r)
    for (int c = 0; c < 65; ++c) bad += got[r * 65 + c] != (hx[r * 65 + c] + hrow[c]) * 2 - (r == 0 ? 1.5 : 0);
  CHECK(bad == 0);
  CHECK(x.shape() == jet::shape{33, 65});
  auto small = random_array<double>({65}, h, 12);
  CHECK_THROWS_AS(small += x, jet::shape_error);  // x += y never grows x
}

TEST_CASE("one kernel writes several outputs", "[gpu][nd][tie]") {
  host_inputs h;
  auto x = random_array<float>({1 << 20}, h, 13);
  auto y = random_array<float>({1 << 20}, h, 14);
  jet::array<float> sum;
  jet::array<double> difference(std::size_t{1} << 20);
  const auto before = launches();
  jet::tie(sum, difference) = jet::tuple(x + y, jet::cast<double>(x) - y);
  CHECK(launches() - before == 1);
  const auto hx = x.to_host(), hy = y.to_host();
  const auto s = sum.to_host();
  const auto d = difference.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) bad += s[i] != hx[i] + hy[i] || d[i] != double(hx[i]) - hy[i];
  CHECK(bad == 0);
  jet::array<float> a(std::size_t{16});
  CHECK_THROWS_AS(jet::tie(a, a) = jet::tuple(x + y, x - y), jet::invalid_argument);
}

TEST_CASE("an output overlapping an input elsewhere goes through a temporary", "[gpu][nd][alias]") {
  host_inputs h;
  auto x = random_array<float>({128, 128}, h, 15);
  const auto hx = x.to_host();
  x = x.transpose() + 0.f;  // every element reads another that is also written
  const auto got = x.to_host();
  std::size_t bad = 0;
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < 128; ++c) bad += got[r * 128 + c] != hx[c * 128 + r];
  CHECK(bad == 0);
}

TEST_CASE("large strided and broadcast operands at 2^24 elements", "[gpu][nd][large]") {
  host_inputs h;
  auto x = random_array<float>({4096, 4096}, h, 16);
  auto row = random_array<float>({4096}, h, 17);
  CHECK(check_against_reference(x + row, x.size(), h) == 0);
  CHECK(check_against_reference(x.transpose() * row, x.size(), h) == 0);
}

TEST_CASE("a user function runs fused with the ops around it", "[gpu][function]") {
  host_inputs h;
  auto x = random_array<float>({1000, 37}, h, 18);
  auto row = random_array<float>({37}, h, 19);
  const auto before = launches();
  jet::array<float> z = smooth_step(2.f, x) * row + 1.f;
  CHECK(launches() - before == 1);
  const auto got = z.to_host(), hx = x.to_host(), hrow = row.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double t = std::clamp(double(hx[i]) / 2.0, 0.0, 1.0);
    const double want = t * t * (3 - 2 * t) * hrow[i % 37] + 1;
    bad += !jet::test::close(got[i], want, 1e-5, 1e-6);
  }
  CHECK(bad == 0);
}

TEST_CASE("random numbers match the host Philox, fuse, and are reproducible per seed", "[gpu][random]") {
  host_inputs h;
  const std::int64_t seed = static_cast<std::int64_t>(fresh_seed() % 1000003);
  auto x = random_array<float>({1000, 37}, h, 20);
  CHECK(check_against_reference(jet::random_uniform({1000, 37}, seed), x.size(), h) == 0);
  CHECK(check_against_reference(x + jet::random_uniform({37}, seed + 1), x.size(), h) == 0);  // broadcast
  CHECK(check_against_reference(x * jet::random_normal(x.shape(), seed), x.size(), h, 1e-5) == 0);

  const std::size_t n = std::size_t{1} << 22;
  jet::array<float> a = jet::random_normal({std::int64_t(n)}, seed), b = jet::random_normal({std::int64_t(n)}, seed);
  jet::array<float> c = jet::random_normal({std::int64_t(n)}, seed + 1);
  const auto ha = a.to_host(), hb = b.to_host(), hc = c.to_host();
  CHECK(ha == hb);
  CHECK(ha != hc);
  double mean = 0, square = 0;
  for (float v : ha) mean += v, square += double(v) * v;
  mean /= n;
  const double variance = square / n - mean * mean;
  CHECK(std::abs(mean) < 5e-3);  // 10 standard errors at 2^22 samples
  CHECK(std::abs(variance - 1) < 1e-2);
}

TEST_CASE("random shapes, broadcasts and views agree with the host reference", "[gpu][nd][random-shapes]") {
  std::mt19937_64 engine(fresh_seed() + 99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(engine); };
  for (int trial = 0; trial < 60; ++trial) {
    host_inputs h;
    // An output shape of rank 1..4; each operand drops leading dimensions and sets some to 1.
    jet::shape out;
    const int rank = pick(1, 4);
    for (int d = 0; d < rank; ++d) out.push_back(pick(1, rank > 2 ? 12 : 70));
    auto operand_shape = [&] {
      jet::shape s;
      for (int d = pick(0, rank - 1); d < rank; ++d) s.push_back(pick(0, 3) == 0 ? 1 : out[d]);
      return s;
    };
    const jet::shape sa = operand_shape(), sb = operand_shape();
    // b is read through a transposed, sliced view of a larger array: strides of every kind.
    jet::shape big;
    for (int d = sb.rank() - 1; d >= 0; --d) big.push_back(sb[d] * 2 + 1);
    auto a = random_array<float>(sa, h, 100 + trial);
    auto whole = random_array<float>(big, h, 200 + trial);
    // (assigning a view copies elements, so each slice is a new view)
    auto slice_from = [&](auto& self, const jet::view<float>& v, int d) -> jet::view<float> {
      return d == sb.rank() ? v : self(self, v.slice(d, 1, 1 + 2 * sb[d], 2), d + 1);
    };
    const jet::view<float> b = slice_from(slice_from, whole.transpose(), 0);
    INFO("trial " << trial << ": " << sa.to_string() << " with a view of " << b.shape().to_string() << " into "
                  << out.to_string());
    REQUIRE(b.shape() == sb);
    const jet::shape s = jet::detail::bound_one<float, decltype(a * b + 1.f)>(a * b + 1.f).shape();
    // a * b rounds to float before + 1 (no contraction into an fma): where a * b is near -1 the
    // sum's relative error grows, its absolute error stays under ulp(4) / 2 + ulp(1) / 2.
    CHECK(check_against_reference(jet::where(a < b, a * b + 1.f, b - a), s.size(), h, 1e-6) == 0);
  }
}
