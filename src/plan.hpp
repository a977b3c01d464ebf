// The launch planner's choice, for white-box tests: evaluate() plans every launch this way.
#pragma once

#include <jet/runtime.hpp>

namespace jet::detail {

/// The variant evaluate() would launch for e (its shapes checked as evaluate() checks them).
variant_key planned_variant(const evaluation& e);

}  // namespace jet::detail
