// An FFT's operand expression fused into cuFFT's loads: the source of an LTO load callback that
// computes each element the transform reads from the expression's operands, and the block of
// run-time values (pointers, strides, scalars) it reads them from. No driver, no cuFFT: the
// source compiles on a machine with no GPU.
#pragma once

#include "launch/planner.hpp"

#include <jet/detail/core.hpp>
#include <jet/fft.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace jet::detail {

/// The callback's name, as cufftXtSetJITCallback takes it: cuFFT finds the function by its
/// unmangled C++ name (an extern "C" one is not found).
inline constexpr const char* fft_load_callback_name = "jet_fft_load";

/// The variant a load callback computes its elements with: the plan's operands (which are the same
/// memory, each one's access, shared subexpressions) read one element at a time.
variant_key load_callback_variant(const variant_key& planned);

/// Which elements of the transform's buffer the operand covers: all of them, or (padded) the first
/// `covered` of each run of `extent` along the last transformed axis, runs `inner` elements apart;
/// the rest are zeros.
struct fft_padding {
  bool padded = false;
  std::uint64_t extent = 0, covered = 0, inner = 1;
};
fft_padding padding_of(const fft_geometry& g);

/// The source of the load callback of d's value under variant v (load_callback_variant), for a
/// transform that reads `element` (float32 or float64 for R2C, else complex64 or complex128).
std::string load_callback_source(const kernel_desc& d, const variant_key& v, dtype element, bool padded);

/// How many 8-byte words the parameter block of d's callback under variant v has.
std::size_t load_callback_word_count(const kernel_desc& d, const variant_key& v);

/// The callback's parameter block (8-byte words) for one transform: the buffer whose offsets
/// cuFFT passes, the padding, then the plan's extents, distinct inputs and scalars, in the order
/// load_callback_source reads them.
std::vector<std::uint64_t> load_callback_words(const evaluation& e, const plan& p, const void* buffer,
                                               const fft_padding& padding);

}  // namespace jet::detail
