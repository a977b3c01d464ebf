// Floating elements as NumPy's repr writes them (its FloatingFormat, precision 8, floatmode
// "maxprec"): each value in the fewest digits that read back as it in its own dtype, at most 8
// after the point; positional unless the shown values span too much (then scientific); padded so
// that the points line up.
#pragma once

#include <jet/dtype.hpp>

#include <cstddef>
#include <string>

namespace jet::detail {

/// The format of the shown values `values` (count of them, of dtype `type`, held as doubles):
/// call it on each to get its padded text. `signed_always` writes a + before a value without a
/// - (a complex number's imaginary part).
class float_format {
 public:
  float_format(const double* values, std::size_t count, dtype type, bool signed_always = false);
  std::string operator()(double v) const;

 private:
  struct parts {
    std::string whole, fraction, exponent;  // "-12", "5", "-05": -12.5e-05
  };
  parts split(double v) const;

  dtype type_;
  bool signed_always_;
  bool scientific_ = false;
  std::size_t whole_width_ = 0, fraction_width_ = 0, exponent_digits_ = 0, width_ = 0;
};

}  // namespace jet::detail
