// check_every_op<T>(n): every op of the table whose domain holds T, on n fresh random operands of
// dtype T drawn as the table says, against the host reference, one launch each. Declared here and
// instantiated in every_op_*.cpp, a few dtypes to a file: these instantiations are most of the
// GPU tests' compile time, and files of their own build in parallel.
#pragma once

#include <cstddef>

namespace jet::test {

template <class T> void check_every_op(std::size_t n);

}  // namespace jet::test
