// NVRTC run directly on a generated source, with jet's options for sm_90 and more: for what
// tests read beyond the cubin (ptxas's report, the PTX).
#pragma once

#include "compile/compiler.hpp"

#include <nvrtc.h>

#include <string>
#include <vector>

namespace jet::test {

struct nvrtc_output {
  bool compiled;
  std::string log;
  std::string ptx;  // empty where it did not compile
};

/// `source` compiled for sm_90 with jet's options followed by `extra`.
inline nvrtc_output nvrtc_compile(const std::string& source, const std::vector<std::string>& extra = {}) {
  nvrtcProgram program = nullptr;
  if (nvrtcCreateProgram(&program, source.c_str(), "jet_kernel.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return {false, "nvrtcCreateProgram failed", ""};
  std::vector<std::string> options = jet::detail::compile_options(90);
  options.insert(options.end(), extra.begin(), extra.end());
  std::vector<const char*> pointers;
  for (const std::string& o : options) pointers.push_back(o.c_str());
  nvrtc_output out{nvrtcCompileProgram(program, static_cast<int>(pointers.size()), pointers.data()) == NVRTC_SUCCESS,
                   "", ""};
  std::size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  out.log.resize(size);
  nvrtcGetProgramLog(program, out.log.data());
  if (out.compiled && nvrtcGetPTXSize(program, &size) == NVRTC_SUCCESS) {
    out.ptx.resize(size);
    nvrtcGetPTX(program, out.ptx.data());
  }
  nvrtcDestroyProgram(&program);
  return out;
}

}  // namespace jet::test
