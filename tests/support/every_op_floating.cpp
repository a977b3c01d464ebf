// check_every_op for float32 and float64 (every_op.hpp says why a file of its own).
#include "every_op_definition.hpp"

template void jet::test::check_every_op<float>(std::size_t);
template void jet::test::check_every_op<double>(std::size_t);
