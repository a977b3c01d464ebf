// check_every_op for float16, bfloat16 and bool (every_op.hpp says why a file of its own).
#include "every_op_definition.hpp"

template void jet::test::check_every_op<jet::float16>(std::size_t);
template void jet::test::check_every_op<jet::bfloat16>(std::size_t);
template void jet::test::check_every_op<bool>(std::size_t);
