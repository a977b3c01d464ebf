#include "print/float_text.hpp"

#include <jet/half.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace jet::detail {
namespace {

// NumPy's defaults: digits after the point, and the magnitudes past which it writes scientific.
constexpr int precision = 8;
constexpr double scientific_from = 1e8, scientific_below = 1e-4, scientific_ratio = 1e3;

// A non-negative decimal: digits[0].digits[1..] x 10^exponent, with no leading or trailing zero
// ("0" for zero).
struct decimal {
  std::string digits;
  int exponent = 0;
};

// The decimal a plain number ("0.00012346", "1.25e+02", "100") writes, its sign ignored.
decimal parse(const char* text) {
  std::string raw;
  int before_point = -1, exponent = 0;
  const char* p = text;
  if (*p == '-' || *p == '+') ++p;
  for (; *p && *p != 'e'; ++p) {
    if (*p == '.')
      before_point = static_cast<int>(raw.size());
    else
      raw += *p;
  }
  if (*p == 'e') exponent = std::atoi(p + 1);
  if (before_point < 0) before_point = static_cast<int>(raw.size());
  const std::size_t first = raw.find_first_not_of('0');
  if (first == std::string::npos) return {"0", 0};
  const std::size_t last = raw.find_last_not_of('0');
  return {raw.substr(first, last - first + 1), before_point + exponent - static_cast<int>(first) - 1};
}

// The 16-bit float of dtype t nearest to v, as a float.
float narrowed(double v, dtype t) {
  const auto f = static_cast<float>(v);
  return t == dtype::float16 ? static_cast<float>(float16(f)) : static_cast<float>(bfloat16(f));
}

// The fewest digits that read back as |v| (finite, not 0) in dtype t.
decimal shortest(double v, dtype t) {
  char buffer[64];
  const double magnitude = std::fabs(v);
  if (t == dtype::float64 || t == dtype::float32) {
    const auto r = t == dtype::float64
                       ? std::to_chars(buffer, buffer + sizeof buffer - 1, magnitude, std::chars_format::scientific)
                       : std::to_chars(buffer, buffer + sizeof buffer - 1, static_cast<float>(magnitude),
                                       std::chars_format::scientific);
    *r.ptr = '\0';
    return parse(buffer);
  }
  // No std::to_chars for 16-bit floats: the first length that reads back (at most 5 digits).
  for (int digits = 1;; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, magnitude);
    if (digits >= 9 || narrowed(std::strtod(buffer, nullptr), t) == static_cast<float>(magnitude)) return parse(buffer);
  }
}

// d with at most `precision` digits after the point, positional or scientific: |v| rounded there
// (from its exact value, as NumPy's Dragon4 rounds) where the shortest digits are more.
decimal limited(double v, const decimal& d, bool scientific) {
  const int after_point = static_cast<int>(d.digits.size()) - 1 - (scientific ? 0 : d.exponent);
  if (after_point <= precision) return d;
  char buffer[400];  // %.8f of the largest double: 309 digits before the point
  std::snprintf(buffer, sizeof buffer, scientific ? "%.*e" : "%.*f", precision, std::fabs(v));
  return parse(buffer);
}

}  // namespace

float_format::float_format(const double* values, std::size_t count, dtype type, bool signed_always)
    : type_(type), signed_always_(signed_always) {
  double largest = 0, smallest = INFINITY;
  for (std::size_t k = 0; k < count; ++k) {
    const double magnitude = std::fabs(values[k]);
    if (!std::isfinite(magnitude) || magnitude == 0) continue;
    largest = std::max(largest, magnitude);
    smallest = std::min(smallest, magnitude);
  }
  scientific_ = largest >= scientific_from ||
                (largest > 0 && (smallest < scientific_below || largest / smallest > scientific_ratio));
  for (std::size_t k = 0; k < count; ++k) {
    if (!std::isfinite(values[k])) {
      width_ = std::max<std::size_t>(width_, (std::isinf(values[k]) && values[k] < 0) || signed_always_ ? 4 : 3);
      continue;
    }
    const parts p = split(values[k]);
    whole_width_ = std::max(whole_width_, p.whole.size());
    fraction_width_ = std::max(fraction_width_, p.fraction.size());
    if (scientific_) exponent_digits_ = std::max(exponent_digits_, p.exponent.size() - 1);  // but its sign
  }
  const std::size_t finite_width =
      whole_width_ + 1 + fraction_width_ + (scientific_ ? 2 + exponent_digits_ : 0);  // "." and "e+"
  if (whole_width_ > 0) width_ = std::max(width_, finite_width);
}

float_format::parts float_format::split(double v) const {
  decimal d = v == 0 ? decimal{"0", 0} : shortest(v, type_);
  d = limited(v, d, scientific_);
  const std::string sign = std::signbit(v) ? "-" : signed_always_ ? "+" : "";
  const auto n = static_cast<int>(d.digits.size());
  if (scientific_) {
    const int magnitude = std::abs(d.exponent);
    std::string exponent = std::to_string(magnitude);
    if (exponent.size() < 2) exponent.insert(0, 1, '0');
    return {sign + d.digits.substr(0, 1), d.digits.substr(1), (d.exponent < 0 ? "-" : "+") + exponent};
  }
  if (d.exponent < 0) return {sign + "0", std::string(static_cast<std::size_t>(-d.exponent - 1), '0') + d.digits, ""};
  const int whole_digits = d.exponent + 1;
  if (n <= whole_digits)
    return {sign + d.digits + std::string(static_cast<std::size_t>(whole_digits - n), '0'), "", ""};
  return {sign + d.digits.substr(0, static_cast<std::size_t>(whole_digits)),
          d.digits.substr(static_cast<std::size_t>(whole_digits)), ""};
}

std::string float_format::operator()(double v) const {
  std::string text;
  if (std::isnan(v)) {
    text = signed_always_ ? "+nan" : "nan";  // NumPy writes a NaN's own sign nowhere
  } else if (std::isinf(v)) {
    text = v < 0 ? "-inf" : signed_always_ ? "+inf" : "inf";
  } else {
    parts p = split(v);
    text = std::string(whole_width_ - p.whole.size(), ' ') + p.whole + ".";
    if (scientific_) {  // every mantissa to the same digits, zeros after its own (NumPy's)
      std::string exponent = p.exponent.substr(1);
      exponent.insert(0, exponent_digits_ - exponent.size(), '0');
      text += p.fraction + std::string(fraction_width_ - p.fraction.size(), '0') + "e" + p.exponent[0] + exponent;
    } else {  // spaces after a shorter fraction, so that the points line up
      text += p.fraction + std::string(fraction_width_ - p.fraction.size(), ' ');
    }
  }
  return std::string(width_ > text.size() ? width_ - text.size() : 0, ' ') + text;
}

}  // namespace jet::detail
