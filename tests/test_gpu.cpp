// On the GPU: every op against the host reference at sizes around the vector and tile boundaries,
// aliasing, foreign memory, one launch per expression, the kernel cache.
#include "support/catch.hpp"
#include "support/every_op.hpp"
#include "support/numbered_expressions.hpp"
#include "support/reference.hpp"
#include "support/gpu_check.hpp"
#include "support/scratch.hpp"

#include "driver/driver.hpp"
#include "driver/stream.hpp"

#include <jet/jet.hpp>

#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <thread>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using jet::test::check_against_reference;
using jet::test::check_every_op;
using jet::test::close;
using jet::test::fresh_seed;
using jet::test::host_inputs;
using jet::test::poison;
using jet::test::random_vector;
using jet::test::reference;

namespace {

// For the cache tests: jet's disk cache in a scratch directory of the test's own, and two float
// arrays of fresh random data (x in [x_lo, x_hi], y in [y_lo, y_hi]) with their host copies.
struct fresh_cache_and_operands {
  fresh_cache_and_operands(std::size_t n, std::array<double, 2> x_range, std::array<double, 2> y_range,
                           std::uint64_t seed)
      : n(n) {
    jet::set_disk_cache_directory((scratch / "cache").string());
    const auto hx = random_vector<float>(n, x_range[0], x_range[1], fresh_seed() + seed);
    const auto hy = random_vector<float>(n, y_range[0], y_range[1], fresh_seed() + seed + 1);
    x = jet::from_host(hx);
    y = jet::from_host(hy);
    h.add(x.data(), hx);
    h.add(y.data(), hy);
  }
  jet::test::scratch_directory scratch;
  jet::test::restore_disk_cache restore;
  std::size_t n;
  jet::array<float> x, y;
  host_inputs h;
};

// Device memory that jet did not allocate, as another library's would be.
struct foreign_buffer {
  explicit foreign_buffer(std::size_t bytes) {
    jet::detail::check(jet::detail::driver().cuMemAlloc(&p, bytes), "cuMemAlloc");
  }
  ~foreign_buffer() { jet::detail::driver().cuMemFree(p); }
  template <class T> T* as() const { return reinterpret_cast<T*>(p); }
  CUdeviceptr p = 0;
};

}  // namespace

TEST_CASE("every op matches the host reference at every size", "[gpu][ops]") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{1023}, std::size_t{1025},
                        std::size_t{2 * 4096 + 5}, std::size_t{(1 << 20) + 3}}) {
    check_every_op<float>(n);
    check_every_op<double>(n);
    check_every_op<std::int32_t>(n);
    check_every_op<std::int64_t>(n);
  }
}

TEST_CASE("every op matches the host reference in the 16-bit, narrow and unsigned dtypes", "[gpu][ops]") {
  // Tiles are 4096 elements of 1 byte, 2048 of 2, 1024 of 4 and 512 of 8: these sizes take the
  // masked tail alone, full tiles and a tail, and many tiles, for each.
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{1025}, std::size_t{2 * 4096 + 5},
                        std::size_t{(1 << 20) + 3}}) {
    check_every_op<jet::float16>(n);
    check_every_op<jet::bfloat16>(n);
    check_every_op<bool>(n);
    check_every_op<std::int8_t>(n);
    check_every_op<std::uint8_t>(n);
    check_every_op<std::int16_t>(n);
    check_every_op<std::uint32_t>(n);
    check_every_op<std::uint64_t>(n);
  }
}

TEST_CASE("every op matches the host reference at 2^26 elements", "[gpu][ops][large]") {
  check_every_op<float>(std::size_t{1} << 26);
}

