// A receiver's first steps on a complex baseband signal, as a signal-processing user writes them:
// two tones in noise, mixed down by a local oscillator (x * exp(-2πi f t), with jet::arange as
// t), windowed (Hann), transformed (jet::fft) and taken as a power spectrum in dB. The strongest
// bin must be the strong tone's frequency less the oscillator's, the second strongest the weak
// tone's, and the weak tone must stand at its known level (-40 dB) within a decibel.
//
//   spectrum [log2 n]     (default 2^20 samples; exits 77 with no GPU, 1 when a peak is wrong)
#include <jet/jet.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::string reason;
  if (!jet::device_available(&reason)) {
    std::fprintf(stderr, "spectrum: cannot run: %s\n", reason.c_str());
    return 77;
  }
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 20;
  if (log2n < 8 || log2n > 28) {
    std::fprintf(stderr, "spectrum: log2 n must be in [8, 28], not %d\n", log2n);
    return 2;
  }
  const std::int64_t n = std::int64_t{1} << log2n;
  const double rate = 1.0e6;            // samples per second
  const double bin = rate / double(n);  // the spectrum's resolution, Hz
  const std::int64_t strong_bin = n / 8 + 3, weak_bin = n - n / 5, oscillator_bin = n / 64;
  const double two_pi = 2 * std::numbers::pi;
  using cf = std::complex<float>;

  // The received signal: a strong tone, a weak one 40 dB below it (at a negative frequency), and
  // complex noise at about -87 dB per sample, generated on the device in one kernel.
  const auto t = jet::cast<double>(jet::arange(n)) / rate;
  const auto tone = [&](double amplitude, std::int64_t at) {
    return jet::polar(amplitude, two_pi * double(at) * bin * t);
  };
  jet::array<cf> x =
      jet::cast<cf>(tone(1.0, strong_bin) + tone(0.01, weak_bin)) +
      3e-5f * jet::make_complex(jet::random_normal(jet::shape{n}, 1), jet::random_normal(jet::shape{n}, 2));

  // Mixed down, windowed and transformed: the mixer and the window fuse into the FFT's input.
  const auto hann = 0.5 - 0.5 * jet::cos(two_pi * jet::cast<double>(jet::arange(n)) / double(n));
  const auto mixed = x * jet::cast<cf>(jet::polar(1.0, -two_pi * double(oscillator_bin) * bin * t));
  const jet::array<cf> spectrum = jet::fft(mixed * jet::cast<float>(hann));
  // Power in dB relative to a full-scale tone (a Hann window's coherent gain is n / 2).
  const float full_scale = float(n) * float(n) / 4;
  const jet::array<float> decibels = 10.f * jet::log10(jet::abs2(spectrum) / full_scale + 1e-30f);

  const std::vector<float> db = decibels.to_host();
  const auto strongest = std::max_element(db.begin(), db.end()) - db.begin();
  const std::int64_t want_strong = (strong_bin - oscillator_bin + n) % n,
                     want_weak = (weak_bin - oscillator_bin + n) % n;
  // The weak tone: the strongest bin at least 3 bins from the strong one (its window's main lobe).
  std::int64_t weak = -1;
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t distance = std::min((k - strongest + n) % n, (strongest - k + n) % n);
    if (distance >= 3 && (weak < 0 || db[k] > db[weak])) weak = k;
  }
  std::printf("spectrum: n = %lld, resolution %.3f Hz\n", static_cast<long long>(n), bin);
  std::printf("  strongest bin %lld (%.1f Hz, %.2f dB), expected bin %lld\n", static_cast<long long>(strongest),
              double(strongest) * bin, db[strongest], static_cast<long long>(want_strong));
  std::printf("  second tone bin %lld (%.1f Hz, %.2f dB), expected bin %lld at -40 dB\n", static_cast<long long>(weak),
              double(weak > n / 2 ? weak - n : weak) * bin, db[weak], static_cast<long long>(want_weak));
  const bool ok = strongest == want_strong && weak == want_weak && std::fabs(db[strongest]) < 0.1f &&
                  std::fabs(db[weak] + 40.f) < 1.f;
  std::printf("spectrum: %s\n", ok ? "peaks where the tones are" : "WRONG PEAKS");
  return ok ? 0 : 1;
}
