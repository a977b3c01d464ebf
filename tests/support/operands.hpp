// Operands for tests: views over made-up addresses (for work that never touches memory), and any
// op of the table applied generically.
#pragma once

#include <jet/jet.hpp>

#include <complex>
#include <cstdint>
#include <type_traits>

namespace jet::test {

/// A view nothing dereferences: for building, describing and compiling expressions with no GPU.
template <class T> jet::view<T> fake_view(std::size_t n = 8, std::uintptr_t address = 0x10000) {
  return jet::view<T>(reinterpret_cast<T*>(address), n);
}

/// f(op) for every op of the table whose domain holds dtype T (ops.def) and whose result is real
/// for real operands.
template <class T, class F> void for_each_op_on(F&& f) {
  jet::ops::for_each_op([&](auto op) {
    using Op = decltype(op);
    if constexpr (jet::detail::accepts(Op::domain, jet::dtype_of<T>()) && Op::rule != jet::detail::rule::make_complex)
      f(op);
  });
}

/// Op applied to its first `arity` operands; a cast converts to int64 (a complex operand to
/// complex128), and a complex where's condition is real(a) > 0.
template <class Op, class A> auto apply_op(const A& a, const A& b, const A& c) {
  constexpr bool complex = jet::is_complex(std::remove_cvref_t<decltype(a + a)>::type);
  if constexpr (Op::rule == jet::detail::rule::target)
    return jet::detail::make_apply<
        jet::ops::converting<Op, std::conditional_t<complex, std::complex<double>, std::int64_t>>>(a);
  else if constexpr (Op::rule == jet::detail::rule::select && complex)
    return jet::detail::make_apply<Op>(jet::real(a) > 0, b, c);
  else if constexpr (Op::arity == 1)
    return jet::detail::make_apply<Op>(a);
  else if constexpr (Op::arity == 2)
    return jet::detail::make_apply<Op>(a, b);
  else
    return jet::detail::make_apply<Op>(a, b, c);
}

/// The description of the kernel that stores e into an array of Out (by default, of e's dtype).
template <class Out = void, class E> const jet::detail::kernel_desc& desc_of(const E&) {
  using expression = std::remove_cvref_t<E>;
  using stored = std::conditional_t<std::is_void_v<Out>, jet::cpp_type<expression::type>, Out>;
  return jet::detail::kernel_of<jet::detail::roots<expression>, stored>::desc;
}

}  // namespace jet::test
