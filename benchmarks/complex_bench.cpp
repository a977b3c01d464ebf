#include "complex_bench.hpp"

#include "timing.hpp"

#include <jet/jet.hpp>

#include <complex>
#include <cstddef>
#include <cstdint>

namespace bench {

void complex_and_fft() {
  using cf = std::complex<float>;
  const auto complex_normal = [](std::size_t n, std::int64_t seed) {
    const jet::shape s{static_cast<std::int64_t>(n)};
    return jet::array<cf>(jet::make_complex(jet::random_normal(s, seed), jet::random_normal(s, seed + 1)));
  };
  {
    const std::size_t n = std::size_t{1} << 27;
    jet::array<cf> a = complex_normal(n, 20), b = complex_normal(n, 22), c = complex_normal(n, 24), out(n);
    report("jet", "complex_fma", "complex64", n, median_ms([&] { out = a * b + c; }, 20), 4.0 * double(n) * 8);
  }
  const std::size_t m = std::size_t{1} << 24;
  jet::array<cf> x = complex_normal(m, 30);
  jet::array<float> w = jet::random_normal(jet::shape{static_cast<std::int64_t>(m)}, 32);
  jet::array<float> power(m);
  report("jet", "fft", "complex64", m, median_ms([&] { (void)jet::fft(x); }, 20), 2.0 * double(m) * 8);
  // One operand and a scalar: with JET_FFT_CALLBACKS=on, the callback's cost apart from a second operand's.
  report("jet", "fft_scaled", "complex64", m, median_ms([&] { (void)jet::fft(x * 1.5f); }, 20), 16.0 * double(m));
  report("jet", "fft_product", "complex64", m, median_ms([&] { (void)jet::fft(x * w); }, 20), 20.0 * double(m));
  report("jet", "spectrum", "complex64", m, median_ms([&] { power = jet::abs2(jet::fft(x * w)); }, 20),
         20.0 * double(m));
  // The same points as 4096 transforms of 4096, each done by one cuFFT kernel (where a callback
  // costs no extra pass), against the one long transform's several.
  const jet::shape rows{4096, 4096};
  const auto xr = x.reshape(rows);
  const auto wr = w.reshape(rows);
  report("jet", "fft_rows", "complex64", m, median_ms([&] { (void)jet::fft(xr); }, 20), 2.0 * double(m) * 8);
  report("jet", "fft_rows_product", "complex64", m, median_ms([&] { (void)jet::fft(xr * wr); }, 20), 20.0 * double(m));
}

}  // namespace bench
