// On the GPU: the integer cases C++ leaves undefined give what README's "Ops" table says, for
// every pair of extreme operands, and floating values convert to integers saturating, NaN to 0,
// whether by cast or by storing into an integer array. Expected values are the host references'
// (tests/test_integer_semantics.cpp pins those to the table) and a few literal ones.
#include "support/catch.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

namespace {

template <class T> constexpr T lowest = std::numeric_limits<T>::lowest();
template <class T> constexpr T highest = std::numeric_limits<T>::max();

template <class T> std::vector<T> extremes() {
  return {lowest<T>, T(lowest<T> + 1), T(-7), T(-2), T(-1), T(0), T(1), T(2), T(7), T(highest<T> - 1), highest<T>};
}

// Counts the elements where got differs from want(i), printing the first few.
template <class T, class F> std::size_t differences(const char* what, const std::vector<T>& got, F want) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want(i) && bad++ < 5)
      std::printf("  %s, element %zu: got %lld, want %lld\n", what, i, static_cast<long long>(got[i]),
                  static_cast<long long>(want(i)));
  return bad;
}

// Every op that can overflow or divide, on every pair of extreme operands.
template <class T> void check_integer_ops() {
  const std::vector<T> values = extremes<T>();
  std::vector<T> ha, hb;
  for (T a : values)
    for (T b : values) ha.push_back(a), hb.push_back(b);
  const jet::array<T> a = jet::from_host(ha), b = jet::from_host(hb);
  namespace ops = jet::ops;
  auto want2 = [&](auto op) { return [&, op](std::size_t i) { return decltype(op)::reference(ha[i], hb[i]); }; };
  auto want1 = [&](auto op) { return [&, op](std::size_t i) { return decltype(op)::reference(ha[i]); }; };
  CHECK(differences("a + b", jet::array<T>(a + b).to_host(), want2(ops::add{})) == 0);
  CHECK(differences("a - b", jet::array<T>(a - b).to_host(), want2(ops::sub{})) == 0);
  CHECK(differences("a * b", jet::array<T>(a * b).to_host(), want2(ops::mul{})) == 0);
  CHECK(differences("a / b", jet::array<T>(a / b).to_host(), want2(ops::div{})) == 0);
  CHECK(differences("-a", jet::array<T>(-a).to_host(), want1(ops::neg{})) == 0);
  CHECK(differences("abs(a)", jet::array<T>(jet::abs(a)).to_host(), want1(ops::abs{})) == 0);
  // Fused into a wider type in the same kernel, each result wraps in T before it widens: the GPU
  // fuzzer's case 6666222191528794832 (tests/README.md) widened abs of int16's lowest to +32768.
  using wide = std::int64_t;
  auto widened = [](auto want) { return [want](std::size_t i) { return static_cast<wide>(want(i)); }; };
  CHECK(differences("cast<int64_t>(abs(a))", jet::array<wide>(jet::cast<wide>(jet::abs(a))).to_host(),
                    widened(want1(ops::abs{}))) == 0);
  CHECK(differences("cast<int64_t>(-a)", jet::array<wide>(jet::cast<wide>(-a)).to_host(), widened(want1(ops::neg{}))) ==
        0);
  CHECK(differences("cast<int64_t>(a + b)", jet::array<wide>(jet::cast<wide>(a + b)).to_host(),
                    widened(want2(ops::add{}))) == 0);
  CHECK(differences("cast<int64_t>(a - b)", jet::array<wide>(jet::cast<wide>(a - b)).to_host(),
                    widened(want2(ops::sub{}))) == 0);
  CHECK(differences("cast<int64_t>(a * b)", jet::array<wide>(jet::cast<wide>(a * b)).to_host(),
                    widened(want2(ops::mul{}))) == 0);
  CHECK(differences("cast<int64_t>(a / b)", jet::array<wide>(jet::cast<wide>(a / b)).to_host(),
                    widened(want2(ops::div{}))) == 0);
  // Converted to float64 in the same kernel, abs(lowest) stays negative where a floating op tests
  // its sign: the GPU fuzzer's case 18154564470890906082 (tests/README.md) made exp of abs of the
  // lowest int64 +inf, not 0. exp(x) of the host within 4 ulp (0 and inf exactly).
  const std::vector<double> exps = jet::array<double>(jet::exp(jet::cast<double>(jet::abs(a)))).to_host();
  std::size_t wrong_exps = 0;
  for (std::size_t i = 0; i < exps.size(); ++i) {
    const double want = std::exp(static_cast<double>(want1(ops::abs{})(i)));
    const bool close =
        exps[i] == want ||
        (std::isfinite(want) && std::fabs(exps[i] - want) <= 4 * std::numeric_limits<double>::epsilon() * want);
    if (!close && wrong_exps++ < 5)
      std::printf("  exp(cast<double>(abs(a))), element %zu: got %.17g, want %.17g\n", i, exps[i], want);
  }
  CHECK(wrong_exps == 0);
  // Fused: a quotient of a wrapped product is not simplified back to a.
  CHECK(differences("(a * b) / b", jet::array<T>((a * b) / b).to_host(),
                    [&](std::size_t i) { return ops::div::reference(ops::mul::reference(ha[i], hb[i]), hb[i]); }) == 0);
  const auto quotient =
      jet::array<T>(jet::from_host(std::vector<T>{lowest<T>, 5, -5, 0}) / jet::from_host(std::vector<T>{-1, 0, 2, 0}))
          .to_host();
  CHECK(quotient == std::vector<T>{lowest<T>, 0, -2, 0});
}

