// The planner's choice for an assignment or a reduction, for white-box tests (they see the core's src/ headers).
#pragma once

#include "codegen/elementwise.hpp"
#include "interpreter/encoder.hpp"
#include "launch/planner.hpp"

#include <jet/jet.hpp>

#include <optional>
#include <string>
#include <tuple>

namespace jet::test {

/// The launch variant evaluate() would choose for out = e.
template <class Out, class E> jet::detail::variant_key planned_variant_of(const jet::view<Out>& out, const E& e) {
  const jet::detail::bound_one<Out, E> b(e);
  void* outputs[] = {out.data()};
  return jet::detail::planned_variant(b.request(outputs, &out.layout()));
}

/// f(desc, variant, scalars) for the kernel that jet::tie(outs...) = pack launches, planned for
/// those operands and outputs (which repeats hold, which inputs are the same memory).
template <class F, class... Es, class... Outs>
auto with_plan_of(F f, const jet::expression_pack<Es...>& pack, const jet::view<Outs>&... outs) {
  using bound_t = jet::detail::bound<jet::detail::roots<Es...>, Outs...>;
  const bound_t b = std::apply([](const auto&... e) { return bound_t(e...); }, pack.exprs);
  void* outputs[] = {outs.data()...};
  const jet::detail::layout layouts[] = {outs.layout()...};
  return f(bound_t::kernel::desc, jet::detail::planned_variant(b.request(outputs, layouts)), b.values.scalar.data());
}

/// The source of the kernel that jet::tie(outs...) = pack launches, as planned for its operands.
template <class... Es, class... Outs>
std::string planned_source_of(const jet::expression_pack<Es...>& pack, const jet::view<Outs>&... outs) {
  const auto source = [](const auto& d, const auto& v, const auto*) { return jet::detail::generate_source(d, v); };
  return with_plan_of(source, pack, outs...);
}

/// The interpreter's program for jet::tie(outs...) = pack, as planned for its operands (the
/// repeats that hold computed once, as evaluate() encodes it).
template <class... Es, class... Outs>
jet::detail::encoding planned_encoding_of(const jet::expression_pack<Es...>& pack, const jet::view<Outs>&... outs) {
  const auto encode = [](const auto& d, const auto& v, const auto* scalars) {
    return jet::detail::encode_for_interpreter(d, scalars, v.unique_of, v.shared);
  };
  return with_plan_of(encode, pack, outs...);
}

/// How many instructions of an interpreter program apply op `op` (with a scalar second operand or not).
inline int op_instructions(const jet::detail::encoding& e, jet::detail::op_id op) {
  int count = 0;
  for (unsigned i = 0; i < e.code.count; ++i)
    count += (e.code.code[i].op & ~jet::detail::scalar_second_op) == static_cast<std::uint8_t>(op);
  return count;
}

/// How reduce() would launch reduction R of e along `axis` (or all_axes) on a device of
/// `multiprocessors` SMs (an H200 has 132).
template <jet::detail::reduction_id R, class E>
jet::detail::reduction_launch planned_reduction_of(const E& e, std::optional<int> axis,
                                                   unsigned multiprocessors = 132) {
  using kernel = jet::detail::reduction_kernel<R, E>;
  const auto values = kernel::element::values_of(e);
  void* outputs[] = {nullptr};
  const jet::detail::layout out =
      jet::detail::layout::contiguous(jet::detail::reduced_shape(kernel::desc, values.layouts.data(), axis));
  return jet::detail::planned_reduction(
      {kernel::desc, kernel::slot, outputs, &out, values.input.data(), values.layouts.data(), values.scalar.data()},
      axis, multiprocessors);
}

}  // namespace jet::test
