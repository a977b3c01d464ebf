// N-D shapes and the strided layout of an array in memory.
#pragma once

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
  static shape of_size(std::size_t n) { return shape{static_cast<std::int64_t>(n)}; }

  constexpr int rank() const { return rank_; }
  constexpr std::int64_t operator[](int d) const { return extents_[d]; }
  constexpr std::int64_t& operator[](int d) { return extents_[d]; }
  /// Number of elements.
  constexpr std::size_t size() const {
    std::size_t n = 1;
    for (int d = 0; d < rank_; ++d) n *= static_cast<std::size_t>(extents_[d]);
    return n;
  }
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

/// Where an operand's elements are: extents and strides in elements (a stride may be 0 for a
/// broadcast dimension, or negative for a reversed slice).
struct layout {
  jet::shape extents;
  std::array<std::int64_t, max_rank> strides{};

  static layout contiguous(const jet::shape& s) {
    layout l{s, {}};
    std::int64_t stride = 1;
    for (int d = s.rank() - 1; d >= 0; --d) {
      l.strides[d] = stride;
      stride *= s[d];
    }
    return l;
  }
  bool is_contiguous() const {
    std::int64_t stride = 1;
    for (int d = extents.rank() - 1; d >= 0; --d) {
      if (extents[d] != 1 && strides[d] != stride) return false;
      stride *= extents[d];
    }
    return true;
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
