// check_every_op for int8, uint8 and int16 (every_op.hpp says why a file of its own).
#include "every_op_definition.hpp"

template void jet::test::check_every_op<std::int8_t>(std::size_t);
template void jet::test::check_every_op<std::uint8_t>(std::size_t);
template void jet::test::check_every_op<std::int16_t>(std::size_t);