template <class F> std::vector<F> floating_extremes() {
  const F inf = std::numeric_limits<F>::infinity();
  std::vector<F> v = {std::numeric_limits<F>::quiet_NaN(),
                      inf,
                      -inf,
                      F(0),
                      F(-0.0),
                      F(0.5),
                      F(-0.5),
                      F(2.7),
                      F(-2.7),
                      std::numeric_limits<F>::denorm_min(),
                      std::numeric_limits<F>::max(),
                      lowest<F>,
                      F(1e30),
                      F(-1e30)};
  // Around 2^31 and 2^63, the ends of int32 and int64.
  for (int e : {31, 63})
    for (F x : {std::ldexp(F(1), e), -std::ldexp(F(1), e)})
      v.insert(v.end(), {x, std::nextafter(x, F(0)), std::nextafter(x, x * 2)});
  return v;
}

template <class To, class From> void check_conversions() {
  const std::vector<From> hx = floating_extremes<From>();
  const jet::array<From> x = jet::from_host(hx);
  auto want = [&](std::size_t i) { return jet::host::convert<To>(hx[i]); };
  CHECK(differences("cast", jet::array<To>(jet::cast<To>(x)).to_host(), want) == 0);
  jet::array<To> stored(hx.size());
  stored = x * From(1);  // a floating expression stored into an integer array
  CHECK(differences("store", stored.to_host(), want) == 0);
  // The saturated value is an ordinary integer afterwards: highest + 1 wraps.
  CHECK(differences("cast + 1", jet::array<To>(jet::cast<To>(x) + To(1)).to_host(),
                    [&](std::size_t i) { return jet::host::add<To>(want(i), 1); }) == 0);
}

}  // namespace

TEST_CASE("integer ops wrap, x / 0 is 0 and lowest / -1 is lowest, on the GPU", "[gpu][semantics][sanitize]") {
  check_integer_ops<std::int8_t>();
  check_integer_ops<std::int16_t>();
  check_integer_ops<std::int32_t>();
  check_integer_ops<std::int64_t>();
}

TEST_CASE("floating to integer conversions saturate and take NaN to 0, on the GPU", "[gpu][semantics][sanitize]") {
  check_conversions<std::int32_t, float>();
  check_conversions<std::int32_t, double>();
  check_conversions<std::int64_t, float>();
  check_conversions<std::int64_t, double>();
  const std::vector<float> special = {std::nanf(""), 3e9f, -3e9f, -2.7f};
  const auto got = jet::array<std::int32_t>(jet::cast<std::int32_t>(jet::from_host(special))).to_host();
  CHECK(got == std::vector<std::int32_t>{0, highest<std::int32_t>, lowest<std::int32_t>, -2});
}

TEST_CASE("operands converted to integers saturate and take NaN to 0; narrower integers wrap, on the GPU",
          "[gpu][semantics][sanitize]") {
  // The GPU fuzzer's first run (tests/README.md): philox_uniform's int64 counter and seed, from
  // floating operands, were plain conversions, which took NaN to the lowest int64 instead of 0.
  const std::vector<double> hd = floating_extremes<double>();
  const std::vector<float> hf = floating_extremes<float>();
  REQUIRE(hd.size() == hf.size());
  const jet::array<double> d = jet::from_host(hd);
  const jet::array<float> f = jet::from_host(hf);
  const std::vector<float> random = jet::array<float>(jet::philox_uniform(d, f)).to_host();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < hd.size(); ++i) {
    const float want =
        jet::host::philox_uniform(jet::host::convert<std::int64_t>(hd[i]), jet::host::convert<std::int64_t>(hf[i]));
    if (random[i] != want && wrong++ < 5)
      std::printf("  philox_uniform, element %zu: got %.9g, want %.9g\n", i, random[i], want);
  }
  CHECK(wrong == 0);

  // int64 into int32 and int8 wraps, stored or cast (the fuzzer's out = max(c, c), and cast<int32_t> of an int64).
  std::vector<std::int64_t> hl = extremes<std::int64_t>();
  hl.insert(hl.end(), {10000000000, std::int64_t{1} << 31, -(std::int64_t{1} << 31) - 1, 300, -300});
  const jet::array<std::int64_t> l = jet::from_host(hl);
  jet::array<std::int32_t> stored(hl.size());
  stored = jet::max(l, l);
  auto wrapped = [&](auto narrow) {
    return [&, narrow](std::size_t i) { return static_cast<decltype(narrow)>(hl[i]); };
  };
  CHECK(differences("stored into int32", stored.to_host(), wrapped(std::int32_t{})) == 0);
  CHECK(differences("cast<int32_t>", jet::array<std::int32_t>(jet::cast<std::int32_t>(l)).to_host(),
                    wrapped(std::int32_t{})) == 0);
  CHECK(differences("cast<int8_t>", jet::array<std::int8_t>(jet::cast<std::int8_t>(l)).to_host(),
                    wrapped(std::int8_t{})) == 0);
  // Saturated, then wrapped: cast<int32_t>(cast<int64_t>(1e10)) is 1e10 mod 2^32.
  const auto chained = jet::array<std::int32_t>(jet::cast<std::int32_t>(jet::cast<std::int64_t>(d))).to_host();
  CHECK(differences("cast<int32_t>(cast<int64_t>(x))", chained, [&](std::size_t i) {
          return static_cast<std::int32_t>(jet::host::convert<std::int64_t>(hd[i]));
        }) == 0);
}
