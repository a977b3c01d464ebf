// check_every_op for int32 and int64 (every_op.hpp says why a file of its own).
#include "every_op_definition.hpp"

template void jet::test::check_every_op<std::int32_t>(std::size_t);
template void jet::test::check_every_op<std::int64_t>(std::size_t);
