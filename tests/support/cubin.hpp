// What tests compile for, and how they recognize a cubin.
#pragma once

#include <jet/detail/core.hpp>

namespace jet::test {

inline constexpr jet::arch hopper{90};

/// Whether k holds an ELF image, as every cubin is.
inline bool is_cubin(const jet::compiled_kernel& k) {
  return k.cubin.size() > 4 && k.cubin.compare(0, 4,
                                               "\x7f"
                                               "ELF") == 0;
}

}  // namespace jet::test
