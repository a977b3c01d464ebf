// The exceptions jet throws. Every message names the values involved.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace jet {

/// Base of every jet exception.
struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// No CUDA driver could be loaded, or it reports no usable device.
struct no_device : error {
  using error::error;
};

/// A CUDA driver call failed; `call` names it and `code` is its CUresult.
struct cuda_error : error {
  cuda_error(std::string call, int code, const std::string& message)
      : error(message), call(std::move(call)), code(code) {}
  std::string call;
  int code;
};

/// NVRTC rejected a generated kernel. The message holds the full log, the numbered source and the
/// C++ expression the kernel came from; each is also available on its own.
struct compile_error : error {
  compile_error(const std::string& message, std::string log, std::string source, std::string expression)
      : error(message), log(std::move(log)), source(std::move(source)), expression(std::move(expression)) {}
  std::string log, source, expression;
};

/// Operands or output whose sizes do not agree.
struct shape_error : error {
  using error::error;
};

/// A device allocation failed; `bytes` is the size asked for. Nothing already allocated is lost.
struct out_of_memory : error {
  out_of_memory(const std::string& message, std::size_t bytes) : error(message), bytes(bytes) {}
  std::size_t bytes;
};

/// An argument jet cannot use (a null pointer with a non-zero length, an unsupported architecture).
struct invalid_argument : error {
  using error::error;
};

}  // namespace jet
