// The argument checks and lengths of the fusing constructors (include/jet/constructors.hpp),
// following NumPy's arange and linspace.
#include <jet/constructors.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace jet::detail {
namespace {

// A float64 argument as the messages show it: enough digits to tell it apart.
std::string text(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

std::string arguments(const std::string& start, const std::string& stop, const std::string& step) {
  return "(start " + start + ", stop " + stop + ", step " + step + ")";
}

}  // namespace

std::int64_t checked_count(std::int64_t n, const char* function, const char* what) {
  if (n < 0) throw invalid_argument(std::string(function) + ": " + what + " is negative: " + std::to_string(n));
  return n;
}

std::int64_t checked_count(std::uint64_t n, const char* function, const char* what) {
  if (n > static_cast<std::uint64_t>(size_limit))
    throw invalid_argument(std::string(function) + ": " + what + " " + std::to_string(n) +
                           " exceeds jet's size limit of 2^63 - 1 (jet::size_limit)");
  return static_cast<std::int64_t>(n);
}

std::int64_t integer_argument(std::uint64_t value, const char* what) {
  if (value > static_cast<std::uint64_t>(size_limit))
    throw invalid_argument(std::string("jet: ") + what + " " + std::to_string(value) +
                           " is past int64, which integer constructors compute in");
  return static_cast<std::int64_t>(value);
}

std::int64_t arange_length(std::int64_t start, std::int64_t stop, std::int64_t step) {
  if (step == 0)
    throw invalid_argument("jet::arange: step 0 " +
                           arguments(std::to_string(start), std::to_string(stop), std::to_string(step)));
  if (step > 0 ? stop <= start : stop >= start) return 0;
  // The distance and the step's magnitude in uint64, where both fit exactly: ceil(distance / by).
  const std::uint64_t distance = step > 0 ? static_cast<std::uint64_t>(stop) - static_cast<std::uint64_t>(start)
                                          : static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(stop);
  const std::uint64_t by = step > 0 ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
  // At most 2^64 - 1 over at least 1; a length past int64 needs step ±1 and a distance past it.
  const std::uint64_t length = distance / by + (distance % by != 0);
  if (length > static_cast<std::uint64_t>(size_limit))
    throw invalid_argument("jet::arange: length " + std::to_string(length) + " exceeds jet's size limit of 2^63 - 1 " +
                           arguments(std::to_string(start), std::to_string(stop), std::to_string(step)));
  return static_cast<std::int64_t>(length);
}

floating_range arange_range(double start, double stop, double step) {
  const std::string args = arguments(text(start), text(stop), text(step));
  if (step == 0) throw invalid_argument("jet::arange: step 0 " + args);
  if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step))
    throw invalid_argument("jet::arange: a non-finite argument " + args);
  // NumPy's _calc_length: ceil((stop - start) / step), where a quotient that underflows to 0 of a
  // distance that is not 0 counts as 1 element when positive.
  const double distance = stop - start, quotient = distance / step;
  double length = std::ceil(quotient);
  if (quotient == 0 && distance != 0) length = std::signbit(quotient) ? 0 : 1;
  if (!std::isfinite(length) || length >= 0x1p63)  // (stop - start) / step overflows for finite arguments
    throw invalid_argument("jet::arange: the length ceil((stop - start) / step) exceeds jet's size limit of 2^63 - 1 " +
                           args);
  return {length > 0 ? static_cast<std::int64_t>(length) : 0, (start + step) - start};
}

linspace_steps linspace_plan(double start, double stop, std::int64_t num, bool endpoint) {
  if (num < 0) throw invalid_argument("jet::linspace: num is negative: " + std::to_string(num));
  if (!std::isfinite(start) || !std::isfinite(stop))
    throw invalid_argument("jet::linspace: a non-finite bound (start " + text(start) + ", stop " + text(stop) + ")");
  const std::int64_t divisions = endpoint ? num - 1 : num;
  const double distance = stop - start;
  if (!std::isfinite(distance))
    throw invalid_argument("jet::linspace: stop - start overflows (start " + text(start) + ", stop " + text(stop) +
                           ")");
  // NumPy's steps: i * step + start, but (i / divisions) * distance + start where the step
  // underflows to 0, and 0 * distance + start where it is undefined (num 1 with the endpoint).
  if (divisions <= 0) return {1, distance, -1};
  const double step = distance / static_cast<double>(divisions);
  if (step == 0 && distance != 0) return {static_cast<double>(divisions), distance, endpoint ? num - 1 : -1};
  return {1, step, endpoint ? num - 1 : -1};
}

layout iota_layout(const jet::shape& s, int axis) {
  const int rank = s.rank();
  if (axis < -rank || axis >= rank)
    throw invalid_argument("jet::iota: axis " + std::to_string(axis) + " out of range for shape " + s.to_string() +
                           " of rank " + std::to_string(rank));
  (void)s.size();  // checks the count, as an array of the shape would
  layout l{s, {}};
  l.strides[axis < 0 ? axis + rank : axis] = 1;
  return l;
}

}  // namespace jet::detail
