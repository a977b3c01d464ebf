// The planner's choice for an assignment, for white-box tests (they see the core's src/ headers).
#pragma once

#include "plan.hpp"

#include <jet/jet.hpp>

namespace jet::test {

/// The launch variant evaluate() would choose for out = e.
template <class Out, class E> jet::detail::variant_key planned_variant_of(const jet::view<Out>& out, const E& e) {
  const jet::detail::bound_one<Out, E> b(e);
  void* outputs[] = {out.data()};
  return jet::detail::planned_variant(b.request(outputs, &out.layout()));
}

}  // namespace jet::test
