// A plain C interface over jet for check.py, which loads it with ctypes (no Python extension is
// built): PyTorch tensors go in and out through DLPack.
#include <jet/dlpack.hpp>
#include <jet/jet.hpp>

#include <exception>
#include <string>

namespace {
thread_local std::string last_error;
}

extern "C" {

/// a * x + y for float32 CUDA tensors of one shape (any strides), as a new tensor the caller owns;
/// null on failure, with jet_last_error() saying why. jet owns x from the call on, and y once x
/// is accepted.
DLManagedTensor* jet_axpy(float a, DLManagedTensor* x, DLManagedTensor* y) {
  try {
    const jet::view<float> vx = jet::from_dlpack<float>(x);
    const jet::view<float> vy = jet::from_dlpack<float>(y);
    return jet::to_dlpack(jet::array<float>(a * vx + vy));
  } catch (const std::exception& e) {
    last_error = e.what();
    return nullptr;
  }
}

const char* jet_last_error() { return last_error.c_str(); }
}
