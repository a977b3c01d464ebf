// The other file of "JET_FUNCTIONs of one name in two files each run their own body"
// (test_function.cpp): the same name as there, another body.
#include "support/operands.hpp"

#include <jet/jet.hpp>

#include <string>

JET_FUNCTION(twin, float(float a), "return a + 2.0f;");

std::string twin_source_in_other_file() { return jet::source(twin(jet::test::fake_view<float>())); }
