// Complex values and FFTs in jet (complex_bench.cpp), for issue 21's goals.
#pragma once

namespace bench {

/// Complex values and FFTs (issue 21's goals): complex64 a * b + c at 2^27 elements (four arrays of
/// 8-byte elements moved), fft of 2^24 complex64 points (read and written once) and the spectrum
/// abs2(fft(x * w)) of 2^24 points (x read, w float32 read, the float32 power written: 20 bytes a
/// point, what a fully fused form moves; jet also writes and reads the FFT's buffer and result);
/// the same points as 4096 transforms of 4096, alone and of x * w. Prints RESULT lines.
void complex_and_fft();

}  // namespace bench
