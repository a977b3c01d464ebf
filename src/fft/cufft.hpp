// cuFFT, loaded at run time as the driver is: jet links no libcufft and includes no cufft.h, so
// programs build without it and run where it is missing (an FFT then throws fft_unavailable).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>

namespace jet::detail {

// The few declarations of cufft.h that jet uses, as cuFFT 11 (CUDA 12) and 12 (CUDA 13) define
// them: the ABI is the same in both.
using cufft_handle = int;  // cufftHandle
using cufft_result = int;  // cufftResult: 0 is CUFFT_SUCCESS
enum cufft_type : int {    // cufftType
  cufft_r2c = 0x2a,
  cufft_c2r = 0x2c,
  cufft_c2c = 0x29,
  cufft_d2z = 0x6a,
  cufft_z2d = 0x6c,
  cufft_z2z = 0x69,
};
inline constexpr int cufft_forward = -1;  // CUFFT_FORWARD
inline constexpr int cufft_inverse = 1;   // CUFFT_INVERSE
inline constexpr cufft_result cufft_success = 0;
inline constexpr cufft_result cufft_alloc_failed = 2;
enum cufft_callback_type : int {  // cufftXtCallbackType
  cufft_load_complex = 0,
  cufft_load_complex_double = 1,
  cufft_load_real = 2,
  cufft_load_real_double = 3,
};

// Every cuFFT entry point jet calls. Complex data are passed as void*: cufftComplex is float2,
// the layout of std::complex<float>, and cudaStream_t is CUstream.
#define JET_CUFFT_FUNCTIONS(X)                                                                                         \
  X(cufftGetVersion, cufft_result (*)(int*))                                                                           \
  X(cufftCreate, cufft_result (*)(cufft_handle*))                                                                      \
  X(cufftDestroy, cufft_result (*)(cufft_handle))                                                                      \
  X(cufftSetStream, cufft_result (*)(cufft_handle, CUstream))                                                          \
  X(cufftMakePlanMany64, cufft_result (*)(cufft_handle, int, long long*, long long*, long long, long long, long long*, \
                                          long long, long long, cufft_type, long long, std::size_t*))                  \
  X(cufftExecC2C, cufft_result (*)(cufft_handle, void*, void*, int))                                                   \
  X(cufftExecZ2Z, cufft_result (*)(cufft_handle, void*, void*, int))                                                   \
  X(cufftExecR2C, cufft_result (*)(cufft_handle, void*, void*))                                                        \
  X(cufftExecD2Z, cufft_result (*)(cufft_handle, void*, void*))                                                        \
  X(cufftExecC2R, cufft_result (*)(cufft_handle, void*, void*))                                                        \
  X(cufftExecZ2D, cufft_result (*)(cufft_handle, void*, void*))

struct cufft_api {
#define JET_CUFFT_MEMBER(name, type) \
  using name##_type = type;          \
  name##_type name = nullptr;
  JET_CUFFT_FUNCTIONS(JET_CUFFT_MEMBER)
#undef JET_CUFFT_MEMBER
  int version = 0;  // cufftGetVersion: 12000 for cuFFT 12.0.0
  // cufftXtSetJITCallback (cuFFT 12), or cuFFT 11.3 and 11.4's __cufftXtSetJITCallback_12_7 of the
  // same parameters; null before cuFFT 11.3, which has no LTO callbacks.
  using set_jit_callback_type = cufft_result (*)(cufft_handle, const char* symbol, const void* lto_ir,
                                                 std::size_t lto_ir_size, cufft_callback_type, void** caller_info);
  set_jit_callback_type set_jit_callback = nullptr;
};

/// The loaded cuFFT: libcufft.so.12 (CUDA 13), else libcufft.so.11 (CUDA 12), or the library
/// JET_CUFFT_LIBRARY names. Throws fft_unavailable naming each library tried and dlerror's text.
/// Needs no device: loading it is the first thing an FFT does.
const cufft_api& cufft();

/// Throws naming `call`, the cufftResult's name and `context` unless r is CUFFT_SUCCESS:
/// out_of_memory for CUFFT_ALLOC_FAILED, else cuda_error (its code the cufftResult).
void check_cufft(cufft_result r, const char* call, const char* context = "");

/// "CUFFT_INVALID_SIZE (8)"; "cufftResult 99" for a code jet does not know.
std::string cufft_result_name(cufft_result r);

}  // namespace jet::detail
