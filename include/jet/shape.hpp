// N-D shapes and the strided layout of an array in memory.
#pragma once

#include <jet/detail/checked.hpp>
#include <jet/error.hpp>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace jet {

inline constexpr int max_rank = 8;

/// Extents of an N-D array, outermost first (C order). Rank 0 is a single element.
class shape {
 public:
  constexpr shape() = default;
  shape(std::initializer_list<std::int64_t> extents) {
    if (extents.size() > max_rank)
      throw invalid_argument("jet: rank " + std::to_string(extents.size()) + " exceeds the maximum of 8");
    for (std::int64_t e : extents) {
      if (e < 0) throw invalid_argument("jet: negative extent " + std::to_string(e) + " in a shape");
      extents_[rank_++] = e;
    }
  }
  /// A 1-D shape of n elements.
  static shape of_size(std::size_t n) {
    if (n > static_cast<std::size_t>(size_limit)) detail::exceeds_size_limit("the extent " + std::to_string(n));
    return shape{static_cast<std::int64_t>(n)};
  }

  constexpr int rank() const { return rank_; }
  constexpr std::int64_t operator[](int d) const { return extents_[d]; }
  constexpr std::int64_t& operator[](int d) { return extents_[d]; }
  /// Number of elements. The product of the non-zero extents must not exceed jet::size_limit
  /// (shape_error naming the shape), as NumPy's limit counts them, so that C-order strides fit.
  constexpr std::size_t size() const;
  constexpr void push_back(std::int64_t e) { extents_[rank_++] = e; }

  friend constexpr bool operator==(const shape& a, const shape& b) {
    if (a.rank_ != b.rank_) return false;
    for (int d = 0; d < a.rank_; ++d)
      if (a.extents_[d] != b.extents_[d]) return false;
    return true;
  }
  /// "(3, 4)", as NumPy prints shapes.
  std::string to_string() const {
    std::string s = "(";
    for (int d = 0; d < rank_; ++d) s += (d ? ", " : "") + std::to_string(extents_[d]);
    return s + (rank_ == 1 ? ",)" : ")");
  }

 private:
  std::array<std::int64_t, max_rank> extents_{};
  int rank_ = 0;
};

namespace detail {

/// s's number of elements into `count`; false when the product of its non-zero extents exceeds
/// jet::size_limit.
constexpr bool element_count(const jet::shape& s, std::int64_t& count) noexcept {
  std::int64_t product = 1;
  bool empty = false;
  for (int d = 0; d < s.rank(); ++d) {
    if (s[d] == 0)
      empty = true;
    else if (!multiply(product, s[d], product))
      return false;
  }
  count = empty ? 0 : product;
  return true;
}

}  // namespace detail

constexpr std::size_t shape::size() const {
  std::int64_t count = 0;
  if (!detail::element_count(*this, count)) detail::exceeds_size_limit("the element count of shape " + to_string());
  return static_cast<std::size_t>(count);
}

namespace detail {

/// The bytes of s's elements of element_size bytes each; shape_error past jet::size_limit.
inline std::size_t bytes_of(const jet::shape& s, std::size_t element_size) {
  const auto elements = static_cast<std::int64_t>(s.size());
  return static_cast<std::size_t>(checked_multiply(elements, static_cast<std::int64_t>(element_size), [&] {
    return "the bytes of shape " + s.to_string() + " of " + std::to_string(element_size) + "-byte elements";
  }));
}

/// Where an operand's elements are: extents and strides in elements (a stride may be 0 for a
/// broadcast dimension, or negative for a reversed slice).
struct layout {
  jet::shape extents;
  std::array<std::int64_t, max_rank> strides{};

  /// C order. As NumPy's, the strides skip extents of 0: each is the product of the non-zero
  /// extents inside it, which shape::size() checks.
  static layout contiguous(const jet::shape& s) {
    layout l{s, {}};
    std::int64_t stride = 1;
    for (int d = s.rank() - 1; d >= 0; --d) {
      l.strides[d] = stride;
      if (s[d] != 0)
        stride = checked_multiply(stride, s[d], [&] { return "the element count of shape " + s.to_string(); });
    }
    return l;
  }
  bool is_contiguous() const {
    std::int64_t stride = 1;
    for (int d = extents.rank() - 1; d >= 0; --d) {
      if (extents[d] != 1 && strides[d] != stride) return false;
      if (extents[d] != 0 && !multiply(stride, extents[d], stride)) return false;  // no shape of jet's
    }
    return true;
  }

  /// The offsets, in elements from the first, of the lowest and the highest element the layout
  /// reaches (both 0 when it has none).
  struct element_range {
    std::int64_t lowest = 0, highest = 0;
  };
  /// shape_error when the element count, the distance from the lowest to the highest element,
  /// or the bytes from one to the other (elements of element_size bytes) exceed jet::size_limit.
  element_range reach(std::size_t element_size) const {
    element_range r;
    if (extents.size() == 0) return r;
    const auto too_far = [&] { return "the memory that " + to_string() + " spans"; };
    std::int64_t distance = 0;  // from the lowest element to the highest
    for (int d = 0; d < extents.rank(); ++d) {
      if (extents[d] == 1) continue;  // its stride is never taken
      const std::int64_t magnitude = strides[d] < 0 ? checked_multiply(strides[d], -1, too_far) : strides[d];
      const std::int64_t span = checked_multiply(extents[d] - 1, magnitude, too_far);
      if (!add(distance, span, distance)) exceeds_size_limit(too_far());
      if (strides[d] < 0)
        r.lowest -= span;  // neither passes distance
      else
        r.highest += span;
    }
    std::int64_t bytes = 0;
    if (!add(distance, 1, bytes) || !multiply(bytes, static_cast<std::int64_t>(element_size), bytes))
      exceeds_size_limit(too_far());
    return r;
  }
  /// "shape (2, 3) with strides (3, 1)".
  std::string to_string() const {
    jet::shape s;
    for (int d = 0; d < extents.rank(); ++d) s.push_back(strides[d]);
    return "shape " + extents.to_string() + " with strides " + s.to_string();
  }
  friend bool operator==(const layout& a, const layout& b) {
    if (!(a.extents == b.extents)) return false;
    for (int d = 0; d < a.extents.rank(); ++d)
      if (a.strides[d] != b.strides[d]) return false;
    return true;
  }
};

}  // namespace detail
}  // namespace jet
