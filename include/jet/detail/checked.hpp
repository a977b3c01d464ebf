// jet's size limit, and the one place its size arithmetic is checked: every element count,
// element offset, extent, stride and byte count jet computes fits int64, and one that would not
// is a jet::shape_error naming what exceeded the limit (never a wrapped value).
#pragma once

#include <jet/error.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace jet {

/// The most elements a shape may have (the product of its non-zero extents), the furthest a view
/// may reach from its first element, and the most bytes either may span: 2^63 - 1, int64's largest
/// value.
inline constexpr std::int64_t size_limit = std::numeric_limits<std::int64_t>::max();

namespace detail {

/// a * b and a + b into `result`; false (`result` then unspecified) where int64 cannot hold it.
constexpr bool multiply(std::int64_t a, std::int64_t b, std::int64_t& result) noexcept {
  return !__builtin_mul_overflow(a, b, &result);
}
constexpr bool add(std::int64_t a, std::int64_t b, std::int64_t& result) noexcept {
  return !__builtin_add_overflow(a, b, &result);
}

/// The shape_error for `what` (a count, offset or byte count, naming its shape) past size_limit.
[[noreturn]] inline void exceeds_size_limit(const std::string& what) {
  throw shape_error("jet: " + what + " exceeds jet's size limit of 2^63 - 1 (jet::size_limit)");
}

/// a * b, or exceeds_size_limit(what()): `what` builds the message only when it is needed.
template <class What> constexpr std::int64_t checked_multiply(std::int64_t a, std::int64_t b, What what) {
  std::int64_t result = 0;
  if (!multiply(a, b, result)) exceeds_size_limit(what());
  return result;
}

}  // namespace detail
}  // namespace jet
