// Checking a GPU evaluation against the host reference: fresh random data (seed printed), a
// poisoned output, every element compared.
#pragma once

#include "reference.hpp"

#include <jet/jet.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace jet::test {

/// A fresh seed every run, printed so that a failure can be replayed (JET_TEST_SEED=<seed>).
inline std::uint64_t fresh_seed() {
  static const std::uint64_t s = [] {
    const char* fixed = std::getenv("JET_TEST_SEED");
    const std::uint64_t v = fixed ? std::strtoull(fixed, nullptr, 10) : std::random_device{}();
    std::printf("jet GPU tests: random seed %llu\n", static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}

/// How a result of type R is read back: a bool as its byte, so that anything but 0 or 1 (the
/// poison, or a kernel's bug) shows.
template <class R> using readback_t = std::conditional_t<std::is_same_v<R, bool>, std::uint8_t, R>;

/// A floating reference value as an output of dtype R holds it: rounded to R (through float32 for
/// a 16-bit float, as a kernel stores it), so that a value past R's range is its infinity.
template <class R> long double stored_as(long double v) {
  if constexpr (std::is_same_v<R, double>)
    return static_cast<double>(v);
  else if constexpr (is_floating(dtype_of<R>()))
    return static_cast<long double>(static_cast<float>(static_cast<R>(static_cast<float>(v))));
  else
    return v;
}

/// Evaluates e into a poisoned output of e's shape (and dtype, or Out) and compares every element
/// with the host reference. Returns the number of mismatches and prints the first few.
template <class Out = void, class E> std::size_t check_against_reference(const E& e, std::size_t n,
                                                                         const host_inputs& h, double atol = 0,
                                                                         double least_rtol = 0) {
  using R = std::conditional_t<std::is_void_v<Out>, jet::cpp_type<std::remove_cvref_t<E>::type>, Out>;
  using B = readback_t<R>;
  const jet::shape s = jet::detail::bound_one<R, std::remove_cvref_t<E>>(e).shape();
  REQUIRE(s.size() == n);
  jet::array<R> out(s);
  const std::vector<B> poisoned(n, poison<B>());
  jet::detail::copy_to_device(out.data(), poisoned.data(), n * sizeof(R));
  out = e;
  REQUIRE(out.shape() == s);
  std::vector<B> got(n);
  jet::detail::copy_to_host(got.data(), out.data(), n * sizeof(R));
  std::atomic<std::size_t> mismatches{0};
  parallel_for(
      n,
      [&](std::size_t i) {
        const long double ref = stored_as<R>(reference(e, i, h, &s));
        if (!close(got[i], ref, std::max(rtol<R>(), least_rtol), atol) && mismatches++ < 5)
          std::printf("  element %zu of %zu: got %.17Lg, reference %.17Lg\n", i, n, static_cast<long double>(got[i]),
                      ref);
      },
      65536);
  return mismatches;
}

/// A device array of shape s with random values in [-2, 2], recorded in h for the reference.
template <class T> jet::array<T> random_device_array(const jet::shape& s, host_inputs& h, std::uint64_t salt) {
  const auto values = random_vector<T>(s.size(), -2, 2, fresh_seed() + 7919 * salt + s.size());
  jet::array<T> a = jet::from_host(values, s);
  h.add(a.data(), values);
  return a;
}

/// A device array of shape s, every element the poison.
template <class T> jet::array<T> poisoned_array(const jet::shape& s) {
  return jet::from_host(std::vector<T>(s.size(), poison<T>()), s);
}

// Evaluates out = e, where out views part of `backing` (poisoned), then checks every element of
// out against the host reference and every other element of backing still poisoned.
template <class T, class E> std::size_t check_into_view(const jet::array<T>& backing, jet::view<T> out, const E& e,
                                                        const host_inputs& h, double atol) {
  const jet::shape s = out.shape();
  out = e;
  const std::vector<T> got = backing.to_host();
  std::vector<bool> viewed(got.size());
  std::size_t bad = 0;
  const std::int64_t origin = out.data() - backing.data();
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto at = static_cast<std::size_t>(origin + offset_of(out.layout(), i, nullptr));
    viewed[at] = true;
    const long double ref = reference(e, i, h, &s);
    if (!close(static_cast<long double>(got[at]), ref, rtol<T>(), atol) && bad++ < 5)
      std::printf("  element %zu of %s: got %.17Lg, reference %.17Lg\n", i, s.to_string().c_str(),
                  static_cast<long double>(got[at]), ref);
  }
  for (std::size_t k = 0; k < got.size(); ++k)
    if (!viewed[k] && static_cast<long double>(got[k]) != static_cast<long double>(poison<T>()) && bad++ < 5)
      std::printf("  element %zu of the backing array, outside the output, was written\n", k);
  return bad;
}

}  // namespace jet::test
