// check_every_op for uint32 and uint64 (every_op.hpp says why a file of its own).
#include "every_op_definition.hpp"

template void jet::test::check_every_op<std::uint32_t>(std::size_t);
template void jet::test::check_every_op<std::uint64_t>(std::size_t);
