// On the GPU: shared subexpressions (include/jet/detail/sharing.hpp). A formula whose repeats
// hold computes each once and gives the bits of the same formula over copies of its operands,
// where nothing is shared; both agree with the host reference.
#include "support/catch.hpp"
#include "support/gpu_check.hpp"

#include <jet/jet.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

// A Black-Scholes call: d1 and d2 written as sub-expressions and used several times. d2 is made
// of s2, x2, t2: the same arrays as s, x, t (then d1 is computed once), or copies of them.
template <class A> auto call_price(const A& s, const A& x, const A& t, const A& s2, const A& x2, const A& t2) {
  const float r = 0.02f, v = 0.30f;
  const auto d1_of = [&](const A& s_, const A& x_, const A& t_) {
    return (jet::log(s_ / x_) + (r + 0.5f * v * v) * t_) / (v * jet::sqrt(t_));
  };
  const auto d1 = d1_of(s, x, t);
  const auto d2 = d1_of(s2, x2, t2) - v * jet::sqrt(t2);
  const auto cnd = [](const auto& d) {
    return 0.5f * (1.0f + jet::tanh(0.7978845608f * (d + 0.044715f * d * jet::abs(d))));
  };
  return s * cnd(d1) - x * jet::exp(-r * t) * cnd(d2);
}

// n options in the sample's ranges, fresh from `seed`: on the host, and on the device through h
// (whose copies the host reference reads).
struct market {
  std::vector<float> hs, hx, ht;
  jet::array<float> s, x, t;
  market(std::size_t n, jet::test::host_inputs& h, std::uint64_t seed)
      : hs(jet::test::random_vector<float>(n, 5, 30, seed)),
        hx(jet::test::random_vector<float>(n, 1, 100, seed + 1)),
        ht(jet::test::random_vector<float>(n, 0.25, 10, seed + 2)),
        s(h.upload(hs)),
        x(h.upload(hx)),
        t(h.upload(ht)) {}
};

}  // namespace

TEST_CASE("shared subexpressions: the same bits as unshared, one launch, against the host", "[gpu][sharing]") {
  constexpr std::size_t n = 100003;
  jet::test::host_inputs h;
  const market m(n, h, jet::test::fresh_seed() + 1);
  const auto &hs = m.hs, &hx = m.hx, &ht = m.ht;
  const jet::array<float>&s = m.s, &x = m.x, &t = m.t;
  const jet::array<float> s2 = jet::from_host(hs), x2 = jet::from_host(hx), t2 = jet::from_host(ht);
  const jet::jit_policy policy = jet::get_jit_policy();
  jet::set_jit_policy(jet::jit_policy::sync);  // the compiled kernels, not the interpreter
  const auto launches = jet::stats().launches;
  const jet::array<float> shared = call_price(s, x, t, s, x, t);
  CHECK(jet::stats().launches - launches == 1);
  const jet::array<float> unshared = call_price(s, x, t, s2, x2, t2);
  jet::set_jit_policy(policy);
  CHECK(jet::test::check_against_reference(call_price(s, x, t, s, x, t), n, h, 1e-5) == 0);
  CHECK(shared.to_host() == unshared.to_host());
  // Repeats of one shape over other operands, and over other scalar values, stay apart.
  const jet::array<float> apart = jet::exp(s * 0.01f) + jet::exp(x * 0.01f) - jet::exp(s * 0.02f);
  const std::vector<float> got = apart.to_host();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double want = std::exp(hs[i] * 0.01) + std::exp(hx[i] * 0.01) - std::exp(hs[i] * 0.02);
    wrong += std::fabs(got[i] - want) > 1e-5 * std::fabs(want) + 1e-5;
  }
  CHECK(wrong == 0);
}

TEST_CASE("shared subexpressions across the outputs of one kernel (jet::tie)", "[gpu][sharing]") {
  constexpr std::size_t n = 4099;
  const auto ha = jet::test::random_vector<float>(n, -2, 2, jet::test::fresh_seed() + 4);
  const jet::array<float> a = jet::from_host(ha);
  jet::array<float> p(jet::shape{n}), q(jet::shape{n});
  const auto e = jet::exp(a * 0.5f);
  jet::tie(p, q) = jet::tuple(e + 1.0f, e * e);
  const std::vector<float> hp = p.to_host(), hq = q.to_host();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float ei = std::exp(ha[i] * 0.5f);
    wrong += std::fabs(hp[i] - (ei + 1.0f)) > 1e-5f * (ei + 1.0f) || std::fabs(hq[i] - ei * ei) > 1e-5f * ei * ei;
  }
  CHECK(wrong == 0);
}

TEST_CASE("the interpreter computes shared subexpressions once, with the compiled kernel's bits",
          "[gpu][sharing][interpreter]") {
  constexpr std::size_t n = 70001;
  jet::test::host_inputs h;
  const market m(n, h, jet::test::fresh_seed() + 5);
  const jet::array<float>&s = m.s, &x = m.x, &t = m.t;
  const jet::jit_policy policy = jet::get_jit_policy();
  jet::set_jit_policy(jet::jit_policy::sync);
  const jet::array<float> compiled = call_price(s, x, t, s, x, t);
  jet::set_jit_policy(jet::jit_policy::interpret);
  const jet::array<float> warm = s + 1.0f;  // loads the float32 interpreter (compiled or from the disk cache)
  jet::array<float> interpreted = jet::from_host(std::vector<float>(n, std::nanf("")));  // poisoned
  const jet::statistics before = jet::stats();
  interpreted = call_price(s, x, t, s, x, t);
  const jet::statistics after = jet::stats();
  jet::set_jit_policy(policy);
  CHECK(after.interpreted - before.interpreted == 1);
  CHECK(after.compiles == before.compiles);
  CHECK(interpreted.to_host() == compiled.to_host());
}

TEST_CASE("jet::let: named values give the bits of the formula written out, in one launch", "[gpu][sharing][let]") {
  constexpr std::size_t n = 50001;
  jet::test::host_inputs h;
  const market m(n, h, jet::test::fresh_seed() + 8);
  const jet::array<float>&s = m.s, &x = m.x, &t = m.t;
  const float r = 0.02f, v = 0.30f;
  const auto sqrt_t = jet::let(jet::sqrt(t));
  const auto d1 = jet::let((jet::log(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t));
  const auto d2 = jet::let(d1 - v * sqrt_t);
  const auto cnd = [](const auto& d) {
    return jet::let(0.5f * (1.0f + jet::tanh(0.7978845608f * (d + 0.044715f * d * jet::abs(d)))));
  };
  jet::array<float> named(jet::shape{n}), put(jet::shape{n});
  const jet::jit_policy policy = jet::get_jit_policy();
  jet::set_jit_policy(jet::jit_policy::sync);
  const auto launches = jet::stats().launches;
  const auto cnd1 = cnd(d1);
  const auto cnd2 = cnd(d2);
  jet::tie(named, put) =
      jet::tuple(s * cnd1 - x * jet::exp(-r * t) * cnd2, x * jet::exp(-r * t) * (1.0f - cnd2) - s * (1.0f - cnd1));
  CHECK(jet::stats().launches - launches == 1);
  const jet::array<float> written = call_price(s, x, t, s, x, t);
  jet::set_jit_policy(policy);
  CHECK(named.to_host() == written.to_host());
  CHECK(jet::test::check_against_reference(call_price(s, x, t, s, x, t), n, h, 1e-5) == 0);
}
