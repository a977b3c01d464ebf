// What layout.cpp gives the core beyond the user API's needs: an axis argument resolved.
#pragma once

#include <jet/shape.hpp>

#include <string>

namespace jet::detail {

/// The dimension of s that `axis` names, negative counting from the end (no int overflows: the
/// rank is at most 8); invalid_argument "<who>: axis A is out of range for shape S of rank R" when
/// none.
int axis_dimension(const std::string& who, const jet::shape& s, int axis);

}  // namespace jet::detail