TEST_CASE("the README's expressions are one kernel each and correct", "[gpu][fusion]") {
  const std::size_t n = (1 << 20) + 3;
  const auto hx = random_vector<float>(n, -3, 3, fresh_seed() + 1),
             hy = random_vector<float>(n, -3, 3, fresh_seed() + 2);
  host_inputs h;
  const jet::array<float> x = h.upload(hx), y = h.upload(hy);
  const auto before = jet::stats().launches;
  CHECK(check_against_reference(x + y, n, h) == 0);
  CHECK(check_against_reference(jet::relu(x + y), n, h) == 0);
  CHECK(check_against_reference(2.0f * x - jet::exp(-y) / (1.0f + x * x), n, h, 1e-6) == 0);
  CHECK(check_against_reference(jet::tanh(1.5f * x + y) * jet::sigmoid(x - y) + x * y, n, h, 1e-6) == 0);
  CHECK(jet::stats().launches - before == 4);
}

TEST_CASE("mixed dtypes convert as the rules say", "[gpu][dtype]") {
  const std::size_t n = 100003;
  const auto hf = random_vector<float>(n, -10, 10, fresh_seed() + 3);
  const auto hd = random_vector<double>(n, -10, 10, fresh_seed() + 4);
  const auto hi = random_vector<std::int32_t>(n, -1000, 1000, fresh_seed() + 5);
  const auto hl = random_vector<std::int64_t>(n, -100000, 100000, fresh_seed() + 6);
  host_inputs h;
  const jet::array<float> f = h.upload(hf);
  const jet::array<double> d = h.upload(hd);
  const jet::array<std::int32_t> i = h.upload(hi);
  const jet::array<std::int64_t> l = h.upload(hl);
  CHECK(check_against_reference(f + d, n, h) == 0);
  CHECK(check_against_reference(i * 3 + l, n, h) == 0);
  CHECK(check_against_reference(i / 7 - l / 3, n, h) == 0);  // integer division truncates
  CHECK(check_against_reference(i * 0.5 + f, n, h) == 0);
  CHECK(check_against_reference(jet::where(i < l, f, d * 2), n, h) == 0);
  CHECK(check_against_reference(jet::cast<std::int32_t>(f) + i, n, h) == 0);  // truncates toward zero
  CHECK(check_against_reference(jet::exp(jet::cast<double>(i) / 1000) * d, n, h) == 0);
  CHECK(check_against_reference<float>(d * 3.0, n, h) == 0);  // stored narrower than computed
  auto e = jet::eval(i + l);
  STATIC_REQUIRE(std::is_same_v<decltype(e), jet::array<std::int64_t>>);
}

TEST_CASE("16-bit floats mix with other dtypes and keep float32 inside an expression", "[gpu][dtype][half]") {
  const std::size_t n = 100003;
  const auto hh = random_vector<jet::float16>(n, -10, 10, fresh_seed() + 14);
  const auto hb = random_vector<jet::bfloat16>(n, -10, 10, fresh_seed() + 15);
  const auto hf = random_vector<float>(n, -10, 10, fresh_seed() + 16);
  const auto hi = random_vector<std::int8_t>(n, -100, 100, fresh_seed() + 17);
  host_inputs in;
  jet::array<jet::float16> h = in.upload(hh);
  const jet::array<jet::bfloat16> b = in.upload(hb);
  const jet::array<float> f = in.upload(hf);
  const jet::array<std::int8_t> i = in.upload(hi);
  const double subnormal = static_cast<float>(std::numeric_limits<jet::float16>::denorm_min());
  CHECK(check_against_reference(h + f, n, in) == 0);                       // float32
  CHECK(check_against_reference(h * b, n, in) == 0);                       // float32, and exact
  CHECK(check_against_reference(h * 2.0, n, in) == 0);                     // float16: the double scalar is weak
  CHECK(check_against_reference(i + h, n, in, subnormal) == 0);            // float16
  CHECK(check_against_reference(jet::sqrt(jet::abs(b)) + b, n, in) == 0);  // bfloat16
  CHECK(check_against_reference(jet::where(h < f, h, b), n, in) == 0);
  CHECK(check_against_reference<jet::float16>(f * 3.f, n, in, subnormal) == 0);  // rounded on store
  CHECK(check_against_reference<jet::bfloat16>(f - h, n, in) == 0);
  STATIC_REQUIRE(std::is_same_v<decltype(jet::eval(h - i)), jet::array<jet::float16>>);

  // Inside an expression a float16 node holds float32 (h * h is exact there); a cast rounds.
  const std::vector<float> product = jet::array<float>(h * h).to_host();
  const std::vector<float> cast_twice = jet::array<float>(jet::cast<jet::float16>(f) * 2.f).to_host();
  std::size_t bad = 0;
  for (std::size_t k = 0; k < n; ++k) {
    bad += product[k] != static_cast<float>(hh[k]) * static_cast<float>(hh[k]);
    bad += cast_twice[k] != static_cast<float>(jet::float16(hf[k])) * 2.f;
  }
  CHECK(bad == 0);

  // A view one element off is misaligned for 16-byte vectors: the scalar path.
  const jet::view<jet::float16> tail(h.data() + 1, n - 1);
  const std::vector<jet::float16> doubled = jet::array<jet::float16>(tail * 2.f).to_host();
  bad = 0;
  for (std::size_t k = 0; k + 1 < n; ++k)
    bad += doubled[k].bits != jet::float16(2.f * static_cast<float>(hh[k + 1])).bits;
  CHECK(bad == 0);
}

