// The interpreter's benchmarks (interpreter_bench.cpp).
#pragma once

namespace bench {

/// The interpreter (README, "First results without waiting for the compiler"). INTERP lines:
////   kind=first_result   a never-seen expression at 2^20 elements under async, the interpreter loaded;
////   kind=bandwidth      interpreter and compiled kernel at 2^28 float32 for chains of 1..32 ops;
////   kind=distinct       1,000 distinct run-time expressions once each at 2^20, async against sync
////                       (sync timed on the first JET_BENCH_SYNC_EXPRESSIONS of another 1,000, 100
////                       unless set, and scaled to 1,000), with no disk cache.
/// The first results (kind=interpreter_load, first_result, first_result_complex,
/// first_result_real_mixer, distinct).
void interpreter_first_results();
/// Interpreter and compiled kernel bandwidth (kind=bandwidth).
void interpreter_bandwidth();

}  // namespace bench
