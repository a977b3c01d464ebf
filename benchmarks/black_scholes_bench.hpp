// Black-Scholes in jet and in hand-written CUDA (black_scholes_bench.cpp).
#pragma once

namespace bench {

/// Times examples/black_scholes.hpp's formula at 4,000,000, 2^24 and 2^26 options: jet, and the
/// hand-written CUDA kernel too unless `jet_only`. Prints RESULT lines (expr=black_scholes) and
/// BLACKSCHOLES lines: jet's cold compile, its launches per evaluation, the transcendental calls.
void black_scholes(bool jet_only);

}  // namespace bench
