// A JET_FUNCTION's text → the device function jet writes into a kernel, once the text is checked
// to stay inside that function (README, "User functions", lists the checks).
#pragma once

#include <jet/detail/kernel_desc.hpp>

#include <string>

namespace jet::detail {

/// `__device__ __forceinline__ R jet_user_<name>(params) {\n<body>\n}\n`. Throws invalid_argument
/// naming the function and what was refused: a name that is no ASCII identifier, a signature not of
/// the form `R(T a, ...)` with supported types, or a body that could reach outside its function
/// (unbalanced brackets, a preprocessor directive, `_Pragma`, `asm`, a name jet reserves, ...).
std::string user_function_source(const user_function& f);

}  // namespace jet::detail