namespace {

// Floats that probe a 16-bit format's rounding: every pattern's value, each finite pattern's
// midpoint to the next one away from zero (the largest's: half an ulp above it) and the floats on
// either side of that midpoint, then random floats of any pattern.
template <class H> std::vector<float> rounding_probes(std::uint64_t seed) {
  std::vector<float> probes;
  const std::uint16_t largest = std::numeric_limits<H>::max().bits;
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const double value = static_cast<float>(H::from_bits(bits));
    probes.push_back(static_cast<float>(value));
    const std::uint16_t magnitude = bits & 0x7fff;
    if (magnitude > largest) continue;  // infinity, NaN
    const double next = magnitude < largest ? static_cast<double>(static_cast<float>(H::from_bits(bits + 1)))
                                            : 2 * value - static_cast<float>(H::from_bits(bits - 1));
    const auto mid = static_cast<float>((value + next) / 2);  // exact: one bit more than the format
    probes.insert(probes.end(), {mid, std::nextafter(mid, 0.f), std::nextafter(mid, 2 * mid)});
  }
  std::mt19937 engine(static_cast<std::uint32_t>(seed));
  for (int i = 0; i < 1 << 20; ++i) probes.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(engine())));
  return probes;
}

bool same_float(float a, float b) {
  return std::isnan(a) ? std::isnan(b) : std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// The device widens every pattern exactly and rounds every probe as the host does (round to
// nearest even, tested exhaustively on the CPU): on store, and at a cast inside an expression.
template <class H> void check_device_conversions_match_host() {
  INFO(jet::name(jet::dtype_of<H>()));
  std::vector<H> patterns(65536);
  for (std::uint32_t b = 0; b <= 0xffff; ++b) patterns[b] = H::from_bits(static_cast<std::uint16_t>(b));
  const jet::array<H> all = jet::from_host(patterns);
  const std::vector<float> widened = jet::array<float>(jet::cast<float>(all)).to_host();
  std::size_t bad = 0;
  for (std::uint32_t b = 0; b <= 0xffff; ++b) bad += !same_float(static_cast<float>(patterns[b]), widened[b]);
  CHECK(bad == 0);

  const std::vector<float> probes = rounding_probes<H>(fresh_seed() + 18);
  const jet::array<float> f = jet::from_host(probes);
  const std::vector<H> stored = jet::array<H>(jet::cast<float>(f)).to_host();
  const std::vector<float> cast_inside = jet::array<float>(jet::cast<H>(f)).to_host();
  bad = 0;
  for (std::size_t k = 0; k < probes.size(); ++k) {
    const H expected(probes[k]);
    const bool stored_right =
        std::isnan(probes[k]) ? std::isnan(static_cast<float>(stored[k])) : stored[k].bits == expected.bits;
    if ((!stored_right || !same_float(static_cast<float>(expected), cast_inside[k])) && bad++ < 3)
      std::printf("  %a: stored 0x%04x, cast 0x%08x, host 0x%04x\n", static_cast<double>(probes[k]), stored[k].bits,
                  std::bit_cast<std::uint32_t>(cast_inside[k]), expected.bits);
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("the device's 16-bit conversions agree with the host's on every pattern and halfway case",
          "[gpu][dtype][half]") {
  check_device_conversions_match_host<jet::float16>();
  check_device_conversions_match_host<jet::bfloat16>();
}

TEST_CASE("comparisons are stored into arrays of bool, which are operands like any other", "[gpu][dtype][bool]") {
  const std::size_t n = 100003;
  const auto hx = random_vector<float>(n, -3, 3, fresh_seed() + 19),
             hy = random_vector<float>(n, -3, 3, fresh_seed() + 20);
  jet::array<float> x = jet::from_host(hx), y = jet::from_host(hy);
  jet::array<bool> less = x < y;
  auto at_least = jet::eval(x >= y);
  STATIC_REQUIRE(std::is_same_v<decltype(at_least), jet::array<bool>>);
  std::vector<bool> flags(n);
  for (std::size_t k = 0; k < n; ++k) flags[k] = k % 3 == 0;
  const jet::array<bool> every_third = jet::from_host(flags);
  CHECK(every_third.to_host() == flags);

  const std::vector<bool> got_less = less.to_host(), got_at_least = at_least.to_host();
  std::vector<std::uint8_t> bytes(n);
  jet::detail::copy_to_host(bytes.data(), less.data(), n);
  const std::vector<float> smaller = jet::array<float>(jet::where(less, x, y)).to_host();
  const auto count = jet::eval(less + at_least);  // arithmetic on bool is int32
  STATIC_REQUIRE(std::is_same_v<decltype(count), const jet::array<std::int32_t>>);
  const std::vector<std::int32_t> counted = count.to_host();
  const std::vector<bool> both = jet::array<bool>(jet::min(less, every_third)).to_host();  // min of bools: and
  std::size_t bad = 0;
  for (std::size_t k = 0; k < n; ++k) {
    bad += bytes[k] > 1;  // a bool is stored as 0 or 1
    bad += got_less[k] != (hx[k] < hy[k]) || got_at_least[k] != (hx[k] >= hy[k]);
    bad += smaller[k] != std::min(hx[k], hy[k]);
    bad += counted[k] != 1;
    bad += both[k] != (hx[k] < hy[k] && k % 3 == 0);
  }
  CHECK(bad == 0);
}

TEST_CASE("narrow and unsigned integer arithmetic wraps in its own type", "[gpu][dtype]") {
  const std::size_t n = 3 * 4096 + 7;
  const auto ha = random_vector<std::int8_t>(n, -128, 127, fresh_seed() + 21);
  const auto hb = random_vector<std::int8_t>(n, -128, 127, fresh_seed() + 22);
  auto hu = random_vector<std::uint8_t>(n, 0, 255, fresh_seed() + 23);
  hu[0] = 0;  // 0 - 1 wraps to 255
  jet::array<std::int8_t> a = jet::from_host(ha), b = jet::from_host(hb);
  jet::array<std::uint8_t> u = jet::from_host(hu);
  const std::vector<std::int8_t> sum = jet::eval(a + b).to_host(), product = jet::eval(a * b).to_host(),
                                 negated = jet::eval(-a).to_host(), scaled = jet::eval(a * 300).to_host();
  const std::vector<std::uint8_t> decremented = jet::eval(u - 1).to_host();
  const std::vector<std::int16_t> widened = jet::eval(a + u).to_host();  // int8 + uint8 is int16: no wrap
  const std::vector<std::uint32_t> below_zero = jet::eval(jet::cast<std::uint32_t>(u) - 256u).to_host();
  std::size_t bad = 0;
  for (std::size_t k = 0; k < n; ++k) {
    bad += sum[k] != static_cast<std::int8_t>(ha[k] + hb[k]);  // C++20: conversion is modulo 2^8
    bad += product[k] != static_cast<std::int8_t>(ha[k] * hb[k]);
    bad += negated[k] != static_cast<std::int8_t>(-ha[k]);                                // -(-128) is -128
    bad += scaled[k] != static_cast<std::int8_t>(ha[k] * static_cast<std::int8_t>(300));  // 300 is 44 as int8
    bad += decremented[k] != static_cast<std::uint8_t>(hu[k] - 1);
    bad += widened[k] != ha[k] + hu[k];
    bad += below_zero[k] != static_cast<std::uint32_t>(hu[k]) - 256u;
  }
  CHECK(bad == 0);
  CHECK(decremented[0] == 255);
}

TEST_CASE("an output that is an input is read and written in place", "[gpu][alias]") {
  const std::size_t n = (1 << 20) + 3;
  const auto hx = random_vector<float>(n, -3, 3, fresh_seed() + 7),
             hy = random_vector<float>(n, -3, 3, fresh_seed() + 8);
  jet::array<float> x = jet::from_host(hx), y = jet::from_host(hy);
  x = x + y;
  std::vector<float> got = x.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += got[i] != hx[i] + hy[i];
  CHECK(bad == 0);
  y = y * y - y;  // one input, used three times, and the output (contracted to an fma)
  got = y.to_host();
  bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += !close(got[i], double(hy[i]) * hy[i] - hy[i], 4e-6, 1e-7);
  CHECK(bad == 0);
}

TEST_CASE("views run on foreign memory, aligned or not, and overlapping outputs are safe", "[gpu][view]") {
  const std::size_t n = 3 * 4096 + 17;
  const auto hx = random_vector<float>(n, -3, 3, fresh_seed() + 9);
  foreign_buffer buffer(n * sizeof(float));
  jet::detail::copy_to_device(buffer.as<float>(), hx.data(), n * sizeof(float));
  jet::view<float> whole(buffer.as<float>(), n);

  SECTION("aligned: the vector path") {
    jet::array<float> z = jet::from_host(std::vector<float>(n, poison<float>()));
    z = whole * 2.f + 1.f;
    const auto got = z.to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += got[i] != hx[i] * 2.f + 1.f;
    CHECK(bad == 0);
  }
  SECTION("misaligned by one element: the scalar path") {
    jet::view<float> tail(buffer.as<float>() + 1, n - 1);
    jet::array<float> z = jet::from_host(std::vector<float>(n - 1, poison<float>()));
    z = tail - 0.5f;
    const auto got = z.to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) bad += got[i] != hx[i + 1] - 0.5f;
    CHECK(bad == 0);
  }
  SECTION("output overlapping its input at another offset") {
    jet::view<float> head(buffer.as<float>(), n - 1), shifted(buffer.as<float>() + 1, n - 1);
    shifted = head + 1.f;  // x[1:] = x[:-1] + 1 must read the old x
    const auto got = whole.to_host();
    std::size_t bad = got[0] != hx[0];
    for (std::size_t i = 1; i < n; ++i) bad += got[i] != hx[i - 1] + 1.f;
    CHECK(bad == 0);
  }
  SECTION("writing into a view writes the foreign memory") {
    whole = whole * whole;
    const auto got = whole.to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += got[i] != hx[i] * hx[i];
    CHECK(bad == 0);
  }
}

TEST_CASE("a repeat evaluation is a cache hit, and new scalars or lengths never recompile", "[gpu][cache]") {
  auto x = jet::from_host(random_vector<float>(5000, -1, 1, fresh_seed() + 10));
  jet::array<float> z(5000);
  z = x * 1.25f + 0.5f;  // warm: compiled at most once
  const auto warm = jet::stats();
  z = x * 1.25f + 0.5f;
  z = x * -3.f + 7.f;
  auto big = jet::from_host(random_vector<float>(70001, -1, 1, fresh_seed() + 11));
  jet::array<float> zb(70001);
  zb = big * 2.f + 1.f;
  const auto after = jet::stats();
  CHECK(after.compiles == warm.compiles);
  CHECK(after.memory_hits - warm.memory_hits == 3);
  CHECK(after.launches - warm.launches == 3);
  const auto got = zb.to_host();
  CHECK(got[70000] == big.to_host()[70000] * 2.f + 1.f);
}

TEST_CASE("an evaluation repeated with a new scalar, view shape or output computes the new values",
          "[gpu][cache][memo]") {
  constexpr std::size_t n = 4099;
  const auto hx = random_vector<float>(n, -1, 1, fresh_seed() + 12);
  auto x = jet::from_host(hx);
  jet::array<float> z(n), w(n);
  std::size_t wrong = 0;
  const auto expect = [&](const std::vector<float>& got, std::size_t count, float scale) {
    for (std::size_t i = 0; i < count; ++i) wrong += got[i] != (hx[i] + 1.f) * scale;
  };
  for (int round = 0; round < 2; ++round) {  // the second round repeats every evaluation of the first
    for (float scale : {2.f, 3.f, 3.f, -0.5f}) {
      z = (x + 1.f) * scale;
      expect(z.to_host(), n, scale);
    }
    w = jet::from_host(std::vector<float>(n, std::nanf("")));
    w = (x + 1.f) * 3.f;  // another output
    expect(w.to_host(), n, 3.f);
    for (std::size_t count : {n, std::size_t{17}, n - 1, std::size_t{17}}) {  // views of one memory, built afresh
      jet::view<float> out(z.data(), count);
      out = (jet::view<float>(x.data(), count) + 1.f) * 2.f;
      expect(z.to_host(), count, 2.f);
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("8 threads evaluating the same 100 expressions compile each kernel once", "[gpu][cache][threads]") {
  // x in [0.5, 2] and y in [3, 4]: every inner(x) + y lies in [1, 12], so no result cancels or
  // overflows, and float32 stays close to the float64 reference.
  fresh_cache_and_operands t(4099, {0.5, 2}, {3, 4}, 14);
  const host_inputs& h = t.h;
  const std::size_t n = t.n;
  // Each evaluation returns how many of its sampled elements differ from the reference.
  std::vector<std::function<std::size_t()>> evaluations;
  jet::test::for_each_numbered_expression<jet::test::numbered_expression_count>(
      jet::view<float>(t.x), jet::view<float>(t.y), [&](std::size_t, const auto& e) {
        evaluations.push_back([&h, e, n] {
          const std::vector<float> got = jet::array<float>(e).to_host();
          std::size_t bad = 0;
          for (std::size_t i = 0; i < n; i += 97)
            bad += !close(got[i], reference(e, i, h), jet::test::rtol<float>(), 1e-5);
          return bad;
        });
      });
  const auto before = jet::stats();
  std::atomic<std::size_t> mismatches{0}, failures{0};
  {
    std::vector<std::jthread> threads;
    // Each thread in its own order: at any moment, threads on the same kernel and on others.
    for (std::size_t t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        for (std::size_t i = 0; i < evaluations.size(); ++i) {
          try {
            mismatches += evaluations[(i + 13 * t) % evaluations.size()]();
          } catch (const std::exception& e) {
            std::printf("  thread %zu: %s\n", t, e.what());
            ++failures;
          }
        }
      });
  }
  CHECK(failures == 0);
  CHECK(mismatches == 0);
  const auto after = jet::stats();
  CHECK(after.compiles - before.compiles == evaluations.size());
  CHECK(after.disk_writes - before.disk_writes == evaluations.size());
  CHECK(after.launches - before.launches == 8 * evaluations.size());
}

TEST_CASE("a kernel that jet::compile stored on disk is loaded from there and runs", "[gpu][cache]") {
  fresh_cache_and_operands t(70001, {-2, 2}, {-2, 2}, 16);
  const auto e = jet::relu(t.x) * 3.5f - t.y;
  REQUIRE_FALSE(jet::compile(e, jet::current_device().arch).from_disk_cache);  // the same source and arch
  const auto before = jet::stats();
  CHECK(check_against_reference(e, t.n, t.h, 1e-6) == 0);
  const auto after = jet::stats();
  CHECK(after.disk_hits - before.disk_hits == 1);
  CHECK(after.compiles == before.compiles);
  CHECK(after.launches - before.launches == 1);
}

TEST_CASE("jet::precompile readies kernels before their first evaluation", "[gpu][cache]") {
  fresh_cache_and_operands t(5003, {-2, 2}, {-2, 2}, 18);
  const auto a = jet::abs(t.x) * t.y + 0.25f;
  const auto b = jet::max(t.x, t.y) - t.x * t.y;
  const auto c = jet::sigmoid(t.x - t.y) * 2.0f;
  const auto before = jet::stats();
  jet::precompile(a, b, c);
  const auto ready = jet::stats();
  CHECK(ready.compiles - before.compiles == 3);
  CHECK(ready.launches == before.launches);
  CHECK(check_against_reference(a, t.n, t.h, 1e-6) == 0);
  CHECK(check_against_reference(b, t.n, t.h, 1e-6) == 0);
  CHECK(check_against_reference(c, t.n, t.h, 1e-6) == 0);
  const auto after = jet::stats();
  CHECK(after.compiles == ready.compiles);
  CHECK(after.memory_hits - ready.memory_hits == 3);
  CHECK(after.launches - ready.launches == 3);
}

TEST_CASE("temporaries in an expression stay alive until it is evaluated", "[gpu][expr]") {
  const auto hx = random_vector<float>(4096, -1, 1, fresh_seed() + 12);
  auto y = jet::from_host(random_vector<float>(4096, -1, 1, fresh_seed() + 13));
  auto e = jet::from_host(hx) + y;  // the array from from_host is owned by e
  jet::array<float> z = e;
  const auto got = z.to_host(), hy = y.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < 4096; ++i) bad += got[i] != hx[i] + hy[i];
  CHECK(bad == 0);
}

TEST_CASE("arrays are move-only, clone copies, assignment resizes", "[gpu][array]") {
  auto x = jet::from_host(std::vector<double>{1, 2, 3});
  jet::array<double> y = x.clone();
  jet::array<double> moved = std::move(x);
  CHECK(x.size() == 0);
  CHECK(moved.to_host() == std::vector<double>{1, 2, 3});
  jet::array<double> z(1);
  z = y * 2.0;
  CHECK(z.to_host() == std::vector<double>{2, 4, 6});
}

TEST_CASE("out of memory is a clear error and the process stays usable", "[gpu][errors]") {
  try {
    jet::array<float> huge(std::size_t{1} << 40);
    FAIL("no exception");
  } catch (const jet::out_of_memory& e) {
    CHECK(e.bytes == (std::size_t{1} << 42));
    CHECK(std::string(e.what()).find(std::to_string(std::size_t{1} << 42)) != std::string::npos);
  }
  auto x = jet::from_host(std::vector<float>{1, 2, 3});
  jet::array<float> z = x + x;
  CHECK(z.to_host() == std::vector<float>{2, 4, 6});
}

TEST_CASE("the device is described", "[gpu][device]") {
  const jet::device_info d = jet::current_device();
  CHECK(d.arch.value >= 70);
  CHECK(d.multiprocessors > 0);
  CHECK_FALSE(d.name.empty());
  std::printf("device: %s, sm_%d, %d SMs\n", d.name.c_str(), d.arch.value, d.multiprocessors);
}
